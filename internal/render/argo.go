package render

// Argo CD Applications that build a kustomize root of the repository with
// `spec.source(s).kustomize` options. Argo CD's repo server
// (util/kustomize/kustomize.go, Build) edits the kustomization of a copy
// of the directory before `kustomize build`, in this order: `kustomize
// edit set nameprefix`, `set namesuffix`, `set image`, `set replicas`,
// `add label` (--force, --without-selector, --include-templates),
// `add annotation` (--force), `set namespace`, then appends the patches
// to the file's `patches` itself, then `add component`. Here the same
// edits are made by kustomize's own edit commands, in-process, on an
// in-memory copy of the kustomization (so their semantics are exactly
// kustomize's: images merged by name and sorted, a label already set
// refused without --force), and the root is built from that copy. The
// disk is never written.
//
// The variant is a Kustomization of its own (Argo set), rendered beside
// the root as another application. Its Doc is the root's, with the
// nodes the options add taken from the Application file, so that a
// finding a value of an option causes is placed at the option's line
// there (kzAt, and the patches, see appendedPatches).

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/kv"
	"sigs.k8s.io/kustomize/api/pkg/loader"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/kustomize/v5/commands/edit/add"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// ArgoSource is one source of an Argo CD Application whose path is a
// kustomize root, and its `kustomize:` options.
type ArgoSource struct {
	// File is the Application's file (real path), Src its bytes and Doc
	// the document of File that holds the Application.
	File string
	Src  []byte
	Doc  int
	// App is the Application's name; At the path of the source in the
	// document (spec.source, or spec.sources[i]).
	App string
	At  Path
	// Options is the source's `kustomize:` mapping, Key its key.
	Options, Key *yaml.Node
	// Env is what Argo CD substitutes in images and label values
	// (ARGOCD_APP_NAME, ARGOCD_APP_NAMESPACE, ...): a name not in it is
	// one shipshape does not know offline (a revision).
	Env map[string]string
}

// ArgoVariant is what an Application adds to the root it builds.
type ArgoVariant struct {
	Source ArgoSource
	// Root is the root built, Key names the variant as an application
	// (the Application's file, document and source).
	Root *Kustomization
	Key  string
	// data is the kustomization as Argo CD's edits leave it: what
	// kustomize reads in place of the root's file.
	data []byte
	// owned are the nodes of Doc that are the Application's (positions in
	// File).
	owned   map[*yaml.Node]bool
	patches *FluxPatches
	// components are the paths the Application adds, as written.
	components []string
	// holds says whether a path may be looked at (the graph's scope).
	holds func(string) bool
}

// Key names k as an application: its file, or for an Argo CD
// Application's variant, the Application's source.
func (k *Kustomization) Key() string {
	if k.Argo != nil {
		return k.Argo.Key
	}
	return k.File
}

// OwnsAt reports whether the node at line:column of the root's
// kustomization, as a Problem names it, is the Application's (then at
// that place in its file).
func (v *ArgoVariant) OwnsAt(line, column int) bool {
	for n := range v.owned {
		if n.Line == line && n.Column == column {
			return true
		}
	}
	return false
}

// owns reports whether n is a node of the Application's file.
func (v *ArgoVariant) owns(n *yaml.Node) bool { return v != nil && n != nil && v.owned[n] }

// ArgoOptionsError is an option Argo CD cannot build with (kustomize
// edit refuses it, or it needs what shipshape does not know), at its
// node in the Application's file.
type ArgoOptionsError struct {
	File         string
	Line, Column int
	App          string // the Application's name
	Message      string
	// Unknown is set when the variant is not rendered for want of what
	// shipshape does not know or read (a revision only the cluster knows,
	// a path out of the directories linted): not a mistake in the file.
	Unknown bool
}

func (e *ArgoOptionsError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Message)
}

// ArgoVariant returns root as src's options make it: a Kustomization to
// render (Renderer.Render) as an application of its own.
func (g *Graph) ArgoVariant(root *Kustomization, src ArgoSource) (*Kustomization, *ArgoOptionsError) {
	if root.Doc == nil {
		return nil, &ArgoOptionsError{File: root.File, Message: "the kustomization does not parse"}
	}
	v := &ArgoVariant{Source: src, Root: root, owned: map[*yaml.Node]bool{}, holds: func(p string) bool { return g.scope.Holds(g.Real(p)) },
		Key: fmt.Sprintf("%s#%d#%s", src.File, src.Doc, src.At)}
	k := &Kustomization{Dir: root.Dir, File: root.File, Src: root.Src, Kind: root.Kind, src: root.src, Argo: v}
	// Argo CD builds the file as written: what a Flux Kustomization adds
	// to the same root (Flux, Refs) is not part of it.
	k.Doc = deepCopy(root.Doc)
	data, err := v.edit(k)
	if err != nil {
		return nil, err
	}
	v.data = data
	k.Refs = refsOf(k)
	g.resolveRefs(k)
	return k, nil
}

