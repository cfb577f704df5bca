package engine

// The scans for the objects that make applications of their own (Flux
// Kustomizations, Argo CD Applications, HelmReleases and their values
// objects) look at every file of the run, and each parses only a file
// whose text holds one of its words. Which of those words a file holds is
// a function of its bytes alone: scanWords remembers it per content hash,
// so that a run whose stat index vouches for a file's hash (cache.Index)
// need not read the file to know the scans would pass it by, and every
// run reads a file once for all the scans, not once per scan. A file the
// screen cannot vouch for is read by the scan as before: the screen only
// ever says "this file holds none of these words", and only when that is
// what its bytes say.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"sync"

	"github.com/shipshape-dev/shipshape/internal/cache"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// scanWord is a set of the words the scans look for, one bit each.
type scanWord uint16

const (
	// wordFlux: render.MentionsFlux (the Flux Kustomization scan).
	wordFlux scanWord = 1 << iota
	wordArgo
	wordKustomizeKey
	wordHelmRelease
	wordApplication
	wordConfigMap
	wordSecret
	wordHelmRepository
	wordOCIRepository
	wordHelmChart
)

// scanWordTexts are the words other than wordFlux, by bit.
var scanWordTexts = []struct {
	word scanWord
	text string
}{
	{wordArgo, "argoproj.io/"},
	{wordKustomizeKey, "kustomize:"},
	{wordHelmRelease, "HelmRelease"},
	{wordApplication, "Application"},
	{wordConfigMap, "ConfigMap"},
	{wordSecret, "Secret"},
	{wordHelmRepository, "HelmRepository"},
	{wordOCIRepository, "OCIRepository"},
	{wordHelmChart, "HelmChart"},
}

// texts are the words of w other than wordFlux.
func (w scanWord) texts() []string {
	var out []string
	for _, t := range scanWordTexts {
		if w&t.word != 0 {
			out = append(out, t.text)
		}
	}
	return out
}

// scanWordsOf is the set of words data holds.
func scanWordsOf(data []byte) scanWord {
	var w scanWord
	if render.MentionsFlux(data) {
		w |= wordFlux
	}
	for _, t := range scanWordTexts {
		if bytes.Contains(data, []byte(t.text)) {
			w |= t.word
		}
	}
	return w
}

// scanScreen is one run's knowledge of which words its files hold.
type scanScreen struct {
	limit int64
	// index and store are the run's stat index and cache (nil without).
	index *cache.Index
	store *cache.Store
	key   cache.Key
	// once guards the loading of known.
	once sync.Once
	mu   sync.Mutex
	// known: content hash -> the words of such bytes, as the cache had it
	// and as this run found.
	known map[[sha256.Size]byte]scanWord
	// seen: the hashes of the files of this run (what save keeps).
	seen  map[[sha256.Size]byte]bool
	added bool
	// byPath: the words of each file this run asked about, by the path it
	// was stat'ed as.
	byPath map[string]scanWord
}

// newScanScreen is the screen of a run reading files under limit bytes;
// files is the run's per-file cache (nil: no cache, each file is read
// once per run for all the scans).
func newScanScreen(limit int64, files *fileCache, scope string) *scanScreen {
	s := &scanScreen{limit: limit, byPath: map[string]scanWord{}, known: map[[sha256.Size]byte]scanWord{}, seen: map[[sha256.Size]byte]bool{}}
	if files != nil {
		s.index, s.store = files.index, files.store
		h := cache.NewHasher("shipshape scan words v1")
		h.String(cache.Version())
		h.String(scope)
		s.key = h.Key()
	}
	return s
}

func (s *scanScreen) load() {
	if s.store == nil {
		return
	}
	if data, ok := s.store.Get(s.key); ok {
		s.known = decodeScanWords(data)
	}
}

// mayHold reports whether the file at path (read as readPath: the same
// file under its real name) may hold one of words: false only when its
// bytes, read under the run's size limit, hold none. A file that cannot
// be read may hold them (the scan reads it, and fails, as it would have).
func (s *scanScreen) mayHold(path, readPath string, words scanWord) bool {
	if s == nil || path == manifest.Stdin || path == "" {
		return true
	}
	s.once.Do(s.load)
	s.mu.Lock()
	w, ok := s.byPath[path]
	s.mu.Unlock()
	if !ok {
		if w, ok = s.find(path, readPath); !ok {
			return true
		}
	}
	return w&words != 0
}

// find is the words of the file at path, read or known by its hash.
func (s *scanScreen) find(path, readPath string) (scanWord, bool) {
	read := func() ([]byte, error) { return manifest.ReadRegular(readPath, s.limit) }
	var sum [sha256.Size]byte
	var data []byte
	var err error
	if s.index != nil {
		sum, data, err = s.index.Sum(path, read)
	} else {
		data, err = read()
	}
	if err != nil {
		return 0, false
	}
	s.mu.Lock()
	w, known := s.known[sum]
	s.mu.Unlock()
	if data == nil && !known { // the index vouched for bytes no run screened
		if data, err = read(); err != nil {
			return 0, false
		}
		sum = sha256.Sum256(data)
	}
	if data != nil {
		w = scanWordsOf(data)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byPath[path] = w
	if s.index != nil {
		if old, ok := s.known[sum]; !ok || old != w {
			s.known[sum], s.added = w, true
		}
		s.seen[sum] = true
	}
	return w, true
}

// save stores what the run learned: the words of the hashes its files
// had (those of files no longer here are dropped).
func (s *scanScreen) save() {
	if s == nil || s.store == nil || !s.added {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := map[[sha256.Size]byte]scanWord{}
	for sum := range s.seen {
		kept[sum] = s.known[sum]
	}
	s.store.Put(s.key, encodeScanWords(kept))
}

// The encoding: per hash, its 32 bytes and the words (2 bytes), in hash
// order (the same set encodes to the same bytes).
const scanWordsEntry = sha256.Size + 2

func encodeScanWords(m map[[sha256.Size]byte]scanWord) []byte {
	sums := make([][sha256.Size]byte, 0, len(m))
	for sum := range m {
		sums = append(sums, sum)
	}
	slices.SortFunc(sums, func(a, b [sha256.Size]byte) int { return strings.Compare(string(a[:]), string(b[:])) })
	out := make([]byte, 0, len(m)*scanWordsEntry)
	for _, sum := range sums {
		out = append(out, sum[:]...)
		out = binary.BigEndian.AppendUint16(out, uint16(m[sum]))
	}
	return out
}

// decodeScanWords reads encodeScanWords' bytes; bytes of another length
// read as nothing known.
func decodeScanWords(data []byte) map[[sha256.Size]byte]scanWord {
	m := map[[sha256.Size]byte]scanWord{}
	if len(data)%scanWordsEntry != 0 {
		return m
	}
	for ; len(data) > 0; data = data[scanWordsEntry:] {
		var sum [sha256.Size]byte
		copy(sum[:], data)
		m[sum] = scanWord(binary.BigEndian.Uint16(data[sha256.Size:]))
	}
	return m
}
