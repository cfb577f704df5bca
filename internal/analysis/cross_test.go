package analysis

import (
	"errors"
	"testing"
)

type plainInner struct{ A, b string }

type plainOK struct {
	S string
	N int64
	M map[string][]int
	P *plainOK
	F Finding
	plainPromoted
}

type plainPromoted struct{ X string }

type plainUnexported struct{ s string }

type plainFunc struct{ F func() }

type plainDeep struct{ I []plainInner }

// A summary is carried between runs only when bincodec carries all of it.
func TestEncodable(t *testing.T) {
	for _, tc := range []struct {
		c    Cross
		v    any
		want bool
	}{
		{Summaries(func(*Pass) (plainOK, bool) { return plainOK{}, false }, nil), plainOK{}, true},
		{Summaries(func(*Pass) (*plainOK, bool) { return nil, false }, nil), (*plainOK)(nil), true},
		{Summaries(func(*Pass) (plainUnexported, bool) { return plainUnexported{}, false }, nil), plainUnexported{}, false},
		{Summaries(func(*Pass) (plainFunc, bool) { return plainFunc{}, false }, nil), plainFunc{}, false},
		{Summaries(func(*Pass) (plainDeep, bool) { return plainDeep{}, false }, nil), plainDeep{}, false},
		{Summaries(func(*Pass) (any, bool) { return nil, false }, nil), 1, false},
	} {
		_, err := tc.c.Encode(tc.v)
		if tc.want != (err == nil) || !tc.want && !errors.Is(err, ErrNotEncodable) {
			t.Errorf("%T: Encode says %v, want encodable %v", tc.c, err, tc.want)
		}
	}
	c := Summaries(func(*Pass) (plainOK, bool) { return plainOK{}, false }, nil)
	in := plainOK{S: "s", N: -1, M: map[string][]int{"k": {1}}, P: &plainOK{S: "p"}, F: Finding{Rule: "r", Doc: -1, Fix: &Fix{Message: "m"}}, plainPromoted: plainPromoted{"x"}}
	data, err := c.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	back, err := c.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if b := back.(plainOK); b.S != "s" || b.N != -1 || b.M["k"][0] != 1 || b.P.S != "p" || b.F.Fix.Message != "m" || b.X != "x" {
		t.Fatalf("round trip: %+v", b)
	}
}
