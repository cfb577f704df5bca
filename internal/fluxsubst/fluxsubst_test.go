package fluxsubst

import (
	"testing"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"go.yaml.in/yaml/v3"
)

func object(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

func at(n *yaml.Node, path ...string) *yaml.Node {
	for _, k := range path {
		n = manifest.MapGet(n, k)
	}
	return n
}

// A quoted placeholder is no protection: Flux writes the object out from
// JSON, so `"${MODE}"` is `${MODE}` in the text it substitutes, and `on`
// is read back as YAML 1.1's true. An unset variable is empty; a default
// applies.
func TestApplyRereadsAsYAML11(t *testing.T) {
	obj := object(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data:
  quoted: "${MODE}"
  plain: ${MODE}
  port: ${PORT}
  unset: a${NOPE}b
  defaulted: ${TAG:=1.27}
  version: ${VERSION}
`)
	got, err := Apply(obj, map[string]string{"MODE": "on", "PORT": "8080", "VERSION": "1.10"})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][2]string{
		"quoted": {"!!bool", "true"}, "plain": {"!!bool", "true"}, "port": {"!!int", "8080"},
		"unset": {"!!str", "ab"}, "defaulted": {"!!float", "1.27"}, "version": {"!!float", "1.1"},
	} {
		n := at(got, "data", key)
		if n == nil || n.Tag != want[0] || n.Value != want[1] {
			t.Errorf("data.%s = %+v, want %s %s", key, n, want[0], want[1])
		}
	}
}

// Text that a value makes unreadable fails the build, as YAMLToJSON fails
// Flux's.
func TestApplyUnreadable(t *testing.T) {
	obj := object(t, "kind: ConfigMap\ndata:\n  a: ${V}\n")
	if _, err := Apply(obj, map[string]string{"V": "[1"}); err == nil {
		t.Fatal("want an error for text YAML cannot read")
	}
}

func TestDisabled(t *testing.T) {
	on := object(t, "metadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n")
	off := object(t, "metadata:\n  labels:\n    kustomize.toolkit.fluxcd.io/substitute: enabled\n")
	if !Disabled(on) || Disabled(off) {
		t.Fatalf("Disabled: %v %v", Disabled(on), Disabled(off))
	}
}

func TestPlaceholders(t *testing.T) {
	got := Placeholders("nginx:${TAG:=${DEFAULT}}-${SUFFIX}$HOME")
	want := []Placeholder{{Name: "TAG", Default: true, Offset: 6}, {Name: "DEFAULT", Offset: 13}, {Name: "SUFFIX", Offset: 25}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if Placeholders("$HOME and $(x)") != nil {
		t.Error("only the braced form is a variable")
	}
}
