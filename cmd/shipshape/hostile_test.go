package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Issue 7: every hostile input gets a clear finding (with a position when
// there is one), in bounded time, and every other file of the run is still
// linted. The inputs are generated in a temporary directory.

type hostileFinding struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

func lintFindings(t *testing.T, args ...string) ([]hostileFinding, int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"lint", "--format", "json"}, args...), strings.NewReader(""), &stdout, &stderr)
	var r struct {
		Findings []hostileFinding `json:"findings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("lint %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	return r.Findings, code, stderr.String()
}

// aliasBomb is "billion laughs": ten levels of nine references each
// (10^9 strings once expanded), under a ConfigMap key.
func aliasBomb() []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for i := 0; i < 9; i++ {
		name := fmt.Sprintf("b%d", i)
		refs := strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", ")
		fmt.Fprintf(&b, "  %s: &%s [%s]\n", name, name, refs)
		prev = name
	}
	return []byte(b.String())
}

func utf16LE(s string) []byte {
	out := []byte{0xff, 0xfe}
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

const goodYAML = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\ndata:\n  enabled: yes\n"

func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	longValue := strings.Repeat("x", 8<<20)
	tests := []struct {
		file    string
		data    []byte
		rule    string // "" means no finding at all
		text    string
		line    int // 0: no position expected
		col     int
		perFile bool // more findings of the rule are fine
	}{
		{file: "good.yaml", data: []byte(goodYAML), rule: "ambiguous-scalar", text: "unquoted value yes", line: 6, col: 12},
		{file: "alias-bomb.yaml", data: aliasBomb(), rule: "type-mismatch", text: "data.a takes a string, not a list", line: 6, col: 6, perFile: true},
		{file: "deep-flow.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  a: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n"),
			rule: "yaml-syntax", text: "exceeded max depth of 10000", line: 5},
		{file: "deep-block.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n  a:\n    " + strings.Repeat("- ", 100000) + "x\n"),
			rule: "yaml-syntax", text: "exceeded max depth of 10000", line: 6, col: 20001},
		{file: "long-line.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: long}\ndata:\n  big: " + longValue + "\n  flag: on\n"),
			rule: "ambiguous-scalar", text: "unquoted value on", line: 6, col: 9},
		{file: "binary.yaml", data: []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00"),
			rule: "read-error", text: "binary file (a NUL byte at offset 7)"},
		{file: "latin1.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caf\xe9}\n"),
			rule: "yaml-syntax", text: "invalid UTF-8 (byte 0xE9)", line: 3, col: 21},
		{file: "utf16.yaml", data: utf16LE("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: u}\n"),
			rule: "read-error", text: "UTF-16 text (byte-order mark)"},
		{file: "tabs.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabs\n"),
			rule: "yaml-syntax", text: "found a tab that cannot start any token (YAML indents with spaces, never tabs)", line: 4, col: 1},
		{file: "unterminated.yaml", data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"open\ndata: {}\n"),
			rule: "yaml-syntax", text: "while scanning a quoted scalar", line: 6, col: 1},
		{file: "scalar.yaml", data: []byte(strings.Replace(goodYAML, "yes", `"yes"`, 1) + "---\njust some text\n"),
			rule: "type-mismatch", text: `the document is the bare value "just some text"`, line: 8, col: 1},
		{file: "sequence.yaml", data: []byte("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: b}\n"),
			rule: "type-mismatch", text: "the document is a list of 2 Kubernetes objects", line: 1, col: 1},
		{file: "ansible.yml", data: []byte("- hosts: all\n  tasks: []\n")}, // not Kubernetes: silent
		{file: "dir with space/ünïcödé €.yaml", data: []byte(goodYAML), rule: "ambiguous-scalar", text: "unquoted value yes", line: 6, col: 12},
	}
	for _, tt := range tests {
		p := filepath.Join(dir, tt.file)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Special files are skipped in a directory walk, and never block it.
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Logf("no FIFO: %v", err)
	}
	os.Symlink("loop.yaml", filepath.Join(dir, "loop.yaml"))
	os.Symlink("..", filepath.Join(dir, "dir with space", "up"))

	// A hang is caught by go test's -timeout; a wall-clock limit here would
	// only fail on a busy machine.
	findings, code, stderr := lintFindings(t, "--fail-on", "none", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	byFile := map[string][]hostileFinding{}
	for _, f := range findings {
		rel, _ := filepath.Rel(dir, f.File)
		byFile[filepath.ToSlash(rel)] = append(byFile[filepath.ToSlash(rel)], f)
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := byFile[tt.file]
			if tt.rule == "" {
				if len(got) > 0 {
					t.Errorf("want no finding, got %+v", got)
				}
				return
			}
			if len(got) == 0 || !tt.perFile && len(got) != 1 {
				t.Fatalf("want one %s finding, got %+v", tt.rule, got)
			}
			f := got[0]
			if f.Rule != tt.rule || !strings.Contains(f.Message, tt.text) {
				t.Errorf("got %s %q, want %s containing %q", f.Rule, f.Message, tt.rule, tt.text)
			}
			if tt.line != 0 && (f.Line != tt.line || tt.col != 0 && f.Column != tt.col) {
				t.Errorf("at %d:%d, want %d:%d", f.Line, f.Column, tt.line, tt.col)
			}
		})
	}
	for file := range byFile {
		if strings.Contains(file, "fifo") || strings.Contains(file, "loop") || strings.Contains(file, "up/") {
			t.Errorf("special file or loop was read: %s %+v", file, byFile[file])
		}
	}
}

// TestHostilePathsNamedExplicitly: a FIFO, a device, a symlink loop and a
// missing file named on the command line are reported, not read (a FIFO
// would block), and the other paths are still linted.
func TestHostilePathsNamedExplicitly(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte(goodYAML), 0o644)
	loop := filepath.Join(dir, "loop.yaml")
	os.Symlink("loop.yaml", loop)
	fifo := filepath.Join(dir, "fifo.yaml")
	paths := []string{loop, filepath.Join(dir, "missing.yaml"), os.DevNull}
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		paths = append(paths, fifo)
	}
	done := make(chan struct{})
	var findings []hostileFinding
	go func() {
		defer close(done)
		findings, _, _ = lintFindings(t, append(append([]string{"--fail-on", "none"}, paths...), good)...)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("lint blocked on a special file")
	}
	want := map[string]string{
		loop:                               "too many levels of symbolic links",
		filepath.Join(dir, "missing.yaml"): "no such file",
		os.DevNull:                         "not a regular file",
		fifo:                               "not a regular file",
		good:                               "unquoted value yes",
	}
	for _, p := range paths {
		if _, ok := want[p]; !ok {
			t.Fatalf("no expectation for %s", p)
		}
	}
	for _, p := range append(paths, good) {
		found := false
		for _, f := range findings {
			if f.File == p && strings.Contains(f.Message, want[p]) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no finding containing %q in %+v", p, want[p], findings)
		}
	}
}

// TestUnreadable: a file and a directory without read permission are
// reported; the rest is linted.
func TestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which reads files whatever their permissions: unreadable files cannot be simulated (CI runs as root)")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(goodYAML), 0o644)
	secret := filepath.Join(dir, "secret.yaml")
	os.WriteFile(secret, []byte(goodYAML), 0o000)
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o755)
	os.WriteFile(filepath.Join(locked, "x.yaml"), []byte(goodYAML), 0o644)
	os.Chmod(locked, 0o000)
	defer os.Chmod(locked, 0o755)
	findings, _, _ := lintFindings(t, "--fail-on", "none", dir)
	var seen []string
	for _, f := range findings {
		if f.Rule == "read-error" && strings.Contains(f.Message, "permission denied") {
			seen = append(seen, f.File)
		}
	}
	if len(seen) != 2 {
		t.Errorf("want read-errors for secret.yaml and locked/, got %v in %+v", seen, findings)
	}
}

// TestVanishingDirectory: files that disappear between the walk and the
// read (a directory removed by a concurrent checkout) are reported.
func TestVanishingDirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for i := range 20 {
		os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%02d.yaml", i)), []byte(goodYAML), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(goodYAML), 0o644)
	// Remove the directory while lint runs, as often as it takes to catch
	// a walk in progress: whatever the timing, lint must not fail.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				os.RemoveAll(sub)
				os.Mkdir(sub, 0o755)
				for i := range 20 {
					os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%02d.yaml", i)), []byte(goodYAML), 0o644)
				}
			}
		}
	}()
	for range 20 {
		findings, code, stderr := lintFindings(t, "--fail-on", "none", dir)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		good := false
		for _, f := range findings {
			if f.Rule != "ambiguous-scalar" && f.Rule != "read-error" {
				t.Errorf("unexpected %+v", f)
			}
			good = good || f.File == filepath.Join(dir, "good.yaml")
		}
		if !good {
			t.Error("good.yaml was not linted")
		}
	}
	close(stop)
	wg.Wait()
}

// TestFixReadOnlyFile: a read-only file is reported and left alone, the
// other files are fixed. The check reads the permission bits, so it holds
// when running as root too.
func TestFixReadOnlyFile(t *testing.T) {
	dir := t.TempDir()
	ro, rw := filepath.Join(dir, "ro.yaml"), filepath.Join(dir, "rw.yaml")
	os.WriteFile(ro, []byte(goodYAML), 0o444)
	os.WriteFile(rw, []byte(goodYAML), 0o644)
	var stdout, stderr bytes.Buffer
	code := run([]string{"fix", "--fail-on", "none", dir}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFindings {
		t.Errorf("exit %d, want %d", code, exitFindings)
	}
	if !strings.Contains(stderr.String(), ro+": cannot fix: read-only file") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if got, _ := os.ReadFile(ro); string(got) != goodYAML {
		t.Errorf("read-only file changed: %q", got)
	}
	if got, _ := os.ReadFile(rw); !strings.Contains(string(got), `enabled: "yes"`) {
		t.Errorf("writable file not fixed: %q", got)
	}
}

// TestConcurrentFixRuns: several `fix` runs over the same tree at once.
// Every file ends as one whole fixed version (the same as a lone run
// makes), never a mix of two writers, and no temporary file is left.
func TestConcurrentFixRuns(t *testing.T) {
	dir, ref := t.TempDir(), t.TempDir()
	var files []string
	for i := range 30 {
		src := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm%d\n  labels: {on: yes}\ndata:\n  a: %d.10\n  b: off\n%s", i, i, strings.Repeat("  # padding\n", i*20))
		name := fmt.Sprintf("cm%02d.yaml", i)
		files = append(files, name)
		os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)
		os.WriteFile(filepath.Join(ref, name), []byte(src), 0o644)
	}
	var out bytes.Buffer
	run([]string{"fix", "--fail-on", "none", ref}, strings.NewReader(""), &out, &out)

	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout, stderr bytes.Buffer
			run([]string{"fix", "--fail-on", "none", dir}, strings.NewReader(""), &stdout, &stderr)
			// Losing a race is fine ("file changed ... skipped"); any
			// other failure is not.
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if l != "" && !strings.Contains(l, "file changed while shipshape was fixing it") {
					t.Errorf("stderr: %s", l)
				}
			}
		}()
	}
	wg.Wait()
	// A file whose every writer lost a race is fixed by one more run.
	run([]string{"fix", "--fail-on", "none", dir}, strings.NewReader(""), &out, &out)
	for _, name := range files {
		got, _ := os.ReadFile(filepath.Join(dir, name))
		want, _ := os.ReadFile(filepath.Join(ref, name))
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got, want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(files) {
		t.Errorf("%d entries in the directory, want %d (temporary files left?)", len(entries), len(files))
	}
}

// TestNoNetworkNoExec: shipshape's own packages, all those the binary is
// built from, import nothing that opens connections or starts processes.
// (Libraries it links may; shipshape never calls those paths.) The one
// exception is internal/chartfetch, the opt-in chart fetching: it is
// reached only through the Fetcher `lint --fetch-charts` makes
// (TestFleetWithoutFetching and TestFnNeverFetches count the requests
// made without it: none), and it may not start processes either.
func TestNoNetworkNoExec(t *testing.T) {
	const module = "github.com/shipshape-dev/shipshape"
	forbidden := map[string]bool{"net": true, "net/http": true, "net/rpc": true, "os/exec": true, "plugin": true}
	fetches := module + "/internal/chartfetch"
	seen := map[string]bool{}
	var visit func(pkg string)
	visit = func(pkg string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		dir := filepath.Join("..", "..", strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/"))
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range p.Imports {
			if forbidden[imp] && !(pkg == fetches && (imp == "net" || imp == "net/http")) {
				t.Errorf("%s imports %s", pkg, imp)
			}
			if strings.HasPrefix(imp, module+"/") {
				visit(imp)
			}
		}
	}
	visit(module + "/cmd/shipshape")
	if len(seen) < 5 {
		t.Fatalf("only %d packages visited", len(seen))
	}
}

// budgetAliasBomb is aliasBomb in an object no rule judges the fields of:
// the only finding its file can get is the root's.
func budgetAliasBomb() []byte {
	s := strings.Replace(string(aliasBomb()), "apiVersion: v1\nkind: ConfigMap", "apiVersion: example.com/v1\nkind: Bomb", 1)
	return []byte(strings.Replace(s, "\ndata:\n", "\nspec:\n", 1))
}

// hugeConfigMap has keys keys under data: kustomize's library takes time
// in the square of a mapping's keys (150,000: about 4 minutes).
func hugeConfigMap(keys int) []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n")
	for i := range keys {
		fmt.Fprintf(&b, "  k%d: v\n", i)
	}
	return b.Bytes()
}

// writeBudgetTree writes the hostile kustomize roots of issue 31 (vectors
// 2 and 5) beside a good root and a plain file, and returns its directory.
func writeBudgetTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"bomb/kustomization.yaml": []byte("resources:\n  - cm.yaml\n  - bomb.yaml\n"),
		"bomb/cm.yaml":            []byte(strings.Replace(goodYAML, "name: good", "name: beside-bomb", 1)),
		"bomb/bomb.yaml":          budgetAliasBomb(),
		"huge/kustomization.yaml": []byte("resources: [cm.yaml]\n"),
		"huge/cm.yaml":            hugeConfigMap(150000),
		"good/kustomization.yaml": []byte("resources: [cm.yaml]\n"),
		"good/cm.yaml":            []byte(goodYAML),
		"plain.yaml":              []byte(goodYAML),
	}
	for p, data := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHostileRenderBudgets: a root listing an alias bomb and a root with
// a ConfigMap of 150,000 keys each get one render-budget finding, where
// the cost is, and the run goes on: the other root renders, every file is
// judged. (Before the budgets the bomb took the machine's memory and the
// ConfigMap about ten minutes of kustomize's time.)
func TestHostileRenderBudgets(t *testing.T) {
	dir := writeBudgetTree(t)
	findings, code, stderr := lintFindings(t, "--fail-on", "none", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	byFile := map[string][]hostileFinding{}
	for _, f := range findings {
		rel, _ := filepath.Rel(dir, f.File)
		byFile[filepath.ToSlash(rel)] = append(byFile[filepath.ToSlash(rel)], f)
	}
	want := map[string]hostileFinding{
		"bomb/bomb.yaml": {Rule: "render-budget", Line: 9, Column: 32,
			Message: "the root is not rendered: the alias *b1 makes the document expand to 4.9e+09 nodes, most of them copies made by aliases"},
		"huge/cm.yaml": {Rule: "render-budget", Line: 6, Column: 3,
			Message: "the root is not rendered: kustomize's library would take about 113 s over it (a mapping of 150000 keys here; its time grows with the square of a mapping's keys), over the render time budget of 1m0s; raise it with --render-time"},
		"bomb/cm.yaml": {Rule: "ambiguous-scalar", Line: 6, Column: 12, Message: "unquoted value yes"},
		"good/cm.yaml": {Rule: "ambiguous-scalar", Line: 6, Column: 12, Message: "unquoted value yes: kustomize, which reads this file"},
		"plain.yaml":   {Rule: "ambiguous-scalar", Line: 6, Column: 12, Message: "unquoted value yes"},
	}
	for file, w := range want {
		got := byFile[file]
		if len(got) != 1 || got[0].Rule != w.Rule || got[0].Line != w.Line || got[0].Column != w.Column || !strings.Contains(got[0].Message, w.Message) {
			t.Errorf("%s: got %+v, want one %s at %d:%d containing %q", file, got, w.Rule, w.Line, w.Column, w.Message)
		}
	}
	if len(byFile) != len(want) {
		t.Errorf("findings in %d files, want %d: %+v", len(byFile), len(want), byFile)
	}
}
