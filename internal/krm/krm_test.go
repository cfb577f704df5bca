package krm

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/report"
	"github.com/shipshape-dev/shipshape/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Each testdata/NAME.yaml is a ResourceList; NAME.golden is what the
// function writes on stdout and NAME.stderr what shipshape fn prints on
// stderr (the failing findings and the summary line).
func TestRunGolden(t *testing.T) {
	tests := []struct {
		name      string
		mode      string
		failing   int
		fixed     int
		configErr bool
	}{
		{name: "lint-kpt", mode: "lint", failing: 4},
		{name: "fix-configmap", mode: "fix", failing: 1, fixed: 6},
		{name: "clean-noconfig", mode: "lint"},
		{name: "kustomize-items", mode: "lint", failing: 1},
		{name: "failon-none", mode: "lint"},
		{name: "bad-config", mode: "lint", configErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tt.name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var stdout bytes.Buffer
			out, err := Run(bytes.NewReader(in), &stdout, rules.All())
			var ce *config.Error
			if tt.configErr != errors.As(err, &ce) {
				t.Fatalf("Run error = %v, want config error: %v", err, tt.configErr)
			}
			if err != nil && !tt.configErr {
				t.Fatal(err)
			}
			var stderr strings.Builder
			for _, f := range out.Failing {
				stderr.WriteString(report.Describe(f) + "\n")
			}
			if len(out.Failing) > 0 {
				stderr.WriteString(report.FailingSummary(out.Failing, out.FailOn, out.Mode) + "\n")
			}
			golden(t, tt.name+".golden", stdout.Bytes())
			golden(t, tt.name+".stderr", []byte(stderr.String()))
			if out.Mode != tt.mode || len(out.Failing) != tt.failing || len(out.Fixed) != tt.fixed {
				t.Errorf("mode %s, %d failing, %d fixed; want %s, %d, %d", out.Mode, len(out.Failing), len(out.Fixed), tt.mode, tt.failing, tt.fixed)
			}

			// Never drops or adds an item; the functionConfig is not one.
			before, after := items(t, in), items(t, stdout.Bytes())
			if len(before) != len(after) {
				t.Fatalf("%d items in, %d out", len(before), len(after))
			}
			for i := range after {
				if after[i].GetKind() == config.Kind {
					t.Errorf("item %d is the functionConfig", i)
				}
				if before[i].GetKind() != after[i].GetKind() || before[i].GetName() != after[i].GetName() {
					t.Errorf("item %d: %s/%s became %s/%s", i, before[i].GetKind(), before[i].GetName(), after[i].GetKind(), after[i].GetName())
				}
				// lint mode (and a config error) leaves every item as it was.
				if tt.mode == "lint" && before[i].MustString() != after[i].MustString() {
					t.Errorf("lint mode changed item %d:\n%s\nbecame\n%s", i, before[i].MustString(), after[i].MustString())
				}
			}
		})
	}
}

func items(t *testing.T, rl []byte) []*yaml.RNode {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(rl), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/krm -update and review the diff)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./internal/krm -update, then review):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

// The fixed items re-lint clean of everything that was fixable, and the
// fixes keep the text the author wrote (1.10 stays 1.10).
func TestFixModeResult(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "fix-configmap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	out, err := Run(bytes.NewReader(in), &stdout, rules.All())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Findings {
		if f.Fix != nil {
			t.Errorf("fixable finding left after fix: %s %s", f.Rule, f.Message)
		}
	}
	s := stdout.String()
	for _, want := range []string{`value: "1.10"`, `active: "yes"`, `monitoring: "on"`, `updateStrategy:`, `[--debug, "true"]`} {
		if !strings.Contains(s, want) {
			t.Errorf("fixed output lacks %s", want)
		}
	}
	for _, gone := range []string{"replicas: 3", "  strategy:"} {
		if strings.Contains(s, gone) {
			t.Errorf("fixed output still has %q", gone)
		}
	}
}

func TestFunctionConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		fc   string
		want string
	}{
		{"wrong kind", "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n", `kind "Secret"`},
		{"unknown field", "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nmetadata: {name: x}\nspec: {mood: fix}\n", "mood"},
		{"bad mode", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {mode: repair}\n", "repair"},
		{"unknown rule", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {disable: no-such-rule}\n", "no-such-rule"},
		{"bad bool", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {ambiguous-scalar.enabled: maybe}\n", "maybe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc, err := yaml.Parse(tt.fc)
			if err != nil {
				t.Fatal(err)
			}
			rl := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\nfunctionConfig:\n" + indent(fc.MustString())
			var stdout bytes.Buffer
			_, err = Run(strings.NewReader(rl), &stdout, rules.All())
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want a config error naming %q", err, tt.want)
			}
			if got := items(t, stdout.Bytes()); len(got) != 1 {
				t.Errorf("%d items written, want 1", len(got))
			}
			if !strings.Contains(stdout.String(), "severity: error") {
				t.Errorf("no error result in\n%s", stdout.String())
			}
		})
	}
}

// A list kyaml's encoder would write back unreadable (the tag `!%21` is
// read as `!!` and written so) is refused, and nothing is written.
func TestUnwritableList(t *testing.T) {
	for _, in := range []string{
		"!%21\nfunctionConfig: {apiVersion: v1, kind: ConfigMap, data: {mode: fix}}\n",
		// The comment sends it to kyaml's path; the fast path writes the
		// bytes as they came.
		"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n# c\n- !%21\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n",
	} {
		var stdout bytes.Buffer
		_, err := Run(strings.NewReader(in), &stdout, rules.All())
		if err == nil || !strings.Contains(err.Error(), "cannot write the ResourceList back") {
			t.Errorf("%q: error %v, want one saying the list cannot be written back", in, err)
		}
		if stdout.Len() > 0 {
			t.Errorf("%q: wrote\n%s", in, stdout.Bytes())
		}
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// resourceLine gives the line within the resource as the user wrote it:
// head comment counted, reader annotations not.
func TestResourceLine(t *testing.T) {
	tests := []struct {
		name string
		rl   string
		key  string // the key whose line is wanted
		want int
	}{
		{
			name: "plain",
			rl:   "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    k: yes\n",
			key:  "k", want: 6,
		},
		{
			name: "head comment",
			rl:   "items:\n- # one\n  # two\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    k: yes\n",
			key:  "k", want: 8,
		},
		{
			name: "reader annotations only",
			rl:   "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    annotations:\n      config.kubernetes.io/path: a.yaml\n      internal.config.kubernetes.io/path: a.yaml\n  data:\n    k: yes\n",
			key:  "k", want: 6,
		},
		{
			name: "user annotation kept",
			rl:   "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    annotations:\n      team: x\n      config.kubernetes.io/index: '0'\n  data:\n    k: yes\n",
			key:  "k", want: 8,
		},
		{
			name: "kustomize id block",
			rl:   "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    annotations:\n      kustomize.config.k8s.io/id: |\n        kind: ConfigMap\n        name: a\n  data:\n    k: yes\n",
			key:  "k", want: 6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := yaml.Parse(tt.rl)
			if err != nil {
				t.Fatal(err)
			}
			obj := doc.Field("items").Value.YNode().Content[0]
			var line int
			var walk func(n *yaml.Node)
			walk = func(n *yaml.Node) {
				for i := 0; i < len(n.Content); i++ {
					c := n.Content[i]
					if n.Kind == yaml.MappingNode && i%2 == 0 && c.Value == tt.key {
						line = c.Line
					}
					walk(c)
				}
			}
			walk(obj)
			if got := resourceLine(obj, line); got != tt.want {
				t.Errorf("resourceLine = %d, want %d", got, tt.want)
			}
		})
	}
}

// What kpt, kustomize build and kustomize fn run send differ in the
// annotation kpt's reader adds: only kpt prints results itself.
func TestShowsResults(t *testing.T) {
	kpt := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    annotations:\n      config.kubernetes.io/path: 'a.yaml'\n      internal.config.kubernetes.io/seqindent: 'compact'\n"
	kustomize := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    annotations:\n      config.kubernetes.io/index: '0'\n  data:\n    note: internal.config.kubernetes.io/seqindent is kpt's\n"
	if !ShowsResults([]byte(kpt)) {
		t.Error("kpt's ResourceList not recognised")
	}
	if ShowsResults([]byte(kustomize)) {
		t.Error("kustomize's ResourceList taken for kpt's")
	}
}
