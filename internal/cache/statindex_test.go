package cache

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// indexRun is one run's use of the index: the hash of path, and whether
// the file was read for it.
func indexRun(t *testing.T, s *Store, path string) (sum [32]byte, read bool) {
	t.Helper()
	x := s.OpenIndex("scope")
	sum, _, err := x.Sum(path, func() ([]byte, error) { read = true; return os.ReadFile(path) })
	if err != nil {
		t.Fatal(err)
	}
	x.Save()
	return sum, read
}

func TestIndex(t *testing.T) {
	s := Open(t.TempDir())
	path := filepath.Join(t.TempDir(), "a.yaml")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	write := func(data string, mtime time.Time) {
		// In place (same inode), as an editor that truncates does.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(data)
		f.Close()
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write("a: 1\n", old)
	if sum, read := indexRun(t, s, path); !read || sum != Sum([]byte("a: 1\n")) {
		t.Fatalf("first run: read %v, sum %x", read, sum)
	}
	if sum, read := indexRun(t, s, path); read || sum != Sum([]byte("a: 1\n")) {
		t.Fatalf("unchanged file: read %v (want the index's), sum %x", read, sum)
	}
	// Same size, same mtime: only the change time tells.
	write("a: 2\n", old)
	if sum, read := indexRun(t, s, path); !read || sum != Sum([]byte("a: 2\n")) {
		t.Fatalf("same size and mtime: read %v, sum %x (want %x)", read, sum, Sum([]byte("a: 2\n")))
	}
	// A mode change moves the change time: read again (same bytes).
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, read := indexRun(t, s, path); !read {
		t.Fatal("mode change: not read again")
	}
	if _, read := indexRun(t, s, path); read {
		t.Fatal("after the mode change was hashed: read again")
	}
}

// A file modified within the file system's granularity of the run that
// hashed it is racy: never vouched for.
func TestIndexRacy(t *testing.T) {
	s := Open(t.TempDir())
	path := filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(path, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, read := indexRun(t, s, path); !read {
			t.Fatalf("run %d: a file written %v ago was not read", i, Granularity)
		}
	}
}

// A damaged index reads as none.
func TestIndexDamaged(t *testing.T) {
	s := Open(t.TempDir())
	path := filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(path, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	indexRun(t, s, path)
	x := s.OpenIndex("scope")
	p := s.path(x.key)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-3] ^= 1
	os.WriteFile(p, data, 0o644)
	if _, read := indexRun(t, s, path); !read {
		t.Fatal("with a damaged index, the file was not read")
	}
	if got := decodeIndex([]byte{0, 0, 0, 9, 'x'}); got != nil {
		t.Fatalf("a cut entry decodes to %v", got)
	}
}

// TestIndexOnceARun: a second Sum of a path in one run answers the
// first's hash without looking at the file again; the next run sees what
// changed.
func TestIndexOnceARun(t *testing.T) {
	s := Open(t.TempDir())
	path := filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(path, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	x := s.OpenIndex("scope")
	reads := 0
	read := func() ([]byte, error) { reads++; return os.ReadFile(path) }
	first, data, err := x.Sum(path, read)
	if err != nil || string(data) != "a: 1\n" || reads != 1 {
		t.Fatalf("first Sum: %q, %v, %d reads", data, err, reads)
	}
	if err := os.WriteFile(path, []byte("a: 22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, data, err := x.Sum(path, read)
	if err != nil || again != first || data != nil || reads != 1 {
		t.Fatalf("second Sum in the run: sum %x (want %x), data %q, %v, %d reads", again, first, data, err, reads)
	}
	x.Save()
	if sum, read := indexRun(t, s, path); !read || sum != Sum([]byte("a: 22\n")) {
		t.Fatalf("next run: read %v, sum %x, want the edited bytes'", read, sum)
	}
}
