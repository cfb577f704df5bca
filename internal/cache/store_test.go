package cache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
)

func key(s string) Key {
	h := NewHasher("test")
	h.String(s)
	return h.Key()
}

func TestPutGet(t *testing.T) {
	s := Open(t.TempDir())
	if _, ok := s.Get(key("a")); ok {
		t.Fatal("an empty store has an entry")
	}
	s.Put(key("a"), []byte("value a"))
	v, ok := s.Get(key("a"))
	if !ok || string(v) != "value a" {
		t.Fatalf("Get = %q, %v", v, ok)
	}
	if _, ok := s.Get(key("b")); ok {
		t.Fatal("another key hits")
	}
	// Empty values are values.
	s.Put(key("e"), nil)
	if v, ok := s.Get(key("e")); !ok || len(v) != 0 {
		t.Fatalf("empty value: %q, %v", v, ok)
	}
}

func TestHasherParts(t *testing.T) {
	a, b := NewHasher("k"), NewHasher("k")
	a.String("ab")
	a.String("c")
	b.String("a")
	b.String("bc")
	if a.Key() == b.Key() {
		t.Fatal("parts are not delimited")
	}
	if NewHasher("k1").Key() == NewHasher("k2").Key() {
		t.Fatal("kinds do not separate keys")
	}
}

// A damaged entry (cut short, a byte flipped, the header overwritten) is
// not returned; a new Put replaces it.
func TestDamagedEntry(t *testing.T) {
	value := bytes.Repeat([]byte("0123456789"), 100)
	damage := map[string]func([]byte) []byte{
		"truncated":      func(b []byte) []byte { return b[:len(b)-7] },
		"header only":    func(b []byte) []byte { return b[:headerLen] },
		"cut in header":  func(b []byte) []byte { return b[:10] },
		"empty":          func([]byte) []byte { return nil },
		"flipped byte":   func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b },
		"flipped length": func(b []byte) []byte { b[len(magic)+7] ^= 1; return b },
		"flipped sum":    func(b []byte) []byte { b[headerLen-1] ^= 1; return b },
		"appended":       func(b []byte) []byte { return append(b, 'x') },
	}
	for name, spoil := range damage {
		t.Run(name, func(t *testing.T) {
			s := Open(t.TempDir())
			k := key(name)
			s.Put(k, value)
			p := s.path(k)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, spoil(data), 0o666); err != nil {
				t.Fatal(err)
			}
			if v, ok := s.Get(k); ok {
				t.Fatalf("damaged entry returned (%d bytes)", len(v))
			}
			s.Put(k, value)
			if v, ok := s.Get(k); !ok || !bytes.Equal(v, value) {
				t.Fatal("entry not replaced")
			}
		})
	}
}

// Writers in parallel on one directory, as several runs at once: every
// Get sees a whole value of one of them, never a mix, and no temporary
// file is left.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	values := map[string]bool{}
	for w := range 4 {
		values[strings.Repeat(fmt.Sprint(w), 4096)] = true
	}
	var wg sync.WaitGroup
	for w := range 4 {
		s := Open(dir) // one store per writer: as separate processes
		v := []byte(strings.Repeat(fmt.Sprint(w), 4096))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				s.Put(key(fmt.Sprint(i%5)), v)
				if got, ok := s.Get(key(fmt.Sprint((i + 1) % 5))); ok && !values[string(got)] {
					t.Errorf("a mixed value: %.20q...", got)
				}
			}
		}()
	}
	wg.Wait()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// A store that cannot be written still reads what it has, and says why
// it stores nothing once, however many writes fail.
func TestReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes through permission bits (scripts/test-unprivileged runs this)")
	}
	dir := t.TempDir()
	Open(dir).Put(key("old"), []byte("kept"))
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	var warned bytes.Buffer
	s := Open(dir)
	s.Warn = &warned
	for i := range 3 {
		s.Put(key(fmt.Sprint("new", i)), []byte("lost"))
	}
	if v, ok := s.Get(key("old")); !ok || string(v) != "kept" {
		t.Fatal("a read-only store does not read")
	}
	if n := strings.Count(warned.String(), "cannot be written"); n != 1 {
		t.Fatalf("warned %d times: %q", n, warned.String())
	}
	if !strings.Contains(warned.String(), dir) {
		t.Fatalf("the warning does not name the directory: %q", warned.String())
	}
	s.Trim()
}

// A directory that is a file: the same (a store on a path that cannot
// be a directory, as root too).
func TestNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	var warned bytes.Buffer
	s := Open(filepath.Join(file, "cache"))
	s.Warn = &warned
	s.Put(key("a"), []byte("x"))
	s.Put(key("b"), []byte("x"))
	if _, ok := s.Get(key("a")); ok {
		t.Fatal("hit in a store that cannot exist")
	}
	if n := strings.Count(warned.String(), "cannot be written"); n != 1 {
		t.Fatalf("warned %d times: %q", n, warned.String())
	}
}

