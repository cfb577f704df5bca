package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// TestRecordPlacesFinding is the placement policy as a table: a finding
// about a rendered object (Rendered, File its root's kustomization) and
// the render.Location its field was traced to, in, and the findings the
// file at that location holds after, out.
func TestRecordPlacesFinding(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base", "deploy.yaml")
	kust := filepath.Join(dir, "overlay", "kustomization.yaml")
	for path, data := range map[string]string{
		base: "apiVersion: apps/v1\nkind: Deployment\n",
		kust: "resources: [../base]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rendered := func(msg string) analysis.Finding {
		return analysis.Finding{Rule: "r", Message: msg, Resource: manifest.Resource{Kind: "Deployment", Name: "web"},
			Field: "spec.replicas", File: kust, Line: 9, Column: 9, Doc: 0, Item: -1, Rendered: true,
			Fix: &analysis.Fix{Message: "fix"}}
	}
	inBase := render.Location{Source: render.FromBase, File: base, Line: 2, Column: 3, Doc: 1, Exact: true}
	type placing struct {
		f    analysis.Finding
		loc  render.Location
		root string
	}
	tests := []struct {
		name  string
		in    []placing
		file  string // the file whose findings are compared
		wants []analysis.Finding
	}{{
		name: "at the source position, in the source file, naming the root",
		in:   []placing{{rendered("m"), inBase, "overlay"}},
		file: base,
		wants: []analysis.Finding{{Rule: "r", Message: "m", Resource: manifest.Resource{Kind: "Deployment", Name: "web"},
			Field: "spec.replicas", File: "base/deploy.yaml", Line: 2, Column: 3, Doc: 1, Item: -1,
			Roots: []string{"overlay"}, Fix: &analysis.Fix{Message: "fix"}}},
	}, {
		name: "no source byte: at the root's kustomization, 1:1, saying why, without its fix",
		in:   []placing{{rendered("m"), render.Location{Source: render.FromRendered, File: kust, Why: "a var set it"}, "overlay"}},
		file: kust,
		wants: []analysis.Finding{{Rule: "r", Message: "m (in what kustomize renders from overlay: a var set it)",
			Resource: manifest.Resource{Kind: "Deployment", Name: "web"}, Field: "spec.replicas",
			File: "overlay/kustomization.yaml", Line: 1, Column: 1, Doc: -1, Item: -1, Roots: []string{"overlay"}}},
	}, {
		name: "the same finding from a second root is one finding naming both",
		in:   []placing{{rendered("m"), inBase, "overlay"}, {rendered("m"), inBase, "other"}},
		file: base,
		wants: []analysis.Finding{{Rule: "r", Message: "m", Resource: manifest.Resource{Kind: "Deployment", Name: "web"},
			Field: "spec.replicas", File: "base/deploy.yaml", Line: 2, Column: 3, Doc: 1, Item: -1,
			Roots: []string{"overlay", "other"}, Fix: &analysis.Fix{Message: "fix"}}},
	}, {
		name: "the same finding twice from one root is one",
		in:   []placing{{rendered("m"), inBase, "overlay"}, {rendered("m"), inBase, "overlay"}},
		file: base,
		wants: []analysis.Finding{{Rule: "r", Message: "m", Resource: manifest.Resource{Kind: "Deployment", Name: "web"},
			Field: "spec.replicas", File: "base/deploy.yaml", Line: 2, Column: 3, Doc: 1, Item: -1,
			Roots: []string{"overlay"}, Fix: &analysis.Fix{Message: "fix"}}},
	}, {
		name: "another message at the same place is another finding",
		in:   []placing{{rendered("m"), inBase, "overlay"}, {rendered("n"), inBase, "overlay"}},
		file: base,
		wants: []analysis.Finding{{Rule: "r", Message: "m", Resource: manifest.Resource{Kind: "Deployment", Name: "web"},
			Field: "spec.replicas", File: "base/deploy.yaml", Line: 2, Column: 3, Doc: 1, Item: -1,
			Roots: []string{"overlay"}, Fix: &analysis.Fix{Message: "fix"}}, {Rule: "r", Message: "n", Resource: manifest.Resource{Kind: "Deployment", Name: "web"},
			Field: "spec.replicas", File: "base/deploy.yaml", Line: 2, Column: 3, Doc: 1, Item: -1,
			Roots: []string{"overlay"}, Fix: &analysis.Fix{Message: "fix"}}},
	}}
	e, err := New(nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := render.Discover([]string{dir})
			rs := &renderState{graph: g, excluded: func(string) bool { return false }, contains: func(string) bool { return true }, maxFileSize: DefaultMaxFileSize}
			rs.named = []namedDir{rs.nameDir(dir, dir)}
			// Shown as below the directory named, so the names are short.
			rs.named[0].name = ""
			files := map[string]*FileResult{}
			for _, p := range tt.in {
				e.record(rs, files, placedFinding{Finding: p.f, At: placeOf(p.loc), Root: p.root})
			}
			fr := files[rs.key(tt.file)]
			if fr == nil {
				t.Fatalf("no finding recorded in %s", tt.file)
			}
			if !reflect.DeepEqual(fr.Findings, tt.wants) {
				t.Errorf("placed:\n%+v\nwant:\n%+v", fr.Findings, tt.wants)
			}
		})
	}
}

// TestAtValue: a finding the rule reported at a rendered value (not at its
// key) moves from the source key to the source value, by the offset the
// source has between them; one at the key stays.
func TestAtValue(t *testing.T) {
	key := &yaml.Node{Kind: yaml.ScalarNode, Value: "replicas", Line: 5, Column: 3}
	val := &yaml.Node{Kind: yaml.ScalarNode, Value: "yes", Line: 5, Column: 13}
	srcKey := &yaml.Node{Kind: yaml.ScalarNode, Line: 7, Column: 5}
	srcVal := &yaml.Node{Kind: yaml.ScalarNode, Line: 7, Column: 15}
	loc := render.Location{Source: render.FromPatch, Line: 7, Column: 5, Key: srcKey, Value: srcVal}
	quote := &analysis.Fix{Edits: []analysis.Edit{{Op: analysis.Quote, Path: manifest.FieldPath{}.Key("spec").Key("replicas")}}}
	tests := []struct {
		name       string
		f          analysis.Finding
		line, col  int
		key, value *yaml.Node
	}{
		{"at the rendered value", analysis.Finding{Field: "spec.replicas", Line: 5, Column: 13}, 7, 15, key, val},
		{"at the rendered key", analysis.Finding{Field: "spec.replicas", Line: 5, Column: 3}, 7, 5, key, val},
		{"at the key, but its fix quotes the value", analysis.Finding{Field: "spec.replicas", Line: 5, Column: 3, Fix: quote}, 7, 15, key, val},
		{"a value kustomize made has its key's position: at the key", analysis.Finding{Field: "spec.replicas", Line: 5, Column: 3}, 7, 5, key, &yaml.Node{Line: 5, Column: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := atValue(tt.f, tt.key, tt.value, loc)
			if got.Line != tt.line || got.Column != tt.col {
				t.Errorf("at %d:%d, want %d:%d", got.Line, got.Column, tt.line, tt.col)
			}
		})
	}
	if got := atValue(analysis.Finding{Line: 5, Column: 13}, key, val, render.Location{Line: 7, Column: 5}); got.Line != 7 || got.Column != 5 {
		t.Errorf("a location without key and value nodes moved to %d:%d", got.Line, got.Column)
	}
}
