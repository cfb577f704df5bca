// Package krm runs shipshape as a KRM function: a ResourceList in, the
// same items (fixed in fix mode) and results out, through kyaml's
// fn/framework so that the protocol is kustomize's and kpt's own code.
package krm

import (
	"fmt"
	"io"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
	"github.com/shipshape-dev/shipshape/transformers"
)

// Outcome is what the function found, for the caller's exit code.
type Outcome struct {
	Failing []rules.Finding // findings at or above the fail level
	Fixed   int
}

// Run reads a ResourceList from r and writes the result to w. A bad
// functionConfig is returned as a *config.Error.
func Run(r io.Reader, w io.Writer) (*Outcome, error) {
	out := &Outcome{}
	rw := &kio.ByteReadWriter{Reader: r, Writer: w, KeepReaderAnnotations: true}
	err := framework.Execute(framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		return process(rl, out)
	}), rw)
	return out, err
}

func process(rl *framework.ResourceList, out *Outcome) error {
	cfg, err := functionConfig(rl.FunctionConfig)
	if err != nil {
		return err
	}
	eng, err := engine.New(cfg, nil, nil)
	if err != nil {
		return err
	}
	threshold, never := failLevel(cfg.FailOn)
	objs := objects(rl.Items)
	findings := eng.LintObjects(objs)
	if cfg.Mode == "fix" {
		var edits []transformers.Edit
		for _, f := range findings {
			if f.Fix != nil {
				edits = append(edits, f.Fix.Edits...)
				out.Fixed++
			}
		}
		if err := transformers.ApplyNodes(edits); err != nil {
			return fmt.Errorf("applying fixes: %w", err)
		}
		findings = eng.LintObjects(objects(rl.Items))
	}
	engine.SortFindings(findings)
	for _, f := range findings {
		rl.Results = append(rl.Results, result(f))
		if !never && f.Severity >= threshold {
			out.Failing = append(out.Failing, f)
		}
	}
	return nil
}

func failLevel(s string) (rules.Severity, bool) {
	if s == "none" {
		return rules.Error, true
	}
	if sev, err := rules.ParseSeverity(s); err == nil {
		return sev, false
	}
	return rules.Error, false
}

// functionConfig accepts a ShipshapeConfig or a ConfigMap of flat keys.
func functionConfig(fc *yaml.RNode) (*config.Config, error) {
	if fc == nil || fc.IsNilOrEmpty() {
		return &config.Config{Source: "functionConfig"}, nil
	}
	switch fc.GetKind() {
	case "ConfigMap":
		return config.FromFlatKeys(fc.GetDataMap(), "functionConfig")
	case config.Kind:
		s, err := fc.String()
		if err != nil {
			return nil, err
		}
		return config.Parse([]byte(s), "functionConfig")
	}
	return nil, &config.Error{Source: "functionConfig", Msg: fmt.Sprintf("kind %s: want %s or ConfigMap", fc.GetKind(), config.Kind)}
}

// objects wraps the items for the rules; the nodes are shared, so fixes
// applied to them change the items that are written out.
func objects(items []*yaml.RNode) []*manifest.Object {
	var objs []*manifest.Object
	for i, it := range items {
		path, index, _ := kioutil.GetFileAnnotations(it)
		doc := i
		if n, err := strconv.Atoi(index); err == nil {
			doc = n
		}
		if path == "" {
			path = "item " + strconv.Itoa(i)
		}
		if o := manifest.NewObject(it.YNode(), path, doc, false); o != nil {
			o.Item = i
			objs = append(objs, o)
		}
	}
	return objs
}

func result(f rules.Finding) *framework.Result {
	sev := framework.Error
	switch f.Severity {
	case rules.Warning:
		sev = framework.Warning
	case rules.Info:
		sev = framework.Info
	}
	r := &framework.Result{
		Message:  f.Rule + ": " + f.Message,
		Severity: sev,
		Tags:     map[string]string{"rule": f.Rule},
	}
	if f.Resource.Kind != "" {
		r.ResourceRef = &yaml.ResourceIdentifier{
			TypeMeta: yaml.TypeMeta{APIVersion: f.Resource.APIVersion, Kind: f.Resource.Kind},
			NameMeta: yaml.NameMeta{Name: f.Resource.Name, Namespace: f.Resource.Namespace},
		}
	}
	if f.Field != "" {
		r.Field = &framework.Field{Path: f.Field}
	}
	if f.File != "" {
		r.File = &framework.File{Path: f.File, Index: f.Doc}
	}
	if f.Line > 0 {
		r.Tags["line"] = strconv.Itoa(f.Line)
		r.Tags["column"] = strconv.Itoa(f.Column)
	}
	if f.Fix != nil {
		r.Tags["fixable"] = "true"
	}
	return r
}
