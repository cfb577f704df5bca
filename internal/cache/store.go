// Package cache is shipshape's content-addressed store (as Go's build
// cache): entries named by a Key, the SHA-256 of everything the entry's
// value depends on, so an entry is never stale, only unused. Each entry
// carries the checksum of its bytes: one truncated or damaged (a crash, a
// full disk, another program) reads as absent and is computed again.
// Writes go to a temporary file renamed into place in the same directory,
// so runs sharing a directory see whole entries or none. The store trims
// itself to a size bound, least recently used first (mtime, refreshed on
// use). A directory that cannot be written is used read-only, and said
// once.
package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Key names an entry: the SHA-256 of what its value depends on.
type Key [sha256.Size]byte

func (k Key) String() string { return hex.EncodeToString(k[:]) }

// DefaultMaxBytes is the size the store trims itself to when asked for
// no other.
const DefaultMaxBytes = 512 << 20

// magic starts every entry; the digit is the entry format's version.
var magic = []byte("shipshape-cache\x01")

// header: magic, payload length (8 bytes), payload SHA-256.
const headerLen = 16 + 8 + sha256.Size

// touchAfter: an entry used is marked used (its mtime set) at most this
// often, as Go's cache does: a write per read would cost more than LRU
// order is worth.
const touchAfter = time.Hour

// trimEvery: a store is walked to trim it at most this often, as Go's
// build cache trims at most once a day. The walk stats every entry: in
// a well-used store (140,000 entries) it cost a second on every run that
// wrote one, more than the warm run itself. The store may outgrow
// MaxBytes by what an hour writes.
const trimEvery = time.Hour

// trimStamp is the file whose mtime is the last trim's time.
const trimStamp = "trim.txt"

// Store is a cache directory. Its methods are safe for concurrent use, and
// several processes may share one directory.
type Store struct {
	dir string
	// MaxBytes bounds the entries' total size after Trim.
	MaxBytes int64
	// Warn receives, once, why the store cannot write (nil: os.Stderr).
	Warn io.Writer

	warnOnce sync.Once
	readOnly bool
	mu       sync.Mutex
	wrote    int64 // bytes put by this process, for Trim
}

// Open returns the store at dir, creating it when it can; a directory
// that cannot be created or written is still read (read-only).
func Open(dir string) *Store {
	return &Store{dir: dir, MaxBytes: DefaultMaxBytes}
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// path is where k's entry lives: a directory per first byte, so that no
// directory holds the whole cache.
func (s *Store) path(k Key) string {
	h := k.String()
	return filepath.Join(s.dir, h[:2], h)
}

// Get returns k's value; false when there is none or it is damaged.
func (s *Store) Get(k Key) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	p := s.path(k)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	v, ok := decode(data)
	if !ok {
		return nil, false
	}
	if st, err := os.Stat(p); err == nil && time.Since(st.ModTime()) > touchAfter {
		now := time.Now()
		_ = os.Chtimes(p, now, now) // LRU order only: a read-only store keeps its
	}
	return v, true
}

// decode checks an entry's header and checksum and returns its payload.
func decode(data []byte) ([]byte, bool) {
	if len(data) < headerLen || !bytes.Equal(data[:len(magic)], magic) {
		return nil, false
	}
	n := binary.BigEndian.Uint64(data[len(magic):])
	payload := data[headerLen:]
	if uint64(len(payload)) != n {
		return nil, false
	}
	sum := sha256.Sum256(payload)
	return payload, bytes.Equal(sum[:], data[len(magic)+8:headerLen])
}

// encode is the entry of payload v.
func encode(v []byte) []byte {
	out := make([]byte, headerLen, headerLen+len(v))
	copy(out, magic)
	binary.BigEndian.PutUint64(out[len(magic):], uint64(len(v)))
	sum := sha256.Sum256(v)
	copy(out[len(magic)+8:], sum[:])
	return append(out, v...)
}

// Put stores v as k's value. It never fails the caller: a store that
// cannot be written says so once (Warn) and keeps reading.
func (s *Store) Put(k Key, v []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	ro := s.readOnly
	s.mu.Unlock()
	if ro {
		return
	}
	if err := s.write(s.path(k), encode(v)); err != nil {
		s.mu.Lock()
		s.readOnly = true
		s.mu.Unlock()
		s.warnOnce.Do(func() {
			w := s.Warn
			if w == nil {
				w = os.Stderr
			}
			fmt.Fprintf(w, "shipshape: the cache %s cannot be written (%v): results are computed and not stored (--cache-dir, SHIPSHAPE_CACHE or --no-cache)\n", s.dir, unwrapPath(err))
		})
		return
	}
	s.mu.Lock()
	s.wrote += int64(len(v) + headerLen)
	s.mu.Unlock()
}

// unwrapPath is err without the path wrapping it (the message names the
// directory already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// write puts data at p atomically: a temporary file in p's directory,
// synced, then renamed over p.
func (s *Store) write(p string, data []byte) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Trim removes the least recently used entries (by mtime) until the
// store's entries total at most MaxBytes, and the temporary files an
// interrupted run left (older than a minute). It only walks the store
// when this process wrote to it, and no run trimmed it in the last
// trimEvery.
func (s *Store) Trim() {
	if s == nil {
		return
	}
	s.mu.Lock()
	wrote, ro := s.wrote, s.readOnly
	s.mu.Unlock()
	if wrote == 0 || ro {
		return
	}
	stamp := filepath.Join(s.dir, trimStamp)
	if st, err := os.Stat(stamp); err == nil && time.Since(st.ModTime()) < trimEvery {
		return
	}
	// Stamped first: runs that end together do not all walk.
	if os.WriteFile(stamp, nil, 0o666) != nil {
		return
	}
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var entries []entry
	var total int64
	_ = filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && filepath.Dir(p) == s.dir && !isEntryDir(d.Name()) {
			return filepath.SkipDir // not the store's: the chart cache (charts/), a user's file
		}
		if err != nil || d.IsDir() || p == stamp {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if filepath.Base(p)[0] == '.' {
			if time.Since(info.ModTime()) > time.Minute {
				os.Remove(p)
			}
			return nil
		}
		entries = append(entries, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if total <= s.MaxBytes {
		return
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.used.Compare(b.used) })
	for _, e := range entries {
		if total <= s.MaxBytes {
			break
		}
		if os.Remove(e.path) == nil {
			total -= e.size
		}
	}
}

// isEntryDir reports a directory path puts entries in: two hex digits.
func isEntryDir(name string) bool {
	if len(name) != 2 {
		return false
	}
	for _, c := range name {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
