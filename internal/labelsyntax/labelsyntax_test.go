package labelsyntax

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// TestSameAsAPIMachinery holds both checks to apimachinery's, messages
// included, over hand-picked keys and values and random strings over the
// characters that matter.
func TestSameAsAPIMachinery(t *testing.T) {
	inputs := []string{
		"", "a", "A", "app", "app.kubernetes.io/name", "example.com/MyName", "/name", "example.com/", "a/b/c",
		"-a", "a-", "a_b", "a.b", "_a", "Example.com/x", "ex_ample.com/x", "ex..com/x", "exa-.com/x",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 254) + "/x", strings.Repeat("a.", 130) + "b/x",
		"a b", "é", "a\n", "1.2.3", "my_value", "12345", "-", ".",
	}
	r := rand.New(rand.NewPCG(1, 2))
	const chars = "aZ09-_./ \xff"
	for range 5000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		if got, want := IsLabelKey(in), content.IsLabelKey(in); !reflect.DeepEqual(got, want) {
			t.Errorf("IsLabelKey(%q) = %q, apimachinery says %q", in, got, want)
		}
		if got, want := IsLabelValue(in), content.IsLabelValue(in); !reflect.DeepEqual(got, want) {
			t.Errorf("IsLabelValue(%q) = %q, apimachinery says %q", in, got, want)
		}
	}
}
