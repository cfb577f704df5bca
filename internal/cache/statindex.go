package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"sync"
	"time"
)

// An Index remembers, between runs, each file's content hash beside what
// stat said of it (size, modification and change times in nanoseconds,
// inode), as git's index does, so that a run need not read a file that did
// not change. It trusts a remembered hash only when stat says the same
// and the file's modification time is older than the run that hashed it
// by more than the file system's timestamp granularity (git's "racy git"
// rule): a file written within that window could have changed again
// without its times moving, so it is read and hashed again.
type Index struct {
	store *Store
	key   Key
	// started is this run's start, taken before any stat: the time
	// recorded with each hash this run confirms.
	started time.Time
	mu      sync.Mutex
	old     map[string]indexEntry
	seen    map[string]indexEntry
	changed bool
}

// indexEntry is one file as last hashed.
type indexEntry struct {
	stat fileStat
	sum  [sha256.Size]byte
	// checked is when the run that hashed (or confirmed) it started.
	checked int64
}

// fileStat is what stat says of a file that changes when its bytes do.
type fileStat struct {
	size, mtime, ctime int64
	inode              uint64
}

// Granularity is the coarsest file system timestamp the index allows
// for (FAT's two seconds; ext4's are the kernel's clock tick).
const Granularity = 2 * time.Second

// indexForget: an entry no run has confirmed for this long is dropped
// (its file was deleted, or is no longer linted from here).
const indexForget = 7 * 24 * time.Hour

// OpenIndex loads the store's index for scope (the directory a run is
// started from: runs from elsewhere keep their own). A nil store gives a
// nil Index, which hashes every file.
func (s *Store) OpenIndex(scope string) *Index {
	if s == nil {
		return nil
	}
	h := NewHasher("shipshape stat index v1")
	h.String(scope)
	x := &Index{store: s, key: h.Key(), started: time.Now(), seen: map[string]indexEntry{}}
	if data, ok := s.Get(x.key); ok {
		x.old = decodeIndex(data)
	}
	return x
}

// Sum returns the SHA-256 of path's bytes. When the index cannot vouch
// for them it calls read and returns what read returned too (data is nil
// when the index answered). read's error is returned as it is.
//
// A run looks at a file once: a second Sum of a path this run already
// summed (the scans' screen, then the file's lint) answers the first
// one's hash, without a stat. Both uses then agree on one view of the
// file; a file edited between the two could have been read at either
// moment anyway, and the next run's stat sees the edit.
func (x *Index) Sum(path string, read func() ([]byte, error)) (sum [sha256.Size]byte, data []byte, err error) {
	if x != nil {
		x.mu.Lock()
		e, ok := x.seen[path]
		x.mu.Unlock()
		if ok {
			return e.sum, nil, nil
		}
	}
	st, statOK := x.stat(path)
	if statOK {
		x.mu.Lock()
		e, ok := x.old[path]
		x.mu.Unlock()
		if ok && e.stat == st && e.stat.mtime < e.checked-int64(Granularity) {
			x.remember(path, indexEntry{st, e.sum, x.started.UnixNano()}, false)
			return e.sum, nil, nil
		}
	}
	if data, err = read(); err != nil {
		return sum, nil, err
	}
	sum = sha256.Sum256(data)
	if statOK {
		// The stat before the read: had the file changed in between, the
		// next run's stat would differ, or fall within the racy window.
		x.remember(path, indexEntry{st, sum, x.started.UnixNano()}, true)
	}
	return sum, data, nil
}

func (x *Index) stat(path string) (fileStat, bool) {
	if x == nil {
		return fileStat{}, false
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return fileStat{}, false
	}
	ctime, ok := changeTime(info)
	if !ok {
		return fileStat{}, false // without a change time, same-size same-mtime edits go unseen
	}
	return fileStat{info.Size(), info.ModTime().UnixNano(), ctime, inode(info)}, true
}

func (x *Index) remember(path string, e indexEntry, hashed bool) {
	x.mu.Lock()
	x.seen[path] = e
	x.changed = x.changed || hashed
	x.mu.Unlock()
}

// Save stores the index when this run hashed a file: the entries it
// confirmed, and those of files it did not look at, unless not confirmed
// for a week.
func (x *Index) Save() {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.changed {
		return
	}
	forget := x.started.Add(-indexForget).UnixNano()
	for p, e := range x.old {
		if _, ok := x.seen[p]; !ok && e.checked > forget {
			x.seen[p] = e
		}
	}
	x.store.Put(x.key, encodeIndex(x.seen))
}

// The index's encoding: per entry, the path's length and bytes, then
// size, mtime, ctime, inode, checked (8 bytes each) and the hash.
const indexFixed = 5*8 + sha256.Size

func encodeIndex(m map[string]indexEntry) []byte {
	n := 0
	for p := range m {
		n += 4 + len(p) + indexFixed
	}
	out := make([]byte, 0, n)
	for p, e := range m {
		out = binary.BigEndian.AppendUint32(out, uint32(len(p)))
		out = append(out, p...)
		for _, v := range [...]uint64{uint64(e.stat.size), uint64(e.stat.mtime), uint64(e.stat.ctime), e.stat.inode, uint64(e.checked)} {
			out = binary.BigEndian.AppendUint64(out, v)
		}
		out = append(out, e.sum[:]...)
	}
	return out
}

// decodeIndex reads encodeIndex's bytes; what does not read is dropped
// whole (the store's checksum makes that a different program's entry).
func decodeIndex(data []byte) map[string]indexEntry {
	m := map[string]indexEntry{}
	for len(data) > 0 {
		if len(data) < 4 {
			return nil
		}
		n := int(binary.BigEndian.Uint32(data))
		data = data[4:]
		if len(data) < n+indexFixed {
			return nil
		}
		p := string(data[:n])
		data = data[n:]
		u := func(i int) uint64 { return binary.BigEndian.Uint64(data[8*i:]) }
		e := indexEntry{stat: fileStat{int64(u(0)), int64(u(1)), int64(u(2)), u(3)}, checked: int64(u(4))}
		copy(e.sum[:], data[40:indexFixed])
		m[p] = e
		data = data[indexFixed:]
	}
	return m
}
