package selector

import (
	"slices"
	"testing"
)

func TestSetOf(t *testing.T) {
	m := map[string]string{"tier": "web", "app": "shop", "": "empty key", "z": ""}
	s := SetOf(m)
	want := Set{{"", "empty key"}, {"app", "shop"}, {"tier", "web"}, {"z", ""}}
	if !slices.Equal(s, want) {
		t.Fatalf("SetOf = %v, want %v", s, want)
	}
	for k, v := range m {
		if got, ok := s.Get(k); !ok || got != v {
			t.Errorf("Get(%q) = %q, %v; want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"ap", "apps", "tie", "zz"} {
		if got, ok := s.Get(k); ok {
			t.Errorf("Get(%q) = %q, true; want absent", k, got)
		}
	}
	if SetOf(nil) != nil || SetOf(map[string]string{}) != nil {
		t.Error("an empty map gives a non-nil Set")
	}
}
