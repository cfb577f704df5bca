package rules

import (
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// TestValidQuantity holds validQuantity to resource.ParseQuantity, which
// Quantity.UnmarshalJSON calls on the trimmed value: every string over a
// small alphabet up to three bytes long, and random longer ones.
func TestValidQuantity(t *testing.T) {
	const alphabet = "0159.-+eEikmnuKMGTP x"
	check := func(s string) {
		_, err := resource.ParseQuantity(strings.TrimSpace(s))
		if got, want := validQuantity(s), err == nil; got != want {
			t.Errorf("validQuantity(%q) = %v, ParseQuantity: %v", s, got, err)
		}
	}
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		check(prefix)
		if n == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			gen(prefix+alphabet[i:i+1], n-1)
		}
	}
	gen("", 3)
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"", "-", "+", "0", "00", "1", "12345678901234567890", ".", ".5", "5.", "e", "E", "e-", "e+", "3", "-10", "40", "Ki", "Mi", "Gi", "Ei", "m", "n", "u", "k", "M", "P", "E", " "}
	for range 100000 {
		var b strings.Builder
		for range 1 + r.IntN(5) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		check(b.String())
	}
}
