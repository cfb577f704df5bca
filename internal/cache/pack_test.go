package cache

import (
	"fmt"
	"os"
	"testing"
)

// A pack gives the next run the values this run used, from one entry.
func TestPackRoundTrip(t *testing.T) {
	s := Open(t.TempDir())
	pk := key("pack")
	p := s.OpenPack(pk)
	p.Put(key("a"), []byte("value a"))  // in the store too
	p.Keep(key("b"), []byte("value b")) // in the pack only
	p.Keep(key("e"), nil)
	p.Save()
	if v, ok := s.Get(key("a")); !ok || string(v) != "value a" {
		t.Fatalf("Put did not reach the store: %q, %v", v, ok)
	}
	if _, ok := s.Get(key("b")); ok {
		t.Fatal("Keep wrote an entry of its own")
	}
	q := s.OpenPack(pk)
	for k, want := range map[string]string{"a": "value a", "b": "value b", "e": ""} {
		if v, ok := q.Get(key(k)); !ok || string(v) != want {
			t.Fatalf("%s: %q, %v; want %q", k, v, ok, want)
		}
	}
	if _, ok := q.Get(key("c")); ok {
		t.Fatal("a value never stored hits")
	}
	if q.changed {
		t.Fatal("a run that used only the pack's values would write it again")
	}
	// A value asked of the store joins the pack.
	s.Put(key("d"), []byte("value d"))
	if v, ok := q.Get(key("d")); !ok || string(v) != "value d" {
		t.Fatalf("the store's value: %q, %v", v, ok)
	}
	q.Save()
	if v, ok := s.OpenPack(pk).old[key("d")]; !ok || string(v) != "value d" {
		t.Fatalf("the store's value not packed: %q, %v", v, ok)
	}
}

// A damaged pack reads as empty: its values are asked of the store.
func TestPackDamaged(t *testing.T) {
	s := Open(t.TempDir())
	pk := key("pack")
	p := s.OpenPack(pk)
	p.Put(key("a"), []byte("value a"))
	p.Keep(key("b"), []byte("value b"))
	p.Save()
	path := s.path(pk)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-3] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	q := s.OpenPack(pk)
	if len(q.old) != 0 {
		t.Fatal("a damaged pack was read")
	}
	if v, ok := q.Get(key("a")); !ok || string(v) != "value a" {
		t.Fatalf("the store's value: %q, %v", v, ok)
	}
	if _, ok := q.Get(key("b")); ok {
		t.Fatal("a value only the damaged pack held hits")
	}
	if decodePack(encodePack(map[Key][]byte{key("x"): []byte("xyz")})[:37]) != nil {
		t.Fatal("a pack cut short decodes")
	}
}

// Values a run did not use stay in the pack while they weigh less than
// those it used; one forgotten leaves it.
func TestPackBound(t *testing.T) {
	s := Open(t.TempDir())
	pk := key("pack")
	p := s.OpenPack(pk)
	for i := range 10 {
		p.Keep(key(fmt.Sprint(i)), []byte("0123456789"))
	}
	p.Save()
	q := s.OpenPack(pk)
	q.Get(key("0"))
	q.Get(key("1"))
	q.Forget(key("1"))
	q.Keep(key("new"), []byte("0123456789"))
	q.Save()
	r := s.OpenPack(pk)
	if _, ok := r.old[key("1")]; ok {
		t.Fatal("a forgotten value was kept")
	}
	// Used: 0 and new (20 bytes); of the 8 others, 2 fit beside them.
	if len(r.old) != 4 {
		t.Fatalf("%d values kept, want 4", len(r.old))
	}
}
