//go:generate go run ./gen

// Package kyamlschema gives kyaml its default OpenAPI schema without
// decoding it.
//
// kyaml keeps the schema in a global that it fills in from a compressed
// JSON bundle the first time a strategic-merge patch needs it: 17 ms of
// CPU and 12 MB of garbage per process, most of it descriptions that
// nothing reads while kustomize builds. Install fills the same global from
// a generated function (zz_generated.go, `go generate`) that builds the
// definitions trimmed to the fields kyaml's merge reads, in about a
// millisecond. The tests check, definition by definition, that those
// fields equal what kyaml decodes, and that kyaml answers every lookup
// kustomize makes the same way after Install as after its own decoding.
package kyamlschema

import (
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// Install resets kyaml's global schema to its default, as kyaml itself
// would decode it. The caller makes sure no kustomize build runs
// meanwhile: kyaml's global is not safe to write while it is read.
func Install() {
	openapi.ResetOpenAPI()
	// kyaml then skips decoding its bundle, and finds the definitions
	// already added.
	openapi.SuppressBuiltInSchemaUse()
	refs := map[string]spec.Ref{}
	openapi.AddDefinitions(definitions(func(s string) spec.Ref {
		r, ok := refs[s]
		if !ok {
			r = spec.MustCreateRef(s)
			refs[s] = r
		}
		return r
	}))
	// Marks the schema initialised, and adds kustomize's own small
	// schema (the Kustomization types) as kyaml does after its bundle.
	openapi.Schema()
}
