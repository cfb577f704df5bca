package krm_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/krm"
	"github.com/shipshape-dev/shipshape/rules"
)

const fixConfig = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: shipshape\n  data:\n    mode: fix\n"

// Every case is run by Run and by kyaml's path alone, and must come out the
// same; fast says whether Run may take its fast path (the shape kustomize
// and kpt write) or must leave the list to kyaml.
func TestFastPathMatchesFramework(t *testing.T) {
	const head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
	const cm = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n  data:\n    on: yes\n"
	many := func(n int, format string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, format, i)
		}
		return b.String()
	}
	tests := []struct {
		name string
		in   string
		fast bool
	}{
		{"compact items", head + "items:\n" + many(40, cm), true},
		{"compact items, fix", head + "items:\n" + many(40, cm) + fixConfig, true},
		{"indented items, config first", head + strings.ReplaceAll(fixConfig, "\n", "\n") + "items:\n" + indentLines(many(40, cm), "  "), true},
		{"comments between items", head + "items:\n" + many(3, cm+"# after %[1]d\n\n") + fixConfig, true},
		// The first item's head comment counts in the lines of its
		// findings, and the first piece would start below it.
		{"a comment above the first item", head + "items:\n# first\n" + many(3, cm), false},
		{"a comment above the first item, fix", head + "items:\n# first\n" + many(3, cm) + fixConfig, false},
		{"a blank line above the first item", head + "items:\n\n" + many(3, cm), false},
		{"items then a comment at the end", head + "items:\n" + many(3, cm) + "# end\n", true},
		{"no final line break", strings.TrimSuffix(head+"items:\n"+many(3, cm), "\n"), false},
		{"CRLF", strings.ReplaceAll(head+"items:\n"+many(3, cm), "\n", "\r\n"), false},
		{"document marker", "---\n" + head + "items:\n" + many(3, cm), false},
		{"flow items", head + "items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {on: yes}}]\n", false},
		{"empty items", head + "items: []\n", false},
		{"results already there", head + "items:\n" + many(3, cm) + "results: []\n", false},
		{"a List, not a ResourceList", "apiVersion: v1\nkind: List\nitems:\n" + many(3, cm), false},
		{"alias across items", head + "items:\n- &x\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data: {on: yes}\n" + many(40, cm) + "- *x\n", false},
		{"quoted scalar running over an entry line", head + "items:\n" + many(20, cm) + "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: q\n  data:\n    a: \"one\n- two\"\n" + many(20, cm), false},
		{"items key inside a quoted scalar", head + "note: \"x\nitems:\n- y\"\n", false},
		{"tab before an entry", head + "items:\n" + many(3, cm) + "\t- x\n", false},
		{"entry less indented than the first", head + "items:\n  - a\n - b\n", false},
		{"duplicate items key", head + "items:\n" + many(2, cm) + "items:\n" + many(2, cm), false},
		{"bad functionConfig", head + "items:\n" + many(3, cm) + "functionConfig: [1]\n", false},
		{"fixes the byte applier refuses", head + "items:\n" + many(3, cm) + "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: e\n  data:\n    empty:\n" + fixConfig, true},
		{"last line an entry", head + "items:\n" + many(2, cm) + "-\n", false},
		{"items key on the last line", head + "items:\n", false},
		{"null item and scalar item", head + "items:\n-\n- text\n" + many(2, cm), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := krm.FastPath([]byte(tt.in)); got != tt.fast {
				t.Errorf("fast path taken = %v, want %v", got, tt.fast)
			}
			sameAsFramework(t, []byte(tt.in))
		})
	}
	// The goldens' inputs, kustomize-items.yaml captured from kustomize
	// build: all but the bad functionConfig take the fast path.
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Base(f) != "bad-config.yaml"; krm.FastPath(in) != want {
				t.Errorf("fast path taken = %v, want %v", !want, want)
			}
			sameAsFramework(t, in)
		})
	}
}

// The corpus as kustomize (compact) and yaml.v3 (indented) write it, linted
// and fixed: the fast path must be taken, and agree. Under the race
// detector the list is cut as the corpus is (corpus.Sample).
func TestFastPathMatchesFrameworkCorpus(t *testing.T) {
	files := corpus.Sample(t, corpus.Files(t), nil)
	items := 1000 / corpus.Stride()
	for _, compact := range []bool{true, false} {
		rl, err := corpus.ResourceList(files, items, compact)
		if err != nil {
			t.Fatal(err)
		}
		for _, config := range []string{"", fixConfig} {
			t.Run(fmt.Sprintf("compact=%v fix=%v", compact, config != ""), func(t *testing.T) {
				in := append(append([]byte(nil), rl...), config...)
				if !krm.FastPath(in) {
					t.Fatal("fast path not taken")
				}
				sameAsFramework(t, in)
			})
		}
	}
}

