package intern

import (
	"strings"
	"sync"
	"testing"
	"unsafe"
)

func TestStringKeepsOneCopy(t *testing.T) {
	text := "app.kubernetes.io/name=web and more"
	a := String(text[:22])
	b := String(strings.Clone(text[:22]))
	if a != "app.kubernetes.io/name" || b != a {
		t.Fatalf("got %q and %q", a, b)
	}
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("two copies of one text")
	}
	if unsafe.StringData(a) == unsafe.StringData(text) {
		t.Error("the interned string shares the bytes of the larger text it was cut from")
	}
	if String("") != "" {
		t.Error("empty string")
	}
}

func TestStringConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() { got[i] = String(strings.Repeat("x", 40)) })
	}
	wg.Wait()
	for _, s := range got[1:] {
		if unsafe.StringData(s) != unsafe.StringData(got[0]) {
			t.Fatal("concurrent callers got two copies")
		}
	}
}
