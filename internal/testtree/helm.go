package testtree

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// HelmVersion is the helm that tests compare with: .ci/run builds it from
// its Go module into the user's cache (the product never starts it).
const HelmVersion = "v3.22.0"

// Helm is the helm binary the comparison tests run: $SHIPSHAPE_HELM, else
// the build .ci/run caches. The test skips without it, or fails when
// CI=true.
func Helm(t testing.TB) string {
	t.Helper()
	p := os.Getenv("SHIPSHAPE_HELM")
	if p == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skip(err)
		}
		p = filepath.Join(cache, "shipshape-helm", HelmVersion, "helm")
	}
	out, err := exec.Command(p, "version", "--template", "{{.Version}}").Output()
	if err != nil || !strings.HasPrefix(strings.TrimSpace(string(out)), "v3.22") {
		msg := fmt.Sprintf("no helm %s at %s (%v %q); build it with: GOBIN=%s go install helm.sh/helm/v3/cmd/helm@%s",
			HelmVersion, p, err, out, filepath.Dir(p), HelmVersion)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true, so this fails instead of skipping)")
		}
		t.Skip(msg)
	}
	return p
}
