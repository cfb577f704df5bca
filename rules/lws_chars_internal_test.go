package rules

import (
	"regexp"
	"testing"
)

// TestLWSNameLoops holds the loops that check an LWS name and a group
// index suffix to the regular expressions they replace.
func TestLWSNameLoops(t *testing.T) {
	chars := regexp.MustCompile(`^[a-z0-9-]*$`)
	suffix := regexp.MustCompile(`^-[0-9]+$`)
	for _, s := range []string{"", "-", "-0", "-12", "-1a", "--1", "0", "a-b", "A", "a_b", "é", "-٣", "web-3\n", "x\x00"} {
		if got, want := dns1035Chars(s), chars.MatchString(s); got != want {
			t.Errorf("dns1035Chars(%q) = %v, want %v", s, got, want)
		}
		if got, want := groupIndexSuffix(s), suffix.MatchString(s); got != want {
			t.Errorf("groupIndexSuffix(%q) = %v, want %v", s, got, want)
		}
	}
}
