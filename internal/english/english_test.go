package english

import "testing"

func TestPluralAndCount(t *testing.T) {
	for _, tc := range []struct {
		n           int
		plural, cnt string
	}{
		{0, "findings", "0 findings"},
		{1, "finding", "1 finding"},
		{2, "findings", "2 findings"},
		{-1, "findings", "-1 findings"},
	} {
		if got := Plural(tc.n, "finding", "findings"); got != tc.plural {
			t.Errorf("Plural(%d) = %q, want %q", tc.n, got, tc.plural)
		}
		if got := Count(tc.n, "finding", "findings"); got != tc.cnt {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.cnt)
		}
	}
}
