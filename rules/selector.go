package rules

import (
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/selector"
	"github.com/shipshape-dev/shipshape/internal/yaml11"
)

// selectorWorkload says where a kind keeps its selector and template, and
// how the API treats a missing selector.
type selectorWorkload struct {
	spec            []string // path to the spec holding selector and template
	mapSelector     bool     // ReplicationController: a plain label map
	requireSelector bool     // apps/v1 rejects a missing selector
	optional        bool     // Job: only checked when set
}

func workloadFor(obj *manifest.Object) (selectorWorkload, bool) {
	g := obj.Group()
	switch obj.Kind {
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
		if g != "apps" && g != "extensions" {
			return selectorWorkload{}, false
		}
		// Older API versions defaulted the selector from the template.
		return selectorWorkload{spec: []string{"spec"}, requireSelector: obj.APIVersion == "apps/v1"}, true
	case "ReplicationController":
		return selectorWorkload{spec: []string{"spec"}, mapSelector: true}, g == ""
	case "Job":
		return selectorWorkload{spec: []string{"spec"}, optional: true}, g == "batch"
	case "CronJob":
		return selectorWorkload{spec: []string{"spec", "jobTemplate", "spec"}, optional: true}, g == "batch"
	}
	return selectorWorkload{}, false
}

var selectorTemplateMismatch = Register(&analysis.Rule{
	ID:       "selector-template-mismatch",
	Severity: analysis.Error,
	Summary:  "A workload's selector does not select its own pod template",
	Targets:  analysis.Objects,
	Check:    checkSelectorTemplate,
})

func checkSelectorTemplate(p *analysis.Pass) {
	w, ok := workloadFor(p.Object)
	if !ok {
		return
	}
	spec := manifest.Path(p.Object.Node, w.spec...)
	if spec == nil || spec.Kind != yaml.MappingNode {
		return
	}
	specPath := strings.Join(w.spec, ".")
	selKey, selNode := manifest.MapEntry(spec, "selector")
	tmpl := manifest.MapGet(spec, "template")
	labels := selector.Labels(manifest.Path(tmpl, "metadata", "labels"))
	injected := p.Object.SelectorLabels
	if labels == nil && len(injected) > 0 {
		labels = map[string]string{}
	}
	for k, v := range injected {
		labels[k] = v
	}

	if manifest.IsNull(selNode) {
		if w.requireSelector && len(injected) == 0 {
			at := selKey
			if at == nil {
				at, _ = manifest.MapEntry(p.Object.Node, "spec")
			}
			how := "add matchLabels " + formatLabels(labels)
			if len(labels) == 0 {
				how = "and the pod template has no labels to select: label it and select those"
			}
			p.Report(at, specPath+".selector", nil,
				"%s %s has no spec.selector; apps/v1 requires one (%s)",
				p.Object.APIVersion, p.Object.Kind, how)
		}
		return
	}
	selPath := specPath + ".selector"
	var sel *selector.Selector
	var problems []selector.Problem
	if w.mapSelector {
		sel, problems = selector.FromMap(selNode)
	} else {
		sel, problems = selector.FromLabelSelector(selNode)
	}
	invalid := false
	for _, pr := range problems {
		if isAmbiguousPlain(pr.Node) || isPlaceholder(pr.Node) {
			// ambiguous-scalar reports (and fixes) the first; the second
			// is substituted before apply (Flux postBuild, envsubst).
			continue
		}
		invalid = true
		p.Report(pr.Node, join(selPath, pr.Path), nil, "invalid selector: %s", pr.Message)
	}
	if invalid || sel == nil {
		return
	}
	if sel.Empty {
		if w.mapSelector || len(injected) > 0 {
			return // defaults to the template's labels
		}
		p.Report(selKey, selPath, nil,
			"empty selector {} would select every pod in the namespace; the API rejects it for %s (select the template's labels %s)",
			p.Object.Kind, formatLabels(labels))
		return
	}
	if tmpl == nil {
		return
	}
	if ok, failed := known(sel, labels).Matches(labels); !ok && failed != nil {
		f := p.Finding(failed.Node, join(selPath, failed.Path), nil,
			"selector requirement %q does not match the pod template's labels %s; the API rejects the %s (selector does not match template labels)",
			failed.String(), formatLabels(labels), p.Object.Kind)
		f.Related = []string{manifest.Keys(append(w.spec, "template", "metadata", "labels", failed.Key)...).String()}
		p.ReportFinding(f)
	}
}

func isAmbiguousPlain(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.ScalarNode || n.Style != 0 {
		return false
	}
	v, ok := yaml11.Resolve(n.Value)
	return ok && v.Kind != yaml11.Null
}

// known is sel without the requirements a placeholder makes unknown (in
// its values, or in the value the template gives its key): what is
// applied may satisfy them.
func known(sel *selector.Selector, labels map[string]string) *selector.Selector {
	out := &selector.Selector{Empty: sel.Empty}
	for _, r := range sel.Requirements {
		if !placeholder(labels[r.Key]) && !slices.ContainsFunc(r.Values, placeholder) {
			out.Requirements = append(out.Requirements, r)
		}
	}
	return out
}

// formatLabels prints labels as {a: x, b: y}, sorted, for messages: as
// YAML to copy, so a value YAML 1.1 reads as another type is quoted
// ({enabled: "true"}).
func formatLabels(l map[string]string) string {
	if len(l) == 0 {
		return "{} (none)"
	}
	var b strings.Builder
	b.WriteString("{")
	for i, k := range sortedKeys(l) {
		if i > 0 {
			b.WriteString(", ")
		}
		v := l[k]
		if _, ambiguous := yaml11.Resolve(v); ambiguous {
			v = strconv.Quote(v)
		}
		b.WriteString(k + ": " + v)
	}
	b.WriteString("}")
	return b.String()
}
