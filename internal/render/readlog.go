package render

import (
	"crypto/sha256"
	"errors"
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// What one kustomize build asked of the file system, and what it was
// told: the inputs of a cached rendering (rendercache.go). krusty is a
// function of these answers (and of the program and the root's options,
// which the cache key holds), so when the same questions get the same
// answers again, the build's output is the one stored. A question that
// got no answer (a file that did not exist, a directory that was not
// one) is an input too: the file that appears later changes the answer.

// fsOp is a question kustomize asks its file system.
type fsOp byte

const (
	opReadFile fsOp = iota + 1
	opIsDir
	opExists
	opCleanedAbs
	opReadDir
	opGlob
)

// fsRead is one question and the hash of its answer.
type fsRead struct {
	op     fsOp
	path   string
	answer [sha256.Size]byte
}

// readLog is the questions of one build, in order. A build that used a
// way in the log cannot replay (Open, Walk, a write) is not cached.
// A question asked again with the same answer (kustomize loads a base
// once per overlay that lists it) is logged once; another answer (a
// listing that changed while the root rendered) is logged too, and no
// replay gets both.
type readLog struct {
	mu         sync.Mutex
	reads      []fsRead
	asked      map[fsQuestion][sha256.Size]byte
	unreplayed string // the first such way, "" when there is none
}

type fsQuestion struct {
	op   fsOp
	path string
}

func (l *readLog) add(op fsOp, path string, answer [sha256.Size]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := fsQuestion{op, path}
	if first, ok := l.asked[q]; ok && first == answer {
		return
	}
	if l.asked == nil {
		l.asked = map[fsQuestion][sha256.Size]byte{}
	}
	l.asked[q] = answer
	l.reads = append(l.reads, fsRead{op, path, answer})
}

func (l *readLog) cannotReplay(way string) {
	l.mu.Lock()
	if l.unreplayed == "" {
		l.unreplayed = way
	}
	l.mu.Unlock()
}

// answer asks fsys the question (op, path) and hashes its answer, as the
// build that logged it hashed what it was told (see loggingFS).
func answer(fsys filesys.FileSystem, op fsOp, path string) [sha256.Size]byte {
	switch op {
	case opReadFile:
		data, err := fsys.ReadFile(path)
		return hashAnswer(err, data)
	case opIsDir:
		return hashAnswer(nil, nil, boolText(fsys.IsDir(path)))
	case opExists:
		return hashAnswer(nil, nil, boolText(fsys.Exists(path)))
	case opCleanedAbs:
		dir, file, err := fsys.CleanedAbs(path)
		return hashAnswer(err, nil, string(dir), file)
	case opReadDir:
		names, err := fsys.ReadDir(path)
		return hashAnswer(err, nil, names...)
	case opGlob:
		matches, err := fsys.Glob(path)
		return hashAnswer(err, nil, matches...)
	}
	return hashAnswer(errBadLog, nil)
}

// hashAnswer hashes an answer: its error, its bytes, its strings.
func hashAnswer(err error, data []byte, parts ...string) [sha256.Size]byte {
	h := sha256.New()
	if err != nil {
		h.Write([]byte("error: " + err.Error()))
	}
	h.Write([]byte{0})
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	h.Write(data)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// loggingFS is the file system a cached build reads through: every
// question is asked of the file system below (readOnlyFS, which reads
// each file once), and logged with the hash of the answer kustomize got.
type loggingFS struct {
	filesys.FileSystem
	log *readLog
}

func (f loggingFS) ReadFile(path string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(path)
	f.log.add(opReadFile, path, hashAnswer(err, data))
	return data, err
}

func (f loggingFS) IsDir(path string) bool {
	v := f.FileSystem.IsDir(path)
	f.log.add(opIsDir, path, hashAnswer(nil, nil, boolText(v)))
	return v
}

func (f loggingFS) Exists(path string) bool {
	v := f.FileSystem.Exists(path)
	f.log.add(opExists, path, hashAnswer(nil, nil, boolText(v)))
	return v
}

func (f loggingFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	dir, file, err := f.FileSystem.CleanedAbs(path)
	f.log.add(opCleanedAbs, path, hashAnswer(err, nil, string(dir), file))
	return dir, file, err
}

func (f loggingFS) ReadDir(path string) ([]string, error) {
	names, err := f.FileSystem.ReadDir(path)
	f.log.add(opReadDir, path, hashAnswer(err, nil, names...))
	return names, err
}

func (f loggingFS) Glob(pattern string) ([]string, error) {
	matches, err := f.FileSystem.Glob(pattern)
	f.log.add(opGlob, pattern, hashAnswer(err, nil, matches...))
	return matches, err
}

func (f loggingFS) Open(path string) (filesys.File, error) {
	f.log.cannotReplay("Open " + path)
	return f.FileSystem.Open(path)
}

func (f loggingFS) Walk(path string, fn filepath.WalkFunc) error {
	f.log.cannotReplay("Walk " + path)
	return f.FileSystem.Walk(path, fn)
}

func (f loggingFS) Create(path string) (filesys.File, error) {
	f.log.cannotReplay("Create " + path)
	return f.FileSystem.Create(path)
}

func (f loggingFS) Mkdir(path string) error {
	f.log.cannotReplay("Mkdir " + path)
	return f.FileSystem.Mkdir(path)
}

func (f loggingFS) MkdirAll(path string) error {
	f.log.cannotReplay("MkdirAll " + path)
	return f.FileSystem.MkdirAll(path)
}

func (f loggingFS) RemoveAll(path string) error {
	f.log.cannotReplay("RemoveAll " + path)
	return f.FileSystem.RemoveAll(path)
}

func (f loggingFS) WriteFile(path string, data []byte) error {
	f.log.cannotReplay("WriteFile " + path)
	return f.FileSystem.WriteFile(path, data)
}

// errBadLog: a stored log that does not decode.
var errBadLog = errors.New("damaged read log")

// encodeLog writes l's reads (op, path, answer).
func encodeLog(reads []fsRead) []byte {
	var w codecWriter
	w.uint(uint64(len(reads)))
	for _, r := range reads {
		w.uint(uint64(r.op))
		w.string(r.path)
		w.buf = append(w.buf, r.answer[:]...)
	}
	return w.buf
}

func decodeLog(data []byte) ([]fsRead, error) {
	r := codecReader{buf: data}
	n := r.uint()
	if r.err != nil || n > uint64(len(data)) {
		return nil, errBadLog
	}
	reads := make([]fsRead, 0, n)
	for range n {
		var x fsRead
		x.op = fsOp(r.uint())
		x.path = r.string()
		if r.err != nil || len(r.buf) < sha256.Size {
			return nil, errBadLog
		}
		copy(x.answer[:], r.buf)
		r.buf = r.buf[sha256.Size:]
		reads = append(reads, x)
	}
	if len(r.buf) != 0 {
		return nil, errBadLog
	}
	return reads, nil
}
