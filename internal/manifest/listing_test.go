package manifest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestListingReplay: a walk's record is replayed whole once the walk is
// over, in walk order; a walk stopped early, a root no walk recorded and
// a walk abandoned before its end are not replayed, and Replay does not
// wait for them once the listing is closed.
func TestListingReplay(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a/kustomization.yaml", "a/x.yaml", "b/c/Kustomization", ".hidden/k.yaml"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("a: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := NewListing()
	var errs []WalkError
	for range WalkListed([]string{dir}, &errs, l) {
	}
	var got []string
	if !l.Replay(dir, func(e ListedEntry) {
		mark := ""
		if e.Entered {
			mark = "/"
		}
		got = append(got, filepath.ToSlash(e.Rel)+mark)
	}) {
		t.Fatal("a whole walk was not replayed")
	}
	want := []string{"./", ".hidden", "a/", "a/kustomization.yaml", "a/x.yaml", "b/", "b/c/", "b/c/Kustomization"}
	if len(got) != len(want) {
		t.Fatalf("replayed %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("replayed %v, want %v", got, want)
		}
	}

	stopped := NewListing()
	for range WalkListed([]string{dir}, &errs, stopped) {
		break
	}
	stopped.Close()
	if stopped.Replay(dir, func(ListedEntry) {}) {
		t.Error("a walk stopped early was replayed")
	}
	if stopped.Replay(filepath.Join(dir, "a"), func(ListedEntry) {}) {
		t.Error("a root no walk recorded was replayed")
	}
	abandoned := NewListing()
	abandoned.startWalk(dir).add(ListedEntry{Rel: ".", Type: fs.ModeDir, Entered: true})
	abandoned.Close()
	if abandoned.Replay(dir, func(ListedEntry) {}) {
		t.Error("a walk that never ended was replayed")
	}
}
