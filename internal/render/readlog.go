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
type readLog struct {
	mu         sync.Mutex
	reads      []fsRead
	unreplayed string // the first such way, "" when there is none
}

func (l *readLog) add(op fsOp, path string, answer [sha256.Size]byte) {
	l.mu.Lock()
	l.reads = append(l.reads, fsRead{op, path, answer})
	l.mu.Unlock()
}

func (l *readLog) cannotReplay(way string) {
	l.mu.Lock()
	if l.unreplayed == "" {
		l.unreplayed = way
	}
	l.mu.Unlock()
}

// answer asks fsys the question (op, path) and hashes its answer, the
// same way when recording and when checking.
func answer(fsys filesys.FileSystem, op fsOp, path string) [sha256.Size]byte {
	h := sha256.New()
	put := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
	}
	errText := func(err error) string {
		if err == nil {
			return "ok"
		}
		return "error: " + err.Error()
	}
	switch op {
	case opReadFile:
		data, err := fsys.ReadFile(path)
		put(errText(err))
		h.Write(data)
	case opIsDir:
		put(boolText(fsys.IsDir(path)))
	case opExists:
		put(boolText(fsys.Exists(path)))
	case opCleanedAbs:
		dir, file, err := fsys.CleanedAbs(path)
		put(errText(err), string(dir), file)
	case opReadDir:
		names, err := fsys.ReadDir(path)
		put(errText(err))
		put(names...)
	case opGlob:
		matches, err := fsys.Glob(path)
		put(errText(err))
		put(matches...)
	default:
		put("unknown question")
	}
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
// each file once), and logged with its answer's hash.
type loggingFS struct {
	filesys.FileSystem
	log *readLog
}

// ask logs (op, path) with the answer's hash and returns it to the caller
// by asking again: readOnlyFS answers each question once from memory, so
// the second asking costs a map lookup.
func (f loggingFS) ask(op fsOp, path string) {
	f.log.add(op, path, answer(f.FileSystem, op, path))
}

func (f loggingFS) ReadFile(path string) ([]byte, error) {
	f.ask(opReadFile, path)
	return f.FileSystem.ReadFile(path)
}

func (f loggingFS) IsDir(path string) bool {
	f.ask(opIsDir, path)
	return f.FileSystem.IsDir(path)
}

func (f loggingFS) Exists(path string) bool {
	f.ask(opExists, path)
	return f.FileSystem.Exists(path)
}

func (f loggingFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	f.ask(opCleanedAbs, path)
	return f.FileSystem.CleanedAbs(path)
}

func (f loggingFS) ReadDir(path string) ([]string, error) {
	f.ask(opReadDir, path)
	return f.FileSystem.ReadDir(path)
}

func (f loggingFS) Glob(pattern string) ([]string, error) {
	f.ask(opGlob, pattern)
	return f.FileSystem.Glob(pattern)
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
