// Package fluxsubst applies Flux's post-build variable substitution
// (a Flux Kustomization's spec.postBuild) to one object as
// kustomize-controller does it (fluxcd/pkg/kustomize SubstituteVariables
// and varSubstitution): the object kustomize built is written out as
// kustomize's Resource.AsYAML writes it (JSON, then sigs.k8s.io/yaml's
// JSONToYAML: the quotes of the source are gone), every ${…} of that text
// is expanded by fluxcd/pkg/envsubst (a fork of drone/envsubst: only the
// braced form, with bash's defaults and string operators), and the text
// is read back with sigs.k8s.io/yaml's YAMLToJSON, which reads YAML 1.1:
// a variable whose value is `yes`, `on` or `8080` becomes a boolean or a
// number, even where the placeholder was quoted.
package fluxsubst

import (
	"fmt"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	"github.com/fluxcd/pkg/envsubst/parse"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"go.yaml.in/yaml/v3"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

// DisabledKey is the label or annotation that, set to "disabled", keeps
// an object out of the substitution.
const DisabledKey = "kustomize.toolkit.fluxcd.io/substitute"

// varName is what Flux accepts as a variable's name (varsubRegex); a
// name that does not match fails the whole build.
var varName = lazyregexp.New(`^[_[:alpha:]][_[:alpha:][:digit:]]*$`)

// ValidName reports whether Flux accepts name as a variable's name.
func ValidName(name string) bool { return varName.MatchString(name) }

// Disabled reports whether obj (a mapping node) opts out of the
// substitution with DisabledKey in its labels or annotations.
func Disabled(obj *yaml.Node) bool {
	meta := manifest.MapGet(obj, "metadata")
	for _, k := range []string{"labels", "annotations"} {
		if v := manifest.MapGet(manifest.MapGet(meta, k), DisabledKey); v != nil && v.Kind == yaml.ScalarNode && v.Value == "disabled" {
			return true
		}
	}
	return false
}

// Apply is obj (a mapping node of a built object) after the substitution
// of vars, as a new mapping node: strings come back double-quoted (they
// were JSON strings), numbers and booleans plain with their tags. A
// variable not in vars is the empty string (kustomize-controller's
// default; its StrictPostBuildSubstitutions feature gate, off by
// default, fails the build instead). The error is the one that fails
// Flux's build: envsubst's, or YAMLToJSON's on the substituted text.
func Apply(obj *yaml.Node, vars map[string]string) (*yaml.Node, error) {
	// kustomize's own MarshalJSON (kyaml writes the node, yaml.v3 reads it
	// back): its text is not always the node's value (a folded scalar with
	// a more-indented line gains a blank line), and Flux substitutes that.
	j, err := kyaml.NewRNode(obj).MarshalJSON()
	if err != nil {
		return nil, err
	}
	text, err := sigsyaml.JSONToYAML(j)
	if err != nil {
		return nil, err
	}
	out, err := envsubst.Eval(string(text), func(name string) (string, bool) { return vars[name], true })
	if err != nil {
		return nil, fmt.Errorf("envsubst error: variable substitution failed: %w", err)
	}
	j, err = sigsyaml.YAMLToJSON([]byte(out))
	if err != nil {
		return nil, fmt.Errorf("the substituted text does not read as YAML (YAMLToJSON: %w)", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(j, &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the substituted object is not a mapping")
	}
	return doc.Content[0], nil
}

// Placeholder is one ${…} of a scalar.
type Placeholder struct {
	Name string // the variable
	// Default: the expression gives a value when the variable is unset
	// (${NAME:=x}, ${NAME:-x}, ${NAME=x}, ${NAME-x}).
	Default bool
	// Offset is the byte offset of "${" in the scalar.
	Offset int
}

// Placeholders are the variables s uses, in order; nil when s has none
// or envsubst cannot parse it.
func Placeholders(s string) []Placeholder {
	if !strings.Contains(s, "${") {
		return nil
	}
	tree, err := parse.Parse(s)
	if err != nil {
		return nil
	}
	var out []Placeholder
	from := 0
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.FuncNode:
			at := strings.Index(s[from:], "${")
			if at < 0 {
				return
			}
			from += at
			out = append(out, Placeholder{Name: n.Param, Default: isDefaultOp(n.Name), Offset: from})
			from += 2
			for _, a := range n.Args {
				walk(a)
			}
		}
	}
	walk(tree.Root)
	return out
}

// isDefaultOp: the operators that give a value to an unset variable.
func isDefaultOp(op string) bool {
	switch op {
	case "-", ":-", "=", ":=":
		return true
	}
	return false
}
