package helmrender

import (
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
)

// Dependencies as `helm template` prepares them before rendering (Helm
// v3.22's ProcessDependenciesWithMerge, written here without chartutil):
// aliases become copies of the vendored chart under the alias name; tags and
// then conditions (read from the coalesced values) disable dependencies; then
// each chart's import-values are merged into its values, innermost first.

func processDependencies(c *chart.Chart, user Values) error {
	if err := processDependencyEnabled(c, user, ""); err != nil {
		return err
	}
	return processImportValuesTree(c)
}

// aliasDependency is the vendored chart a dependency entry names, at a
// version its range admits, as a copy renamed to the alias if it has one.
func aliasDependency(charts []*chart.Chart, dep *chart.Dependency) *chart.Chart {
	for _, c := range charts {
		if c == nil || c.Name() != dep.Name || !compatibleRange(dep.Version, c.Metadata.Version) {
			continue
		}
		out := *c
		md := *c.Metadata
		out.Metadata = &md
		if dep.Alias != "" {
			md.Name = dep.Alias
		}
		return &out
	}
	return nil
}

func processDependencyEnabled(c *chart.Chart, vals map[string]interface{}, path string) error {
	if c.Metadata.Dependencies == nil {
		return nil
	}
	// Vendored charts that no entry names stay as they are; the named ones
	// are replaced by their (aliased) copies.
	var deps []*chart.Chart
	for _, existing := range c.Dependencies() {
		if !namedByEntry(c, existing) {
			deps = append(deps, existing)
		}
	}
	for _, req := range c.Metadata.Dependencies {
		if req == nil {
			continue
		}
		if d := aliasDependency(c.Dependencies(), req); d != nil {
			deps = append(deps, d)
		}
		if req.Alias != "" {
			req.Name = req.Alias
		}
	}
	c.SetDependencies(deps...)

	for _, req := range c.Metadata.Dependencies {
		if req != nil {
			req.Enabled = true
		}
	}
	cvals, err := coalesceValues(c, vals, false)
	if err != nil {
		return err
	}
	applyTags(c.Metadata.Dependencies, cvals)
	applyConditions(c.Metadata.Dependencies, cvals, path)

	disabled := map[string]bool{}
	for _, req := range c.Metadata.Dependencies {
		if req != nil && !req.Enabled {
			disabled[req.Name] = true
		}
	}
	var kept []*chart.Chart
	for _, d := range c.Dependencies() {
		if !disabled[d.Metadata.Name] {
			kept = append(kept, d)
		}
	}
	var keptMeta []*chart.Dependency
	for _, req := range c.Metadata.Dependencies {
		if req == nil || !disabled[req.Name] {
			keptMeta = append(keptMeta, req)
		}
	}
	for _, d := range kept {
		if err := processDependencyEnabled(d, cvals, path+d.Metadata.Name+"."); err != nil {
			return err
		}
	}
	c.Metadata.Dependencies = keptMeta
	c.SetDependencies(kept...)
	return nil
}

func namedByEntry(c *chart.Chart, existing *chart.Chart) bool {
	for _, req := range c.Metadata.Dependencies {
		if req != nil && existing.Name() == req.Name && compatibleRange(req.Version, existing.Metadata.Version) {
			return true
		}
	}
	return false
}

// applyTags: a dependency with a true tag is enabled, one with only false
// tags disabled; non-bool tags are ignored (Helm warns).
func applyTags(reqs []*chart.Dependency, cvals Values) {
	tags, ok := cvals.table("tags")
	if !ok {
		return
	}
	for _, r := range reqs {
		if r == nil {
			continue
		}
		var hasTrue, hasFalse bool
		for _, k := range r.Tags {
			if b, ok := tags[k].(bool); ok {
				hasTrue, hasFalse = hasTrue || b, hasFalse || !b
			}
		}
		r.Enabled = hasTrue || !hasFalse
	}
}

// applyConditions: the first condition path that holds a bool decides.
func applyConditions(reqs []*chart.Dependency, cvals Values, path string) {
	for _, r := range reqs {
		if r == nil {
			continue
		}
		for _, cond := range strings.Split(strings.TrimSpace(r.Condition), ",") {
			if cond == "" {
				continue
			}
			if v, ok := cvals.pathValue(path + cond); ok {
				if b, ok := v.(bool); ok {
					r.Enabled = b
					break
				}
			}
		}
	}
}

func processImportValuesTree(c *chart.Chart) error {
	for _, d := range c.Dependencies() {
		if err := processImportValuesTree(d); err != nil {
			return err
		}
	}
	return processImportValues(c)
}

// processImportValues merges each dependency's imported tables into the
// chart's values: `{child: a.b, parent: x}` puts the subchart's a.b at x,
// a plain string s imports the subchart's exports.s at the top. The
// chart's own values win over imports.
func processImportValues(c *chart.Chart) error {
	if c.Metadata.Dependencies == nil {
		return nil
	}
	cvals, err := coalesceValues(c, nil, true)
	if err != nil {
		return err
	}
	imported := map[string]interface{}{}
	for _, r := range c.Metadata.Dependencies {
		if r == nil {
			continue
		}
		var normalized []interface{}
		for _, riv := range r.ImportValues {
			var child, parent string
			switch iv := riv.(type) {
			case map[string]interface{}:
				child, parent = fmt.Sprintf("%v", iv["child"]), fmt.Sprintf("%v", iv["parent"])
			case string:
				child, parent = "exports."+iv, "."
			default:
				continue
			}
			normalized = append(normalized, map[string]string{"child": child, "parent": parent})
			t, ok := cvals.table(r.Name + "." + child)
			if !ok {
				continue // Helm warns: the subchart has no such table
			}
			imported = coalesceTables(imported, atPath(parent, t), true)
		}
		r.ImportValues = normalized
	}
	c.Values = coalesceTables(copyTable(cvals), imported, true)
	return nil
}

// atPath nests data under a dotted path ("." is the top).
func atPath(dotted string, data map[string]interface{}) map[string]interface{} {
	if dotted == "." {
		return data
	}
	segs := strings.Split(dotted, ".")
	cur := data
	for i := len(segs) - 1; i >= 0; i-- {
		cur = map[string]interface{}{segs[i]: cur}
	}
	return cur
}
