package gittree

import (
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// Changed lists what the commits since the revision, the index, the work
// tree and untracked files change, and nothing else.
func TestChanged(t *testing.T) {
	dir := testtree.GitRepo(t)
	testtree.Write(t, dir, map[string]string{
		".gitignore":   "ignored.yaml\n",
		"committed":    "1\n",
		"staged":       "1\n",
		"unstaged":     "1\n",
		"removed":      "1\n",
		"reverted":     "1\n",
		"untouched":    "1\n",
		"sub/nested":   "1\n",
		"both":         "1\n",
		"staged-added": "",
	})
	os.Remove(filepath.Join(dir, "staged-added"))
	testtree.Commit(t, dir, "base")
	testtree.Write(t, dir, map[string]string{"committed": "2\n", "reverted": "2\n", "sub/nested": "2\n"})
	testtree.Commit(t, dir, "second")
	testtree.Write(t, dir, map[string]string{"staged": "2\n", "staged-added": "new\n", "both": "2\n"})
	testtree.Git(t, dir, "add", "staged", "staged-added", "both")
	testtree.Write(t, dir, map[string]string{"unstaged": "2\n", "reverted": "1\n", "both": "3\n", "untracked": "new\n", "ignored.yaml": "x\n"})
	os.Remove(filepath.Join(dir, "removed"))

	r := open(t, filepath.Join(dir, "sub"))
	abs := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
		return out
	}
	for ref, want := range map[string][]string{
		// reverted is back to HEAD~1's content; untouched never changed.
		"HEAD~1": abs("both", "committed", "removed", "staged", "staged-added", "sub/nested", "unstaged", "untracked"),
		// reverted differs from HEAD (2) now; committed does not.
		"HEAD": abs("both", "removed", "reverted", "staged", "staged-added", "unstaged", "untracked"),
	} {
		got, err := r.Changed(resolve(t, r, ref))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Changed(%s) =\n%v\nwant\n%v", ref, got, want)
		}
	}
}

// What a pre-commit hook sees: unstaged changes stashed away, the staged
// change judged against HEAD.
func TestChangedStagedOnly(t *testing.T) {
	dir := testtree.GitRepo(t)
	testtree.Write(t, dir, map[string]string{"app/a.yaml": "1\n", "app/b.yaml": "1\n"})
	testtree.Commit(t, dir, "base")
	testtree.Write(t, dir, map[string]string{"app/a.yaml": "2\n"})
	testtree.Git(t, dir, "add", "app/a.yaml")
	r := open(t, dir)
	got, err := r.Changed(resolve(t, r, "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "app/a.yaml")}; !reflect.DeepEqual(got, want) {
		t.Errorf("Changed = %v, want %v", got, want)
	}
}

// listener counts the connections made to a loopback port.
type listener struct {
	ln    net.Listener
	count atomic.Int64
}

func countingListener(t *testing.T) *listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &listener{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.count.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return l
}

func (l *listener) addr() string    { return l.ln.Addr().String() }
func (l *listener) accepted() int64 { return l.count.Load() }

// Opening, resolving, reading and listing changes start no process and
// contact no remote: PATH holds a git that records being run, every
// remote is a counting loopback port, and the process's waited-for
// children (getrusage) do not change across the calls.
func TestNoProcessNoNetwork(t *testing.T) {
	src, _ := history(t)
	dst := filepath.Join(t.TempDir(), "clone")
	testtree.Git(t, filepath.Dir(dst), "clone", "-q", "--depth", "1", "file://"+src, dst)
	remote := countingListener(t)
	testtree.Git(t, dst, "remote", "set-url", "origin", "http://"+remote.addr()+"/repo.git")
	testtree.Git(t, dst, "remote", "add", "ssh", "ssh://git@"+remote.addr()+"/repo.git")
	testtree.Write(t, dst, map[string]string{"app/a.yaml": "changed\n"})

	bin := t.TempDir()
	mark := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho git >> "+mark+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)

	var before, after syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before); err != nil {
		t.Fatal(err)
	}
	r := open(t, filepath.Join(dst, "app"))
	head := resolve(t, r, "HEAD")
	if got := readAt(t, r, head, "app/a.yaml"); got != "v3\n" {
		t.Errorf("a.yaml at HEAD = %q", got)
	}
	if _, err := r.Resolve("HEAD~1"); err == nil {
		t.Error("HEAD~1 resolved in a shallow clone")
	}
	if _, err := r.Resolve("origin/feature"); err == nil {
		t.Error("a branch the clone does not have resolved")
	}
	changed, err := r.Changed(head)
	if err != nil || len(changed) != 1 {
		t.Errorf("Changed = %v, %v", changed, err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after); err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Error("a child process ran while reading the repository")
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("git was run")
	}
	if n := remote.accepted(); n != 0 {
		t.Errorf("a remote was contacted %d times", n)
	}
}
