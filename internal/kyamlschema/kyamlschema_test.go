package kyamlschema

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// kyamlDefault is kyaml's default schema as it decodes it itself.
func kyamlDefault(t *testing.T) spec.Definitions {
	t.Helper()
	openapi.ResetOpenAPI()
	t.Cleanup(openapi.ResetOpenAPI)
	return openapi.Schema().Definitions
}

func installed(t *testing.T) spec.Definitions {
	t.Helper()
	Install()
	t.Cleanup(openapi.ResetOpenAPI)
	return openapi.Schema().Definitions
}

// TestDefinitions compares, in every definition, the fields kyaml reads
// while it merges (ResourceSchema.Field, Elements, PatchStrategyAndKey*,
// AddDefinitions, the walker's IsAssociative): a kyaml upgrade that
// changes its schema fails here until `go generate ./internal/kyamlschema`.
func TestDefinitions(t *testing.T) {
	want := kyamlDefault(t)
	got := installed(t)
	if w, g := slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got)); !slices.Equal(w, g) {
		t.Fatalf("definitions differ: kyaml has %d, Install %d", len(w), len(g))
	}
	for name, w := range want {
		compare(t, name, w, got[name])
	}
}

func compare(t *testing.T, path string, want, got spec.Schema) {
	t.Helper()
	if !slices.Equal(want.Type, got.Type) {
		t.Errorf("%s: type %q, want %q", path, got.Type, want.Type)
	}
	if w, g := want.Ref.String(), got.Ref.String(); w != g {
		t.Errorf("%s: $ref %q, want %q", path, g, w)
	}
	for k, v := range want.Extensions {
		if strings.HasPrefix(k, "x-kubernetes-") && !reflect.DeepEqual(v, got.Extensions[k]) {
			t.Errorf("%s: %s %#v, want %#v", path, k, got.Extensions[k], v)
		}
	}
	for k := range got.Extensions {
		if _, ok := want.Extensions[k]; !ok {
			t.Errorf("%s: extension %s kyaml does not have", path, k)
		}
	}
	if (want.Items == nil) != (got.Items == nil) {
		t.Errorf("%s: items %v, want %v", path, got.Items, want.Items)
	} else if want.Items != nil {
		if len(want.Items.Schemas) > 0 || want.Items.Schema == nil || got.Items.Schema == nil {
			t.Errorf("%s: items not a single schema", path)
		} else {
			compare(t, path+"[]", *want.Items.Schema, *got.Items.Schema)
		}
	}
	if w, g := slices.Sorted(maps.Keys(want.Properties)), slices.Sorted(maps.Keys(got.Properties)); !slices.Equal(w, g) {
		t.Errorf("%s: properties %q, want %q", path, g, w)
	}
	for k, w := range want.Properties {
		compare(t, path+"."+k, w, got.Properties[k])
	}
	wa, ga := want.AdditionalProperties, got.AdditionalProperties
	switch {
	case (wa == nil) != (ga == nil):
		t.Errorf("%s: additionalProperties %v, want %v", path, ga, wa)
	case wa == nil:
	case wa.Allows != ga.Allows || (wa.Schema == nil) != (ga.Schema == nil):
		t.Errorf("%s: additionalProperties %+v, want %+v", path, *ga, *wa)
	case wa.Schema != nil:
		compare(t, path+"{}", *wa.Schema, *ga.Schema)
	}
}

// TestLookups asks kyaml what kustomize asks it while building, for every
// kind the schema describes, after its own decoding and after Install.
func TestLookups(t *testing.T) {
	type answer struct {
		namespaced, known bool
		fields            []string
		strategy          string
		keys              []string
	}
	ask := func() map[yaml.TypeMeta]answer {
		out := map[yaml.TypeMeta]answer{}
		for _, d := range openapi.Schema().Definitions {
			gvks, _ := d.Extensions["x-kubernetes-group-version-kind"].([]any)
			for _, e := range gvks {
				m := e.(map[string]any)
				tm := yaml.TypeMeta{Kind: m["kind"].(string), APIVersion: m["version"].(string)}
				if g := m["group"].(string); g != "" {
					tm.APIVersion = g + "/" + tm.APIVersion
				}
				var a answer
				a.namespaced, a.known = openapi.IsNamespaceScoped(tm)
				rs := openapi.SchemaForResourceType(tm)
				if rs == nil {
					out[tm] = a
					continue
				}
				a.fields = slices.Sorted(maps.Keys(rs.Schema.Properties))
				// The lists a Deployment patch merges by key.
				if c := rs.Lookup("spec", "template", "spec", "containers"); c != nil {
					a.strategy, a.keys = c.PatchStrategyAndKeyList()
				}
				out[tm] = a
			}
		}
		for _, tm := range []yaml.TypeMeta{
			{APIVersion: "example.com/v1", Kind: "Widget"},
			{APIVersion: "kustomize.config.k8s.io/v1beta1", Kind: "Kustomization"},
		} {
			var a answer
			a.namespaced, a.known = openapi.IsNamespaceScoped(tm)
			out[tm] = a
		}
		return out
	}
	kyamlDefault(t)
	want := ask()
	installed(t)
	got := ask()
	if len(want) < 200 {
		t.Fatalf("kyaml describes %d kinds: expected its Kubernetes schema", len(want))
	}
	for tm, w := range want {
		if g := got[tm]; !reflect.DeepEqual(w, g) {
			t.Errorf("%s %s: %+v after Install, kyaml answers %+v", tm.APIVersion, tm.Kind, g, w)
		}
	}
	if d := want[yaml.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}]; d.strategy != "merge" || !slices.Equal(d.keys, []string{"name"}) {
		t.Errorf("apps/v1 Deployment containers: %q %q, want merge by name", d.strategy, d.keys)
	}
}

func BenchmarkInstall(b *testing.B) {
	for b.Loop() {
		Install()
	}
	openapi.ResetOpenAPI()
}

func BenchmarkKyamlDecode(b *testing.B) {
	for b.Loop() {
		openapi.ResetOpenAPI()
		openapi.Schema()
	}
	openapi.ResetOpenAPI()
}