// sameAsFramework runs in through Run and through kyaml's
// framework.Execute and fails t unless both give the same outcome and
// write ResourceLists that kyaml reads to the same items and results (and
// Run's general path writes the very same bytes). In fix mode the fast path edits the
// bytes, so the positions of the findings left may differ (lines deleted
// or added above them): line and column tags are not compared there.
func sameAsFramework(t *testing.T, in []byte) {
	t.Helper()
	var got, want bytes.Buffer
	gotOut, gotErr := krm.Run(bytes.NewReader(in), &got, rules.All())
	wantOut, wantErr := krm.RunFramework(bytes.NewReader(in), &want)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, kyaml's path: %v", gotErr, wantErr)
	}
	if wantErr != nil && want.Len() == 0 {
		return
	}
	// The general path is framework.Execute's copy: the same bytes.
	var general bytes.Buffer
	if _, err := krm.RunGeneral(bytes.NewReader(in), &general, rules.All()); fmt.Sprint(err) != fmt.Sprint(wantErr) || !bytes.Equal(general.Bytes(), want.Bytes()) {
		t.Errorf("general path: error %v, wrote\n%s\nkyaml's framework.Execute: error %v, wrote\n%s", err, general.Bytes(), wantErr, want.Bytes())
	}
	fix := wantOut.Mode == "fix"
	if gotOut.Mode != wantOut.Mode || gotOut.FailOn != wantOut.FailOn {
		t.Errorf("mode %q failOn %q, kyaml's path: %q %q", gotOut.Mode, gotOut.FailOn, wantOut.Mode, wantOut.FailOn)
	}
	for _, c := range []struct {
		what      string
		got, want []analysis.Finding
	}{{"findings", gotOut.Findings, wantOut.Findings}, {"failing", gotOut.Failing, wantOut.Failing}, {"fixed", gotOut.Fixed, wantOut.Fixed}} {
		if g, w := findingKeys(c.got, fix), findingKeys(c.want, fix); !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n%s\nkyaml's path:\n%s", c.what, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
	gotItems, gotResults := readBack(t, got.Bytes(), fix)
	wantItems, wantResults := readBack(t, want.Bytes(), fix)
	inItems, _ := readBack(t, in, false)
	if !fix && krm.FastPath(in) && !reflect.DeepEqual(gotItems, inItems) {
		t.Errorf("lint mode changed the items: %s", firstDiff(strings.Join(gotItems, "\n"), strings.Join(inItems, "\n")))
	}
	// kyaml's path is the reference for the items only where its own
	// round trip keeps them (it writes `{{}}` back as `{{}: ""}`).
	if reflect.DeepEqual(roundTrip(t, in), inItems) && !reflect.DeepEqual(gotItems, wantItems) {
		t.Errorf("items differ: %s", firstDiff(strings.Join(gotItems, "\n"), strings.Join(wantItems, "\n")))
	}
	if gotResults != wantResults {
		t.Errorf("results differ: %s", firstDiff(gotResults, wantResults))
	}
}

func findingKeys(fs []analysis.Finding, fix bool) []string {
	var out []string
	for _, f := range fs {
		k := fmt.Sprintf("%s %d %s %s %s %v", f.Rule, f.Doc, f.Resource, f.Field, f.Message, f.Fix != nil)
		if !fix {
			k += fmt.Sprintf(" %d:%d", f.Line, f.Column)
		}
		out = append(out, k)
	}
	return out
}

// readBack reads a written ResourceList as kpt and kustomize do: the items
// as values (what the bytes mean, not how they are laid out) and the
// results as kyaml writes them.
func readBack(t *testing.T, out []byte, fix bool) (items []string, results string) {
	t.Helper()
	r := &kio.ByteReader{Reader: bytes.NewReader(out), OmitReaderAnnotations: true}
	nodes, err := r.Read()
	if err != nil {
		t.Fatalf("output is not a ResourceList kyaml reads: %v\n%s", err, out)
	}
	for _, n := range nodes {
		// kustomize and kpt add this id to the items they send, and clear
		// it from what comes back (kyaml's FunctionFilter); kyaml's
		// framework clears it on the function's side too, the fast path
		// hands the item back as it came. (Metadata that is not a mapping
		// has no annotation to clear.)
		_ = n.PipeE(yaml.ClearAnnotation(kioutil.InternalAnnotationsMigrationResourceIDAnnotation))
		items = append(items, canonical(t, n.YNode()))
	}
	if r.Results != nil {
		if fix {
			for _, res := range r.Results.Content() {
				if tags := yaml.NewRNode(res).Field("tags"); tags != nil {
					for _, k := range []string{"line", "column"} {
						if err := tags.Value.PipeE(yaml.Clear(k)); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
		results = r.Results.MustString()
	}
	return items, results
}

// roundTrip is the items of in after kyaml has read and written them, nil
// when it cannot.
func roundTrip(t *testing.T, in []byte) []string {
	t.Helper()
	var out bytes.Buffer
	rw := &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: &out, KeepReaderAnnotations: true}
	nodes, err := rw.Read()
	if err == nil {
		err = rw.Write(nodes)
	}
	if err != nil {
		return nil // kyaml cannot: no reference
	}
	items, _ := readBack(t, out.Bytes(), false)
	return items
}

// canonical is n as yaml.v3 writes it without styles and comments: what
// the value is, not how it was laid out (duplicate keys included, which a
// decoded map would refuse).
func canonical(t *testing.T, n *yaml.Node) string {
	var strip func(n *yaml.Node)
	strip = func(n *yaml.Node) {
		n.Style &^= yaml.LiteralStyle | yaml.FoldedStyle | yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.FlowStyle
		n.HeadComment, n.LineComment, n.FootComment = "", "", ""
		for _, c := range n.Content {
			strip(c)
		}
	}
	strip(n)
	s, err := yaml.String(n)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func indentLines(s, by string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = by + l
		}
	}
	return strings.Join(lines, "")
}

// firstDiff shows where got and want part: the first line that differs,
// with the lines before it.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n%s\ngot:  %q\nwant: %q", i+1, strings.Join(w[max(0, i-12):i], "\n"), gl, wl)
		}
	}
	return "(equal)"
}
