package gittree

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// errReadOnly is what every write to an FS returns.
var errReadOnly = errors.New("the tree of a git revision is read-only")

// maxLinks bounds the symbolic links followed in one path, as the kernel
// does (ELOOP).
const maxLinks = 40

// FS is the tree of one revision as a read-only kustomize file system.
// Paths under the work tree's root name the revision's files (a file the
// revision does not have does not exist, whatever the disk holds);
// paths outside the repository are not versioned and are read from disk,
// as both the revision and the work tree see them. Symbolic links stored
// in the tree are followed as the disk follows them. Safe for concurrent
// use (the renderer reads on several goroutines).
type FS struct {
	rev  *Revision
	root string
	disk filesys.FileSystem

	mu    sync.Mutex // guards store (go-git's storage is not safe for concurrent reads) and dirs
	store storer.EncodedObjectStorer
	dirs  map[plumbing.Hash]map[string]treeEntry
	top   plumbing.Hash
}

// FS returns the tree of rev as a read-only file system rooted at the work
// tree's root.
func (r *Repo) FS(rev *Revision) *FS {
	return &FS{
		rev:   rev,
		root:  r.root,
		disk:  filesys.MakeFsOnDisk(),
		store: r.store,
		dirs:  map[plumbing.Hash]map[string]treeEntry{},
		top:   rev.Commit.TreeHash,
	}
}

// Revision is the revision this file system shows.
func (f *FS) Revision() *Revision { return f.rev }

// node is what a path resolved to: a directory (its tree's hash) or a
// file (its blob's hash and size), at its link-free absolute path.
type node struct {
	abs  string
	dir  bool
	hash plumbing.Hash
}

// resolve finds path in the tree, following symbolic links. ok is false
// for a path outside the repository (the caller asks the disk).
func (f *FS) resolve(path string) (n node, ok bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return node{}, false, err
	}
	for links := 0; ; links++ {
		if links > maxLinks {
			return node{}, true, &fs.PathError{Op: "resolve", Path: path, Err: errors.New("too many levels of symbolic links")}
		}
		if !within(f.root, abs) {
			return node{abs: abs}, false, nil
		}
		rel, _ := filepath.Rel(f.root, abs)
		var target string
		n, target, err = f.walk(rel)
		if err != nil {
			return node{}, true, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		if target == "" {
			return n, true, nil
		}
		abs = target
	}
}

// walk descends the tree along rel's elements. It stops at the first
// symbolic link and returns, as target, the absolute path the link and
// the rest of rel name.
func (f *FS) walk(rel string) (n node, target string, err error) {
	cur := node{abs: f.root, dir: true, hash: f.top}
	if rel == "." {
		return cur, "", nil
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i, name := range parts {
		if !cur.dir {
			return node{}, "", fs.ErrNotExist // a file used as a directory (ENOTDIR)
		}
		entries, err := f.dir(cur.hash)
		if err != nil {
			return node{}, "", err
		}
		e, found := entries[name]
		if !found {
			return node{}, "", fs.ErrNotExist
		}
		here := filepath.Join(cur.abs, name)
		switch e.Mode {
		case filemode.Dir:
			cur = node{abs: here, dir: true, hash: e.Hash}
		case filemode.Regular, filemode.Executable, filemode.Deprecated:
			cur = node{abs: here, hash: e.Hash}
		case filemode.Symlink:
			link, err := f.blob(e.Hash)
			if err != nil {
				return node{}, "", err
			}
			dest := string(link)
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(cur.abs, dest)
			}
			return node{}, filepath.Join(append([]string{dest}, parts[i+1:]...)...), nil
		default: // a submodule: its files are another repository's
			return node{}, "", fs.ErrNotExist
		}
	}
	return cur, "", nil
}

// dir is the entries of the tree object hash, read once.
func (f *FS) dir(hash plumbing.Hash) (map[string]treeEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d, ok := f.dirs[hash]; ok {
		return d, nil
	}
	entries, err := readTree(f.store, hash)
	if err != nil {
		return nil, fmt.Errorf("reading tree %s of %s: %w", hash, f.rev.Short(), err)
	}
	d := make(map[string]treeEntry, len(entries))
	for _, e := range entries {
		d[e.Name] = e
	}
	f.dirs[hash] = d
	return d, nil
}

// blob is the content of the blob object hash.
func (f *FS) blob(hash plumbing.Hash) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := readObject(f.store, plumbing.BlobObject, hash)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s of %s: %w", hash, f.rev.Short(), err)
	}
	return b, nil
}

// ReadFile returns the content of the file at path in the revision.
func (f *FS) ReadFile(path string) ([]byte, error) {
	n, ok, err := f.resolve(path)
	if !ok && err == nil {
		return f.disk.ReadFile(n.abs)
	}
	if err != nil {
		return nil, err
	}
	if n.dir {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
	}
	return f.blob(n.hash)
}

// Open opens the file at path for reading.
func (f *FS) Open(path string) (filesys.File, error) {
	n, ok, err := f.resolve(path)
	if !ok && err == nil {
		return f.disk.Open(n.abs)
	}
	if err != nil {
		return nil, err
	}
	info := fileInfo{name: filepath.Base(n.abs), dir: n.dir}
	if n.dir {
		return &file{info: info, Reader: bytes.NewReader(nil)}, nil
	}
	data, err := f.blob(n.hash)
	if err != nil {
		return nil, err
	}
	info.size = int64(len(data))
	return &file{info: info, Reader: bytes.NewReader(data)}, nil
}

// Exists reports whether path names a file or directory.
func (f *FS) Exists(path string) bool {
	n, ok, err := f.resolve(path)
	if !ok && err == nil {
		return f.disk.Exists(n.abs)
	}
	return err == nil
}