// editStep is one `kustomize edit` Argo CD runs, and the option it
// comes from.
type editStep struct {
	option string
	args   []string
	at     *yaml.Node
}

// edit runs Argo CD's edits over the root's kustomization in memory and
// mirrors them in k.Doc; it returns the edited file's bytes.
func (v *ArgoVariant) edit(k *Kustomization) ([]byte, *ArgoOptionsError) {
	opts := v.Source.Options
	fs := filesys.MakeFsInMemory()
	name := filepath.Base(k.File)
	if err := fs.WriteFile(name, v.Root.Src); err != nil {
		return nil, v.errAt(opts, err.Error())
	}
	steps, problem := v.steps(k)
	if problem != nil {
		return nil, problem
	}
	for _, s := range steps {
		if err := runEdit(fs, name, s.args); err != nil {
			return nil, v.errAt(s.at, fmt.Sprintf("Argo CD's `kustomize edit %s` fails on %s: %v", strings.Join(s.args[:2], " "), s.option, err))
		}
	}
	data, err := fs.ReadFile(name)
	if err != nil {
		return nil, v.errAt(opts, err.Error())
	}
	if list := seq(mapGet(opts, "patches")); len(list) > 0 {
		if data, err = appendPatches(data, list); err != nil {
			return nil, v.errAt(mapGet(opts, "patches"), err.Error())
		}
		v.patches = &FluxPatches{File: v.Source.File, Src: v.Source.Src, Doc: v.Source.Doc, List: mapGet(opts, "patches"),
			At: v.Source.At.concat(Path{{Key: "kustomize"}, {Key: "patches"}}), Dir: k.Dir}
	}
	if len(v.components) > 0 {
		if data, err = appendComponents(data, v.components); err != nil {
			return nil, v.errAt(mapGet(opts, "components"), err.Error())
		}
	}
	return data, nil
}

// runEdit runs `kustomize edit ARGS` over the kustomization name of fs,
// in-process: `add` by kustomize's own command, `set` by setEdit.
func runEdit(fs filesys.FileSystem, name string, args []string) error {
	if args[0] == "set" {
		data, err := fs.ReadFile(name)
		if err != nil {
			return err
		}
		if data, err = setEdit(data, args[1], args[2:]); err != nil {
			return err
		}
		return fs.WriteFile(name, data)
	}
	dp := provider.NewDefaultDepProvider()
	cmd := add.NewCmdAdd(fs, kv.NewLoader(loader.NewFileLoaderAtCwd(fs), dp.GetFieldValidator()), dp.GetResourceFactory())
	cmd.SetArgs(args[1:])
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.Execute()
}

// steps are Argo CD's edits for the options, in its order, each mirrored
// in k.Doc as it goes.
func (v *ArgoVariant) steps(k *Kustomization) ([]editStep, *ArgoOptionsError) {
	opts := v.Source.Options
	var steps []editStep
	for _, f := range []struct{ option, verb string }{{"namePrefix", "nameprefix"}, {"nameSuffix", "namesuffix"}} {
		if key, val := manifest.MapEntry(opts, f.option); val != nil && val.Value != "" {
			steps = append(steps, editStep{f.option, []string{"set", f.verb, "--", val.Value}, val})
			v.setField(k.Doc, f.option, key, val)
		}
	}
	if list := seq(mapGet(opts, "images")); len(list) > 0 {
		args := []string{"set", "image"}
		for _, n := range list {
			image, err := v.envsubst(n)
			if err != nil {
				return nil, err
			}
			args = append(args, image)
			v.mirrorImage(k.Doc, n, image)
		}
		steps = append(steps, editStep{"images", args, mapGet(opts, "images")})
	}
	if list := seq(mapGet(opts, "replicas")); len(list) > 0 {
		args := []string{"set", "replicas"}
		for _, n := range list {
			name, count := mapGet(n, "name"), mapGet(n, "count")
			if name == nil || count == nil || count.Kind != yaml.ScalarNode {
				return nil, v.errAt(n, "a replicas entry needs a name and a count")
			}
			args = append(args, name.Value+"="+count.Value)
			v.mirrorNamed(k.Doc, "replicas", n)
		}
		steps = append(steps, editStep{"replicas", args, mapGet(opts, "replicas")})
	}
	s, err := v.metadataStep(k.Doc, "commonLabels", "label")
	if err != nil {
		return nil, err
	}
	steps = append(steps, s...)
	if s, err = v.metadataStep(k.Doc, "commonAnnotations", "annotation"); err != nil {
		return nil, err
	}
	steps = append(steps, s...)
	if key, val := manifest.MapEntry(opts, "namespace"); val != nil && val.Value != "" {
		steps = append(steps, editStep{"namespace", []string{"set", "namespace", "--", val.Value}, val})
		v.setField(k.Doc, "namespace", key, val)
	}
	if list := seq(mapGet(opts, "components")); len(list) > 0 {
		ignoreMissing := scalarOf(opts, "ignoreMissingComponents") == "true"
		comps := listField(k.Doc, "components")
		for _, n := range list {
			if n.Kind != yaml.ScalarNode || n.Value == "" || IsRemote(n.Value) || filepath.IsAbs(n.Value) || strings.ContainsAny(n.Value, "*?[") {
				return nil, v.errAt(n, "not rendered: a components entry that is not a local, relative path without globs is not read here")
			}
			dir := filepath.Join(k.Dir, n.Value)
			if !v.holds(dir) {
				return nil, v.errAt(n, fmt.Sprintf("not rendered: components entry %q leads out of the directories linted (not read)", n.Value))
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				if ignoreMissing {
					continue
				}
				return nil, v.errAt(n, fmt.Sprintf("components entry %q names no directory: Argo CD's `kustomize edit add component` fails on it (set ignoreMissingComponents to skip it)", n.Value))
			}
			v.components = append(v.components, n.Value)
			if comps != nil && !slices.ContainsFunc(comps.Content, func(c *yaml.Node) bool { return c.Value == n.Value }) {
				comps.Content = append(comps.Content, n)
				v.owned[n] = true
			}
		}
	}
	return steps, nil
}

