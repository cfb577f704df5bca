package cache

import (
	"encoding/binary"
	"sync"
)

// A Pack gathers, in one entry, the values a run read or wrote through it,
// so that the next run from the same place reads one file instead of one
// per entry: a warm pre-commit run in a repository of two thousand files
// spent an eighth of its time opening, reading and checksumming two
// thousand small entries.
//
// A Pack adds no way to be wrong: it maps Keys to values as the store
// does, and a Key is the hash of everything its value depends on (a file's
// bytes among them), so a value found in the pack is the value the store
// would hold under that Key. A damaged pack fails the store's checksum
// and reads as empty; a value missing from it is asked of the store.
type Pack struct {
	store *Store
	key   Key
	mu    sync.Mutex
	old   map[Key][]byte
	used  map[Key][]byte
	// changed: this run used a value the old pack did not hold.
	changed bool
}

// OpenPack loads the pack named by key (the caller's hash of where and
// for what it is used: a run's directory and its configuration). A nil
// store gives a nil Pack, which holds nothing.
func (s *Store) OpenPack(key Key) *Pack {
	if s == nil {
		return nil
	}
	p := &Pack{store: s, key: key, used: map[Key][]byte{}}
	if data, ok := s.Get(key); ok {
		p.old = decodePack(data)
	}
	return p
}

// Get returns k's value: the pack's, else the store's.
func (p *Pack) Get(k Key) ([]byte, bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	v, ok := p.old[k]
	p.mu.Unlock()
	if !ok {
		if v, ok = p.store.Get(k); !ok {
			return nil, false
		}
	}
	p.mu.Lock()
	p.used[k] = v
	p.changed = p.changed || !ok
	p.mu.Unlock()
	return v, true
}

// Forget drops k's value from what the pack will save: the caller found
// it unusable (it does not decode).
func (p *Pack) Forget(k Key) {
	if p == nil {
		return
	}
	p.mu.Lock()
	delete(p.used, k)
	if _, ok := p.old[k]; ok {
		// Out of old too, or Save would keep it among the values this
		// run did not use.
		delete(p.old, k)
		p.changed = true
	}
	p.mu.Unlock()
}

// Put stores v as k's value, in the store and in the pack.
func (p *Pack) Put(k Key, v []byte) {
	if p == nil {
		return
	}
	p.store.Put(k, v)
	p.mu.Lock()
	p.used[k] = v
	p.changed = true
	p.mu.Unlock()
}

// Keep records v as k's value in the pack only: for values worth keeping
// only together (a single one costs more to read than to compute).
func (p *Pack) Keep(k Key, v []byte) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.used[k] = v
	p.changed = true
	p.mu.Unlock()
}

// Changed reports whether this run used a value the pack did not hold.
func (p *Pack) Changed() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// Save stores the pack when this run used a value it did not hold: the
// values used, and those of the old pack this run did not use (another
// run from here may name other files) as long as they weigh less than the
// used ones, so that the pack stays within twice what one run reads.
func (p *Pack) Save() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.changed && len(p.used) == len(p.old) {
		return // the same values: the pack on disk is this one
	}
	usedBytes := 0
	for _, v := range p.used {
		usedBytes += len(v)
	}
	kept := map[Key][]byte{}
	oldBytes := 0
	for k, v := range p.old {
		if _, ok := p.used[k]; !ok && oldBytes+len(v) <= usedBytes {
			kept[k] = v
			oldBytes += len(v)
		}
	}
	if !p.changed && len(kept)+len(p.used) == len(p.old) {
		return
	}
	for k, v := range p.used {
		kept[k] = v
	}
	p.store.Put(p.key, encodePack(kept))
}

// The pack's encoding: per value, its Key, its length (4 bytes) and its
// bytes.
func encodePack(m map[Key][]byte) []byte {
	n := 0
	for _, v := range m {
		n += len(Key{}) + 4 + len(v)
	}
	out := make([]byte, 0, n)
	for k, v := range m {
		out = append(out, k[:]...)
		out = binary.BigEndian.AppendUint32(out, uint32(len(v)))
		out = append(out, v...)
	}
	return out
}

// decodePack reads encodePack's bytes; what does not read is dropped whole
// (the store's checksum makes that a different program's entry). The
// values share data's array.
func decodePack(data []byte) map[Key][]byte {
	m := map[Key][]byte{}
	for len(data) > 0 {
		var k Key
		if len(data) < len(k)+4 {
			return nil
		}
		copy(k[:], data)
		n := int(binary.BigEndian.Uint32(data[len(k):]))
		data = data[len(k)+4:]
		if len(data) < n {
			return nil
		}
		m[k] = data[:n:n]
		data = data[n:]
	}
	return m
}
