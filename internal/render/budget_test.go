package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// aliasBomb is "billion laughs" in a custom object: levels levels of nine
// references each, the last (levels+5) line holding the outermost.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: example.com/v1\nkind: Bomb\nmetadata:\n  name: bomb\nspec:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for i := range levels - 1 {
		name := fmt.Sprintf("b%d", i)
		fmt.Fprintf(&b, "  %s: &%s [%s]\n", name, name, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
		prev = name
	}
	return b.String()
}

// fanOut is a document with refs aliases to one mapping of width keys:
// its aliased share straddles go-yaml's guard as refs and width vary.
func fanOut(width, refs int) string {
	var b strings.Builder
	b.WriteString("base: &m {")
	for i := range width {
		fmt.Fprintf(&b, "k%d: v, ", i)
	}
	b.WriteString("}\nrefs:\n")
	for range refs {
		b.WriteString("- *m\n")
	}
	return b.String()
}

// TestExpansionGuardIsGoYAMLs: measure refuses exactly the documents
// go-yaml's own decoder refuses when it expands them (as kubectl's does),
// judged without expanding anything.
func TestExpansionGuardIsGoYAMLs(t *testing.T) {
	inputs := map[string]string{
		"bomb 10 levels": aliasBomb(10),
		"bomb 4 levels":  aliasBomb(4), // 9^4 strings: within the guard
		"bomb 5 levels":  aliasBomb(5),
		"plain":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: b}\n",
		"a few aliases":  "x: &x {a: 1, b: 2}\ny: *x\nz: [*x, *x]\n",
		"merge keys":     "base: &b {a: 1}\nm: {<<: *b, c: 2}\n",
	}
	// Around the guard's 99% (100 keys: 201 nodes an alias, 99.5%
	// aliased), and on its slope from 400,000 nodes (10 keys: 95.5%
	// aliased, refused from about 543,000 nodes).
	for _, wr := range [][2]int{{10, 50}, {10, 120}, {100, 20}, {100, 200}, {10, 20000}, {10, 26000}} {
		inputs[fmt.Sprintf("fan-out %dx%d", wr[0], wr[1])] = fanOut(wr[0], wr[1])
	}
	refusedSome, passedSome := false, false
	for name, src := range inputs {
		t.Run(name, func(t *testing.T) {
			var v any
			goyamlErr := yaml.Unmarshal([]byte(src), &v)
			goyamlRefuses := goyamlErr != nil && strings.Contains(goyamlErr.Error(), "excessive aliasing")
			if goyamlErr != nil && !goyamlRefuses {
				t.Fatalf("go-yaml: %v", goyamlErr)
			}
			c := measure("f.yaml", []byte(src))
			if refused := c.refused != nil; refused != goyamlRefuses {
				t.Fatalf("refused %v (%v), go-yaml refuses %v", refused, c.refused, goyamlRefuses)
			}
			if c.refused != nil {
				refusedSome = true
				if c.refused.Reason != ExcessiveAliasing || c.refused.Line < 1 || c.refused.Alias == "" {
					t.Errorf("refusal %+v", c.refused)
				}
			} else {
				passedSome = true
			}
		})
	}
	if !refusedSome || !passedSome {
		t.Errorf("the inputs do not straddle the guard: refused some %v, passed some %v", refusedSome, passedSome)
	}
}

func TestExpansionGuardPositions(t *testing.T) {
	c := measure("bomb.yaml", []byte(aliasBomb(10)))
	// go-yaml fails inside the second level's first alias: *b1, on line 9.
	if e := c.refused; e == nil || e.Reason != ExcessiveAliasing || e.Line != 9 || e.Column != 32 || e.Alias != "b1" {
		t.Errorf("bomb: %+v", c.refused)
	}
	c = measure("cycle.yaml", []byte("a: 1\nb: &x [1, {c: *x}]\n"))
	if e := c.refused; e == nil || e.Reason != AliasCycle || e.Line != 2 || e.Column != 15 || e.Alias != "x" {
		t.Errorf("cycle: %+v", c.refused)
	}
	var v any
	if err := yaml.Unmarshal([]byte("a: 1\nb: &x [1, {c: *x}]\n"), &v); err == nil || !strings.Contains(err.Error(), "contains itself") {
		t.Errorf("go-yaml on the cycle: %v", err)
	}
	// The growth of a file whose aliases pass counts the copies.
	c = measure("ok.yaml", []byte("x: &x {a: 1, b: 2}\ny: *x\nz: *x\n"))
	if c.refused != nil || c.growth <= 1 {
		t.Errorf("growth %v, refused %v", c.growth, c.refused)
	}
}

// budgetTree writes files (path -> content) under a temporary directory
// and renders every root with budget b.
func budgetTree(t *testing.T, b Budget, files map[string]string) (string, map[string]*Result) {
	t.Helper()
	dir := t.TempDir()
	for p, src := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(g)
	r.Budget = b
	out := map[string]*Result{}
	for _, root := range g.Roots {
		rel, _ := filepath.Rel(dir, root.Dir)
		out[rel] = r.Render(root)
	}
	return dir, out
}