// metadataStep is `kustomize edit add label|annotation` for the option
// (commonLabels or commonAnnotations), with Argo CD's flags.
func (v *ArgoVariant) metadataStep(doc *yaml.Node, option, what string) ([]editStep, *ArgoOptionsError) {
	opts := v.Source.Options
	m := mapGet(opts, option)
	if m == nil || m.Kind != yaml.MappingNode || len(m.Content) == 0 {
		return nil, nil
	}
	args := []string{"add", what}
	force := scalarOf(opts, "forceCommonLabels") == "true"
	if what == "annotation" {
		force = scalarOf(opts, "forceCommonAnnotations") == "true"
	}
	if force {
		args = append(args, "--force")
	}
	withoutSelector := what == "label" && scalarOf(opts, "labelWithoutSelector") == "true"
	includeTemplates := what == "label" && scalarOf(opts, "labelIncludeTemplates") == "true"
	if withoutSelector {
		args = append(args, "--without-selector")
	}
	if includeTemplates {
		args = append(args, "--include-templates")
	}
	target := option
	if withoutSelector {
		target = "" // a labels entry: see mirrorLabel
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i], m.Content[i+1]
		value := val.Value
		if what == "label" || scalarOf(opts, "commonAnnotationsEnvsubst") == "true" {
			var err *ArgoOptionsError
			if value, err = v.envsubst(val); err != nil {
				return nil, err
			}
		}
		args = append(args, key.Value+":"+value)
		if value != val.Value {
			// As substituted, at the value as written.
			c := *val
			c.Value, c.Style = value, 0
			val = &c
		}
		if target != "" {
			v.setField(mapField(doc, target), key.Value, key, val)
		} else {
			v.mirrorLabel(doc, key, val, includeTemplates)
		}
	}
	return []editStep{{option, args, m}}, nil
}

// envsubst is the value of n as Argo CD substitutes it (os.Expand over
// the Application's environment, `$$` for a dollar); an error when it
// names a variable shipshape does not know.
func (v *ArgoVariant) envsubst(n *yaml.Node) (string, *ArgoOptionsError) {
	var unknown string
	out := os.Expand(n.Value, func(name string) string {
		if name == "$" {
			return "$"
		}
		val, ok := v.Source.Env[name]
		if !ok && unknown == "" {
			unknown = name
		}
		return val
	})
	if unknown != "" {
		e := v.errAt(n, fmt.Sprintf("not rendered: Argo CD substitutes $%s here, which only the cluster knows", unknown))
		e.Unknown = true
		return "", e
	}
	return out, nil
}

// errAt is an ArgoOptionsError at n of the Application's file; a
// message that starts "not rendered:" says what shipshape does not read.
func (v *ArgoVariant) errAt(n *yaml.Node, msg string) *ArgoOptionsError {
	e := &ArgoOptionsError{File: v.Source.File, App: v.Source.App, Message: msg, Unknown: strings.HasPrefix(msg, "not rendered:")}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// variantFS is the file system a variant is built from: the root's
// kustomization read as Argo CD's edits leave it.
type variantFS struct {
	filesys.FileSystem
	root string
	data []byte
}

func (f variantFS) ReadFile(path string) ([]byte, error) {
	if filepath.Clean(path) == f.root {
		return bytes.Clone(f.data), nil
	}
	return f.FileSystem.ReadFile(path)
}
