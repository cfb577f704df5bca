package helmrender

import (
	"strconv"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/kubeversion"
	k8sversion "k8s.io/apimachinery/pkg/util/version"
)

// TestParseGenericVersion holds kubeversion.ParseGeneric, and so the target
// version templates see, to k8s.io/apimachinery's ParseGeneric (what
// Helm's ParseKubeVersion calls): the same versions read, the same
// refused with the same message.
func TestParseGenericVersion(t *testing.T) {
	for _, in := range []string{
		"v1.34.0", "1.34", "1.34.1", " \t v1.20.3 ", "\nv1.2", "v1.2.3-rc.1+meta", "1.2.x", "1.2.", "1..2", "1.05.3",
		"01.2", "0.2", "1", "v", "", "vv1.2", "1.2\n", "1.2.3\nx", "v1.2 trailing words", "18446744073709551616.1",
		"1.18446744073709551616", ".1.2", "1.2.3.4.5", "V1.2", "1.2\xff", "\u00a01.2",
	} {
		got, err := kubeversion.ParseGeneric(in)
		want, wantErr := k8sversion.ParseGeneric(in)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Errorf("kubeversion.ParseGeneric(%q): error %v, ParseGeneric's %v", in, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		kv, err := parseKubeVersion(in)
		if err != nil {
			t.Fatalf("parseKubeVersion(%q): %v", in, err)
		}
		if kv.Version != "v"+want.String() || got[0] != want.Major() || got[1] != want.Minor() ||
			kv.Major != strconv.FormatUint(uint64(want.Major()), 10) || kv.Minor != strconv.FormatUint(uint64(want.Minor()), 10) {
			t.Errorf("kubeversion.ParseGeneric(%q) = %v (%+v), ParseGeneric's %s", in, got, kv, want)
		}
	}
}
