package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
)

// Hasher builds a Key from parts, each length-prefixed: ("ab", "c") is
// not ("a", "bc").
type Hasher struct{ h hash.Hash }

// NewHasher starts a key of the given kind (what the entry holds, with
// its format's version): keys of two kinds never meet.
func NewHasher(kind string) *Hasher {
	h := &Hasher{sha256.New()}
	h.String(kind)
	return h
}

// String adds s.
func (h *Hasher) String(s string) { h.Bytes([]byte(s)) }

// Bytes adds b.
func (h *Hasher) Bytes(b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.h.Write(n[:])
	h.h.Write(b)
}

// Int adds n.
func (h *Hasher) Int(n int64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	h.h.Write(b[:])
}

// Key is the key of what was added.
func (h *Hasher) Key() Key {
	var k Key
	h.h.Sum(k[:0])
	return k
}

// Version identifies the running program, so that no entry outlives the
// build that wrote it. A build of an exact module version (`go install
// …@v1.2.3` or @commit: a pseudo-version; a clean checkout's VCS
// version) is its module build information alone, so that every CI job
// that builds the same commit shares the cache. Any other build (a
// "(devel)" or "+dirty" one) adds the executable's identity on disk (path,
// size, modification time, inode: a rebuild rewrites the file). Reading
// and hashing the executable's bytes instead would cost tens of
// milliseconds per run; a stat costs microseconds.
var Version = sync.OnceValue(func() string {
	h := NewHasher("shipshape-version")
	bi, ok := debug.ReadBuildInfo()
	if ok {
		hashBuildInfo(h, bi)
	}
	if ok && exactBuild(bi) {
		return h.Key().String()
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		h.String(exe)
		if st, err := os.Stat(exe); err == nil {
			h.Int(st.Size())
			h.Int(st.ModTime().UnixNano())
			h.Int(int64(inode(st)))
		}
	}
	return h.Key().String()
})

// hashBuildInfo adds every field of bi: the Go version, the main module
// and each dependency (path, version, sum, replacement) and the build
// settings. Field by field rather than bi.String(), which formats the
// whole text with fmt first: Version runs in every run that opens the
// cache, a 2 KB lint included, where that was a sixth of a millisecond.
func hashBuildInfo(h *Hasher, bi *debug.BuildInfo) {
	h.String(bi.GoVersion)
	h.String(bi.Path)
	module := func(m *debug.Module) {
		for m != nil {
			h.String(m.Path)
			h.String(m.Version)
			h.String(m.Sum)
			m = m.Replace
		}
		h.String("")
	}
	module(&bi.Main)
	h.Int(int64(len(bi.Deps)))
	for _, d := range bi.Deps {
		module(d)
	}
	h.Int(int64(len(bi.Settings)))
	for _, s := range bi.Settings {
		h.String(s.Key)
		h.String(s.Value)
	}
}

// EnvDir is the environment variable naming the cache directory ("off":
// no cache), as GOCACHE does Go's.
const EnvDir = "SHIPSHAPE_CACHE"

// DefaultDir is the cache directory when no flag names one: $SHIPSHAPE_CACHE,
// else shipshape under the user's cache directory (os.UserCacheDir:
// $XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS,
// %LocalAppData% on Windows). "" means no cache: SHIPSHAPE_CACHE=off, or
// no user cache directory.
func DefaultDir() string {
	if d := os.Getenv(EnvDir); d != "" {
		if d == "off" {
			return ""
		}
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "shipshape")
}

// exactBuild reports a build whose module version names its source
// exactly: a released or pseudo-version, not "(devel)" and not a
// modified checkout's "+dirty".
func exactBuild(bi *debug.BuildInfo) bool {
	v := bi.Main.Version
	return v != "" && v != "(devel)" && !strings.HasSuffix(v, "+dirty")
}

// Sum is the SHA-256 of data, as Index.Sum gives it.
func Sum(data []byte) [sha256.Size]byte { return sha256.Sum256(data) }
