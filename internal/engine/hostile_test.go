package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// TestPanicIsPerFile: a panic while one file is processed (here in the
// fix hook, which runs in the same worker) becomes an internal-error
// finding that names that file; the other files are linted as usual.
func TestPanicIsPerFile(t *testing.T) {
	dir := t.TempDir()
	var inputs []manifest.Input
	for _, name := range []string{"a.yaml", "boom.yaml", "c.yaml"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: yes}\n"), 0o644)
		inputs = append(inputs, manifest.Input{Path: p})
	}
	// A rule with a bug, like a real one: a nil map write on one file.
	boom := &analysis.Rule{ID: "boom", Targets: analysis.Objects, Check: func(p *analysis.Pass) {
		if strings.HasSuffix(p.Object.File, "boom.yaml") {
			var m map[string]int
			m["x"]++
		}
	}}
	eng, err := engine.New(append(rules.All(), boom), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := eng.Run(inputs)
	for i, fr := range res.Files {
		boom := strings.HasSuffix(fr.Input.Path, "boom.yaml")
		if len(fr.Findings) != 1 {
			t.Fatalf("%s: %+v", fr.Input.Path, fr.Findings)
		}
		f := fr.Findings[0]
		switch {
		case boom && (f.Rule != engine.InternalErrorID || f.File != inputs[i].Path || !strings.Contains(f.Message, "assignment to entry in nil map")):
			t.Errorf("boom.yaml: %+v", f)
		case !boom && f.Rule != "ambiguous-scalar":
			t.Errorf("%s: %+v", fr.Input.Path, f)
		}
	}
}

// TestVanishedBeforeRead: files listed by the walk and gone before they
// are read (a checkout in progress) get a read-error each; the rest of
// the run goes on.
func TestVanishedBeforeRead(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, p := range []string{filepath.Join(sub, "a.yaml"), filepath.Join(sub, "b.yaml"), filepath.Join(dir, "c.yaml")} {
		os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: yes}\n"), 0o644)
	}
	inputs, errs := manifest.Collect([]string{dir})
	if len(inputs) != 3 || len(errs) != 0 {
		t.Fatalf("inputs %v, errors %v", inputs, errs)
	}
	os.RemoveAll(sub)
	eng, _ := engine.New(rules.All(), nil, nil, nil)
	res := eng.Run(inputs)
	for _, fr := range res.Files {
		gone := strings.Contains(fr.Input.Path, "sub")
		if len(fr.Findings) != 1 {
			t.Fatalf("%s: %+v", fr.Input.Path, fr.Findings)
		}
		f := fr.Findings[0]
		if gone && (f.Rule != engine.InputErrorID || !strings.Contains(f.Message, "no such file")) || !gone && f.Rule != "ambiguous-scalar" {
			t.Errorf("%s: %+v", fr.Input.Path, f)
		}
	}
}