// IsDir reports whether path names a directory.
func (f *FS) IsDir(path string) bool {
	n, ok, err := f.resolve(path)
	if !ok && err == nil {
		return f.disk.IsDir(n.abs)
	}
	return err == nil && n.dir
}

// ReadDir lists the names in the directory path, sorted.
func (f *FS) ReadDir(path string) ([]string, error) {
	n, ok, err := f.resolve(path)
	if !ok && err == nil {
		return f.disk.ReadDir(n.abs)
	}
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: path, Err: errors.New("not a directory")}
	}
	entries, err := f.dir(n.hash)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// CleanedAbs is the disk's CleanedAbs over the revision's tree: the
// absolute path with symbolic links resolved, split into its directory
// and file name ("" when the path is a directory).
func (f *FS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	n, ok, err := f.resolve(path)
	if !ok && err == nil {
		return f.disk.CleanedAbs(n.abs)
	}
	if err != nil {
		return "", "", fmt.Errorf("evalsymlink failure on '%s' : %w", path, err)
	}
	if n.dir {
		return filesys.ConfirmedDir(n.abs), "", nil
	}
	return filesys.ConfirmedDir(filepath.Dir(n.abs)), filepath.Base(n.abs), nil
}

// Glob returns the paths matching pattern (filepath.Match syntax), hidden
// files left out unless the pattern names them, as the disk's Glob does.
func (f *FS) Glob(pattern string) ([]string, error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	matches, err := f.glob(pattern)
	if err != nil {
		return nil, err
	}
	if filesys.IsHiddenFilePath(pattern) {
		return matches, nil
	}
	return filesys.RemoveHiddenFiles(matches), nil
}

func (f *FS) glob(pattern string) ([]string, error) {
	if !hasMeta(pattern) {
		if f.Exists(pattern) {
			return []string{pattern}, nil
		}
		return nil, nil
	}
	dir, base := filepath.Split(pattern)
	dir = filepath.Clean(dir)
	dirs := []string{dir}
	if hasMeta(dir) {
		var err error
		if dirs, err = f.glob(dir); err != nil {
			return nil, err
		}
	}
	var out []string
	for _, d := range dirs {
		names, err := f.ReadDir(d)
		if err != nil {
			continue // as filepath.Glob: an unreadable directory matches nothing
		}
		for _, name := range names {
			if ok, _ := filepath.Match(base, name); ok {
				out = append(out, filepath.Join(d, name))
			}
		}
	}
	return out, nil
}

func hasMeta(path string) bool { return strings.ContainsAny(path, `*?[\`) }

// Walk walks the tree below path in lexical order, as filepath.Walk does
// on disk: a symbolic link below path is reported, not followed.
func (f *FS) Walk(path string, walkFn filepath.WalkFunc) error {
	n, ok, err := f.resolve(path)
	if !ok && err == nil {
		return f.disk.Walk(n.abs, walkFn)
	}
	if err != nil {
		return walkFn(path, nil, err)
	}
	err = f.walkNode(path, n, walkFn)
	if errors.Is(err, filepath.SkipDir) || errors.Is(err, filepath.SkipAll) {
		return nil
	}
	return err
}

func (f *FS) walkNode(path string, n node, walkFn filepath.WalkFunc) error {
	info := fileInfo{name: filepath.Base(path), dir: n.dir}
	if !n.dir {
		return walkFn(path, info, nil)
	}
	if err := walkFn(path, info, nil); err != nil {
		return err
	}
	names, err := f.ReadDir(path)
	if err != nil {
		return walkFn(path, info, err)
	}
	for _, name := range names {
		child := filepath.Join(path, name)
		cn, _, err := f.resolve(child)
		if err != nil {
			if err := walkFn(child, nil, err); err != nil && !errors.Is(err, filepath.SkipDir) {
				return err
			}
			continue
		}
		if cn.abs != filepath.Join(n.abs, name) { // a symbolic link: Lstat's view
			if err := walkFn(child, fileInfo{name: name, link: true}, nil); err != nil && !errors.Is(err, filepath.SkipDir) {
				return err
			}
			continue
		}
		if err := f.walkNode(child, cn, walkFn); err != nil {
			if errors.Is(err, filepath.SkipDir) && cn.dir {
				continue
			}
			return err
		}
	}
	return nil
}

// Create is refused: the revision is read-only.
func (f *FS) Create(string) (filesys.File, error) { return nil, errReadOnly }

// Mkdir is refused: the revision is read-only.
func (f *FS) Mkdir(string) error { return errReadOnly }

// MkdirAll is refused: the revision is read-only.
func (f *FS) MkdirAll(string) error { return errReadOnly }

// RemoveAll is refused: the revision is read-only.
func (f *FS) RemoveAll(string) error { return errReadOnly }

// WriteFile is refused: the revision is read-only.
func (f *FS) WriteFile(string, []byte) error { return errReadOnly }

var _ filesys.FileSystem = (*FS)(nil)

// file is an opened file of the tree.
type file struct {
	*bytes.Reader
	info fileInfo
}

func (*file) Write([]byte) (int, error)    { return 0, errReadOnly }
func (*file) Close() error                 { return nil }
func (x *file) Stat() (os.FileInfo, error) { return x.info, nil }

type fileInfo struct {
	name string
	size int64
	dir  bool
	link bool
}

func (i fileInfo) Name() string { return i.name }
func (i fileInfo) Size() int64  { return i.size }
func (i fileInfo) Mode() os.FileMode {
	if i.dir {
		return os.ModeDir | 0o555
	}
	if i.link {
		return os.ModeSymlink | 0o777
	}
	return 0o444
}
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return i.dir }
func (i fileInfo) Sys() any           { return nil }
