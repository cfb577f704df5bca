package render

// The edits of an Argo CD Application's kustomize options that are not
// kustomize's own commands (see argo.go): `kustomize edit set`, written
// out over types.Kustomization, and what Argo CD and `edit add
// component` append to the file.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/pkg/util"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"
)

// setEdit is `kustomize edit set VERB ARGS` (v5.8.2, commands/edit/set)
// over a kustomization's bytes. Written out here rather than linked:
// that package compiles a large regular expression at init, a
// millisecond of every run's start-up. The kustomization is read as
// kustomize's kustfile reads it (Unmarshal, FixKustomization); the
// written form differs from kustfile's (field order, comments), not what
// kustomize builds from it. TestArgoVariantEqualsKustomizeEdit holds it
// to the real commands.
func setEdit(data []byte, verb string, args []string) ([]byte, error) {
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return nil, err
	}
	k.FixKustomization()
	if args[0] == "--" {
		args = args[1:]
	}
	switch verb {
	case "nameprefix":
		k.NamePrefix = args[0]
	case "namesuffix":
		k.NameSuffix = args[0]
	case "namespace":
		if errs := provider.NewDefaultDepProvider().GetFieldValidator().ValidateNamespace(args[0]); len(errs) != 0 {
			return nil, fmt.Errorf("%q is not a valid namespace name: %s", args[0], strings.Join(errs, ";"))
		}
		k.Namespace = args[0]
	case "image":
		images, err := setImages(k.Images, args)
		if err != nil {
			return nil, err
		}
		k.Images = images
	case "replicas":
		replicas, err := setReplicas(k.Replicas, args)
		if err != nil {
			return nil, err
		}
		k.Replicas = replicas
	default:
		return nil, fmt.Errorf("kustomize edit set %s is not one Argo CD runs", verb)
	}
	return sigsyaml.Marshal(&k)
}

// setImages is `set image`: each argument parsed as
// [name=]newName[:tag][@digest], merged by name over the kustomization's
// images ("*" keeps the field the kustomization has), sorted by name.
func setImages(have []types.Image, args []string) ([]types.Image, error) {
	const keep = "*"
	byName := map[string]types.Image{}
	for _, arg := range args {
		key, value, _ := strings.Cut(arg, "=")
		if !strings.Contains(arg, "=") {
			key, value = "", arg
		}
		name, tag, digest := util.SplitImageName(value)
		if name == arg {
			return nil, fmt.Errorf("invalid format of image %q", arg)
		}
		img := types.Image{Name: name, NewTag: tag, Digest: digest}
		if key != "" {
			img.Name, img.NewName = key, name
		}
		byName[img.Name] = img
	}
	for _, im := range have {
		arg, ok := byName[im.Name]
		if !ok {
			byName[im.Name] = im
			continue
		}
		if arg.NewName == keep {
			arg.NewName = im.NewName
		}
		if arg.NewTag == keep {
			arg.NewTag = im.NewTag
		}
		if arg.Digest == keep {
			arg.Digest = im.Digest
		}
		byName[im.Name] = arg
	}
	var out []types.Image
	for _, v := range byName {
		for _, f := range []*string{&v.NewName, &v.NewTag, &v.Digest} {
			if *f == keep {
				*f = ""
			}
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b types.Image) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// setReplicas is `set replicas`: name=count arguments over the
// kustomization's replicas, sorted by name.
func setReplicas(have []types.Replica, args []string) ([]types.Replica, error) {
	byName := map[string]types.Replica{}
	for _, arg := range args {
		s := strings.Split(arg, "=")
		if len(s) != 2 {
			return nil, fmt.Errorf("invalid format of replicas %q", arg)
		}
		count, err := strconv.ParseInt(s[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid format of replicas %q", arg)
		}
		byName[s[0]] = types.Replica{Name: s[0], Count: count}
	}
	for _, r := range have {
		if _, ok := byName[r.Name]; !ok {
			byName[r.Name] = r
		}
	}
	var out []types.Replica
	for _, v := range byName {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b types.Replica) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// appendComponents is `kustomize edit add component` (run last, as Argo
// CD runs it) for paths that exist and hold no glob: each appended to
// components unless it is there already. Done here rather than by the
// command, whose in-memory file system has no directory above the
// kustomization's for a path such as ../components/x to name.
func appendComponents(data []byte, names []string) ([]byte, error) {
	var k map[string]any
	if err := sigsyaml.Unmarshal(data, &k); err != nil {
		return nil, err
	}
	if k == nil {
		k = map[string]any{}
	}
	list, _ := k["components"].([]any)
	for _, n := range names {
		if !slices.Contains(list, any(n)) {
			list = append(list, n)
		}
	}
	k["components"] = list
	return sigsyaml.Marshal(k)
}

// appendPatches appends the Application's patches to the kustomization's
// `patches`, as Argo CD does: the file read into a map with
// sigs.k8s.io/yaml, the patches added as its KustomizePatch type writes
// them (path, patch, target, options), and the map written back.
func appendPatches(data []byte, list []*yaml.Node) ([]byte, error) {
	var k map[string]any
	if err := sigsyaml.Unmarshal(data, &k); err != nil {
		return nil, fmt.Errorf("failed to unmarshal kustomization.yaml: %w", err)
	}
	if k == nil {
		k = map[string]any{}
	}
	var patches []any
	if p, ok := k["patches"]; ok {
		if patches, ok = p.([]any); !ok {
			return nil, fmt.Errorf("expected 'patches' field in kustomization.yaml to be []any, but got %T", p)
		}
	}
	for _, n := range list {
		var p argoPatch
		if err := n.Decode(&p); err != nil {
			return nil, err
		}
		patches = append(patches, p)
	}
	k["patches"] = patches
	return sigsyaml.Marshal(k)
}

// argoPatch is Argo CD's KustomizePatch, as it writes it.
type argoPatch struct {
	Path    string          `json:"path,omitempty" yaml:"path,omitempty"`
	Patch   string          `json:"patch,omitempty" yaml:"patch,omitempty"`
	Target  *argoSelector   `json:"target,omitempty" yaml:"target,omitempty"`
	Options map[string]bool `json:"options,omitempty" yaml:"options,omitempty"`
}

type argoSelector struct {
	Group              string `json:"group,omitempty" yaml:"group,omitempty"`
	Version            string `json:"version,omitempty" yaml:"version,omitempty"`
	Kind               string `json:"kind,omitempty" yaml:"kind,omitempty"`
	Name               string `json:"name,omitempty" yaml:"name,omitempty"`
	Namespace          string `json:"namespace,omitempty" yaml:"namespace,omitempty"`
	AnnotationSelector string `json:"annotationSelector,omitempty" yaml:"annotationSelector,omitempty"`
	LabelSelector      string `json:"labelSelector,omitempty" yaml:"labelSelector,omitempty"`
}