// Trim keeps the most recently used entries within MaxBytes.
func TestTrim(t *testing.T) {
	s := Open(t.TempDir())
	// Not the store's: the chart cache beside its entries, never trimmed.
	chart := filepath.Join(s.Dir(), "charts", "big-1.0.0.tgz")
	if err := os.MkdirAll(filepath.Dir(chart), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chart, bytes.Repeat([]byte("c"), 100000), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := os.Stat(chart); err != nil {
			t.Errorf("Trim removed a file outside its entries: %v", err)
		}
	}()
	value := bytes.Repeat([]byte("v"), 1000)
	old := time.Now().Add(-48 * time.Hour)
	for i := range 10 {
		k := key(fmt.Sprint(i))
		s.Put(k, value)
		at := old.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(s.path(k), at, at); err != nil {
			t.Fatal(err)
		}
	}
	// Entry 2 is used: it becomes the most recent.
	if _, ok := s.Get(key("2")); !ok {
		t.Fatal("entry 2 missing")
	}
	s.MaxBytes = 4 * int64(len(value)+headerLen)
	s.Trim()
	var kept []string
	for i := range 10 {
		if _, ok := s.Get(key(fmt.Sprint(i))); ok {
			kept = append(kept, fmt.Sprint(i))
		}
	}
	if got := strings.Join(kept, ","); got != "2,7,8,9" {
		t.Fatalf("kept %s, want 2,7,8,9 (the most recently used)", got)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv(EnvDir, "/some/where")
	if d := DefaultDir(); d != "/some/where" {
		t.Fatalf("DefaultDir = %q with %s set", d, EnvDir)
	}
	t.Setenv(EnvDir, "off")
	if d := DefaultDir(); d != "" {
		t.Fatalf("DefaultDir = %q with %s=off", d, EnvDir)
	}
	t.Setenv(EnvDir, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	t.Setenv("HOME", "/home/u")
	if d := DefaultDir(); d != filepath.Join("/xdg", "shipshape") && d != filepath.Join("/home/u/Library/Caches", "shipshape") {
		t.Fatalf("DefaultDir = %q", d)
	}
}

func TestVersionStable(t *testing.T) {
	if Version() == "" || Version() != Version() {
		t.Fatal("Version is empty or changes")
	}
}

// A build of an exact module version is keyed by its build information
// alone (CI jobs that go install the same commit share the cache); a
// development or modified build is not.
func TestExactBuild(t *testing.T) {
	for v, want := range map[string]bool{
		"v1.2.3":                             true,
		"v0.0.0-20261129120000-0123456789ab": true,
		"(devel)":                            false,
		"":                                   false,
		"v0.0.0-20261129120000-0123456789ab+dirty": false,
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/shipshape-dev/shipshape", Version: v}}
		if got := exactBuild(bi); got != want {
			t.Errorf("exactBuild(%q) = %v, want %v", v, got, want)
		}
	}
}

// Two builds that differ in any field of their build information (Go
// version, a dependency's version or sum, a replacement, a build setting)
// have different versions; the same information, the same version.
func TestHashBuildInfo(t *testing.T) {
	build := func(edit func(*debug.BuildInfo)) Key {
		bi := &debug.BuildInfo{
			GoVersion: "go1.26.0",
			Path:      "github.com/shipshape-dev/shipshape/cmd/shipshape",
			Main:      debug.Module{Path: "github.com/shipshape-dev/shipshape", Version: "v1.0.0"},
			Deps: []*debug.Module{
				{Path: "sigs.k8s.io/kustomize/api", Version: "v0.21.2", Sum: "h1:a"},
				{Path: "helm.sh/helm/v3", Version: "v3.22.0", Sum: "h1:b"},
			},
			Settings: []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}},
		}
		if edit != nil {
			edit(bi)
		}
		h := NewHasher("test")
		hashBuildInfo(h, bi)
		return h.Key()
	}
	same := build(nil)
	if build(nil) != same {
		t.Fatal("the same build information hashes differently")
	}
	for name, edit := range map[string]func(*debug.BuildInfo){
		"go version":  func(bi *debug.BuildInfo) { bi.GoVersion = "go1.26.1" },
		"dep version": func(bi *debug.BuildInfo) { bi.Deps[1].Version = "v3.22.1" },
		"dep sum":     func(bi *debug.BuildInfo) { bi.Deps[0].Sum = "h1:c" },
		"replace":     func(bi *debug.BuildInfo) { bi.Deps[0].Replace = &debug.Module{Path: "../kustomize/api"} },
		"setting":     func(bi *debug.BuildInfo) { bi.Settings[0].Value = "1" },
		"deps moved": func(bi *debug.BuildInfo) {
			bi.Deps[0].Path, bi.Deps[0].Version = "sigs.k8s.io/kustomize/apiv0.21.2", ""
		},
		"one dep less": func(bi *debug.BuildInfo) { bi.Deps = bi.Deps[:1] },
	} {
		if build(edit) == same {
			t.Errorf("%s: the build information changed, the version did not", name)
		}
	}
}

// Trim walks the store at most once per trimEvery: a run soon after a
// trim leaves the store over its bound; once the last trim is older, the
// next run trims.
func TestTrimAtMostEveryHour(t *testing.T) {
	s := Open(t.TempDir())
	value := bytes.Repeat([]byte("v"), 1000)
	s.MaxBytes = 2 * int64(len(value)+headerLen)
	put := func(from, to int) {
		for i := from; i < to; i++ {
			s.Put(key(fmt.Sprint(i)), value)
		}
	}
	count := func() int {
		n := 0
		for i := range 10 {
			if _, ok := s.Get(key(fmt.Sprint(i))); ok {
				n++
			}
		}
		return n
	}
	put(0, 4)
	s.Trim()
	if n := count(); n != 2 {
		t.Fatalf("the first trim kept %d entries, want 2", n)
	}
	put(4, 8)
	s.Trim()
	if n := count(); n != 6 {
		t.Fatalf("a trim right after another kept %d entries, want all 6 (no walk)", n)
	}
	last := time.Now().Add(-trimEvery - time.Minute)
	if err := os.Chtimes(filepath.Join(s.Dir(), trimStamp), last, last); err != nil {
		t.Fatal(err)
	}
	s.Trim()
	if n := count(); n != 2 {
		t.Fatalf("a trim once the last is older than trimEvery kept %d entries, want 2", n)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), trimStamp)); err != nil {
		t.Fatalf("the stamp is gone: %v", err)
	}
}