const budgetCM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n"

func wideConfigMap(keys int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wide\ndata:\n")
	for i := range keys {
		fmt.Fprintf(&b, "  k%d: v\n", i)
	}
	return b.String()
}

func TestRenderBudget(t *testing.T) {
	dir, res := budgetTree(t, Budget{Time: 2 * time.Second}, map[string]string{
		"bomb/kustomization.yaml":  "resources:\n  - cm.yaml\n  - bomb.yaml\n",
		"bomb/cm.yaml":             budgetCM,
		"bomb/bomb.yaml":           aliasBomb(10),
		"cycle/kustomization.yaml": "resources: [cycle.yaml]\n",
		"cycle/cycle.yaml":         "apiVersion: v1\nkind: List\nitems: &i [*i]\n",
		"wide/kustomization.yaml":  "resources: [wide.yaml]\n",
		"wide/wide.yaml":           wideConfigMap(25000), // 25,000² · 5e-9 s ≈ 3 s
		"good/kustomization.yaml":  "resources: [cm.yaml]\n",
		"good/cm.yaml":             budgetCM,
		// Generator data is not read as YAML: its aliases are text.
		"data/kustomization.yaml": "configMapGenerator:\n  - name: d\n    files: [bomb.yaml]\n",
		"data/bomb.yaml":          aliasBomb(10),
	})
	want := map[string]struct {
		file      string
		line, col int
		text      string
	}{
		"bomb":  {"bomb/bomb.yaml", 9, 32, "the alias *b1 makes the document expand to 4.9e+09 nodes"},
		"cycle": {"cycle/cycle.yaml", 3, 12, "the alias *i is inside the node it names"},
		"wide":  {"wide/wide.yaml", 6, 3, "would take about 3 s over it (a mapping of 25000 keys here"},
	}
	for name, r := range res {
		w, ok := want[name]
		if !ok {
			if r.Problem != nil || len(r.Objects) == 0 {
				t.Errorf("%s: %v, %d objects", name, r.Problem, len(r.Objects))
			}
			continue
		}
		p := r.Problem
		if p == nil || !p.Budget || !p.Refused || p.File != filepath.Join(dir, w.file) || p.Line != w.line || p.Column != w.col || !strings.Contains(p.Message, w.text) {
			t.Errorf("%s: %+v, want %s:%d:%d %q", name, p, w.file, w.line, w.col, w.text)
		}
	}
	if len(res) != 5 {
		t.Errorf("%d roots rendered", len(res))
	}
}

func TestRenderMemoryBudget(t *testing.T) {
	big := wideConfigMap(2000) // 20 kB: 1.6 MB estimated
	dir, res := budgetTree(t, Budget{Memory: 1 << 20}, map[string]string{
		"big/kustomization.yaml":   "resources: [wide.yaml]\n",
		"big/wide.yaml":            big,
		"small/kustomization.yaml": "resources: [cm.yaml]\n",
		"small/cm.yaml":            budgetCM,
	})
	p := res["big"].Problem
	if p == nil || !p.Budget || p.File != filepath.Join(dir, "big/wide.yaml") || p.Line != 1 ||
		!strings.Contains(p.Message, "over the render memory budget of 1 MiB; raise it with --render-memory") {
		t.Errorf("big: %+v", p)
	}
	if res["small"].Problem != nil {
		t.Errorf("small: %v", res["small"].Problem)
	}
}

// TestRenderWatchdog: a root still rendering when its time is up is
// abandoned and reported at its kustomization. A microsecond is less than
// any build takes (kustomize reads two files), and more than the root's
// estimate (a few hundred nanoseconds), so the watchdog, not the
// estimate, stops it.
func TestRenderWatchdog(t *testing.T) {
	dir, res := budgetTree(t, Budget{Time: time.Microsecond}, map[string]string{
		"kustomization.yaml": "resources:\n- cm.yaml\n",
		"cm.yaml":            budgetCM,
	})
	p := res["."].Problem
	if p == nil || !p.Budget || p.File != filepath.Join(dir, "kustomization.yaml") || p.Line != 1 ||
		!strings.Contains(p.Message, "was still rendering it after the render time budget of 1µs (of CPU time), and was abandoned") {
		t.Errorf("%+v", p)
	}
}

// TestCorpusWithinBudget: no root of the kustomize corpus meets the
// default budget's estimates.
func TestCorpusWithinBudget(t *testing.T) {
	corpus := os.Getenv("SHIPSHAPE_KUSTOMIZE_CORPUS")
	if corpus == "" {
		t.Skip("SHIPSHAPE_KUSTOMIZE_CORPUS is not set (the kustomize corpus, ../shared/kustomize-corpus)")
	}
	g, err := Discover(corpusTrees(t, corpus))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(g)
	for _, root := range g.Roots {
		if p := r.overBudget(root); p != nil {
			t.Errorf("%s: %v", root.Dir, p)
		}
	}
	if len(g.Roots) < 20 {
		t.Errorf("only %d roots", len(g.Roots))
	}
}
