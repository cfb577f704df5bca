package fluxsubst

import (
	"bytes"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fluxcd/pkg/envsubst"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/shipshape-dev/shipshape/internal/corpus"
)

// fluxPipeline is what kustomize-controller does to one built resource
// (fluxcd/pkg/kustomize varSubstitution): kustomize's Resource.AsYAML,
// envsubst, sigs.k8s.io/yaml's YAMLToJSON.
func fluxPipeline(t *testing.T, res *resource.Resource, vars map[string]string) []byte {
	t.Helper()
	text, err := res.AsYAML()
	if err != nil {
		return nil // Flux's build fails on it too
	}
	out, err := envsubst.Eval(string(text), func(s string) (string, bool) { return vars[s], true })
	if err != nil {
		return nil
	}
	j, err := sigsyaml.YAMLToJSON([]byte(out))
	if err != nil {
		return nil
	}
	return j
}

// applied is Apply's result as JSON, nil when it fails.
func applied(t *testing.T, res *resource.Resource, vars map[string]string) []byte {
	t.Helper()
	// The node kustomize holds, as render.Object.Node copies it.
	got, err := Apply(res.YNode(), vars)
	if err != nil {
		return nil
	}
	var v any
	if err := got.Decode(&v); err != nil {
		t.Fatal(err)
	}
	j, err := sigsyaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	j, err = sigsyaml.YAMLToJSON(j)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// vars gives every variable a value YAML 1.1 reads as something else than
// a string, so that a difference in how the text is written shows.
var parityVars = map[string]string{"ENABLED": "yes", "MODE": "on", "REPLICAS": "3", "TAG": "1.10", "GRACE": "30s", "QUOTED_MODE": `"on"`, "CPU": "500m"}

func sameJSON(a, b []byte) bool {
	norm := func(j []byte) string {
		var v any
		if err := sigsyaml.Unmarshal(j, &v); err != nil {
			return "invalid"
		}
		out, _ := sigsyaml.Marshal(v)
		return string(out)
	}
	return (a == nil) == (b == nil) && norm(a) == norm(b)
}

// The golden trees' kustomize roots, built by kustomize: Apply gives
// exactly what Flux's pipeline gives.
func TestApplyMatchesFluxOnGoldenTrees(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(self), "..", "..")
	for _, root := range []string{
		"rules/testdata/ambiguous-scalar/render/flux-postbuild/apps/web",
		"rules/testdata/ambiguous-scalar/render/flux-postbuild/apps/control",
		"rules/testdata/type-mismatch/render/flux-postbuild/apps/worker",
	} {
		m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(repo, root))
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range m.Resources() {
			want, got := fluxPipeline(t, res, parityVars), applied(t, res, parityVars)
			if want == nil || !sameJSON(want, got) {
				t.Errorf("%s %s:\nFlux:  %s\nApply: %s", root, res.CurId(), want, got)
			}
		}
	}
}

// Every object of the corpus, each of its string scalars made a
// placeholder in turn would be slow: instead each document's text has its
// plain values that look like variables' names left as they are, and a
// placeholder added as an annotation value and a label value, which Flux
// writes out and reads back like any other string.
func TestApplyMatchesFluxCorpus(t *testing.T) {
	factory := provider.NewDefaultDepProvider().GetResourceFactory()
	files := corpus.Sample(t, corpus.Files(t), nil)
	checked := 0
	for _, f := range files {
		for _, doc := range bytes.Split(f.Data, []byte("\n---")) {
			if !bytes.Contains(doc, []byte("apiVersion")) || !bytes.Contains(doc, []byte("kind")) {
				continue
			}
			res, err := factory.FromBytes(doc)
			if err != nil || res == nil {
				continue // not one object kustomize reads
			}
			_ = res.SetAnnotations(merge(res.GetAnnotations(), map[string]string{"example.com/mode": "${MODE}", "example.com/count": "x${REPLICAS}"}))
			want, got := fluxPipeline(t, res, parityVars), applied(t, res, parityVars)
			if (want == nil) != (got == nil) || want != nil && !sameJSON(want, got) {
				t.Errorf("%s: %s:\nFlux:  %s\nApply: %s", f.Path, res.CurId(), want, got)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no object checked")
	}
	t.Logf("%d objects: Apply gives what Flux's pipeline gives", checked)
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
