package helmrender

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"text/template"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

// The template engine: Helm v3.22's rendering (pkg/engine) written on
// text/template without Helm's package, which imports chartutil and so
// client-go's scheme (docs/helm.md, Weight). Its behaviour, which
// TestRenderEqualsHelmTemplate holds to `helm template`'s:
//   - every template of the chart and its subcharts is parsed into one set,
//     deeper paths first, so that when a parent and a subchart `define` the
//     same name, the parent's (parsed last) is the one used;
//   - each template runs with its chart's scope: .Values is the chart's table
//     (a subchart's is its parent's table under its name), .Chart its
//     metadata with IsRoot, .Files its files, .Subcharts its subcharts'
//     scopes, .Template its own name and base path;
//   - partials (`_*.tpl`, any name starting with "_") are not rendered; a
//     library chart renders nothing;
//   - a missing key prints nothing ("<no value>" is removed);
//   - include, tpl, required and fail as Helm defines them; lookup returns
//     an empty map (no cluster) and getHostByName "" (no DNS).

// includeDepthLimit is Helm's limit on a template including itself.
const includeDepthLimit = 1000

// Helm wraps the message of `required` and `fail` so that its cleanup can
// find it inside text/template's error chain.
const (
	failStart = "HELM_ERR_START"
	failEnd   = "HELM_ERR_END"
)

var failMessage = lazyregexp.New(failStart + `((?s).*)` + failEnd)

// templateScope is one template to render with the values it sees.
type templateScope struct {
	text     string
	vals     map[string]interface{}
	basePath string
}

// renderCharts renders every non-partial template of root and its enabled
// subcharts, keyed by Helm's template name ("root/charts/sub/templates/x").
func renderCharts(root *chart.Chart, top map[string]interface{}) (rendered map[string]string, err error) {
	scopes := map[string]templateScope{}
	collectTemplates(root, scopes, top)
	names := parseOrder(scopes)

	defer func() {
		// text/template panics on some misuse (a nil function result); Helm
		// turns that into an error too.
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	set := template.New("gotpl").Option("missingkey=zero")
	includes := map[string]int{}
	set.Funcs(funcMap(set, includes))
	for _, name := range names {
		if _, err := set.New(name).Parse(scopes[name].text); err != nil {
			return nil, parseError(name, err)
		}
	}
	rendered = make(map[string]string, len(names))
	for _, name := range names {
		if strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		s := scopes[name]
		// Helm sets .Template on the chart's shared scope just before each run.
		s.vals["Template"] = Values{"Name": name, "BasePath": s.basePath}
		var buf strings.Builder
		if err := set.ExecuteTemplate(&buf, name, s.vals); err != nil {
			return nil, execError(name, err)
		}
		rendered[name] = strings.ReplaceAll(buf.String(), "<no value>", "")
	}
	return rendered, nil
}

// parseOrder is Helm's: more path segments first, then by name, descending.
func parseOrder(scopes map[string]templateScope) []string {
	names := make([]string, 0, len(scopes))
	for n := range scopes {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		ca, cb := strings.Count(a, "/"), strings.Count(b, "/")
		if ca != cb {
			return ca > cb
		}
		return a > b
	})
	return names
}

// chartMetadata is .Chart: the metadata's fields, and IsRoot.
type chartMetadata struct {
	chart.Metadata
	IsRoot bool
}

// collectTemplates records c's templates with c's scope, and its
// subcharts', returning c's scope (which becomes .Subcharts.<name>).
func collectTemplates(c *chart.Chart, out map[string]templateScope, parent map[string]interface{}) map[string]interface{} {
	subcharts := map[string]interface{}{}
	scope := map[string]interface{}{
		"Chart":        chartMetadata{*c.Metadata, c.IsRoot()},
		"Files":        newFiles(c.Files),
		"Release":      parent["Release"],
		"Capabilities": parent["Capabilities"],
		"Values":       Values{},
		"Subcharts":    subcharts,
	}
	if c.IsRoot() {
		scope["Values"] = parent["Values"]
	} else if pv, ok := parent["Values"].(Values); ok {
		if t, ok := pv.table(c.Name()); ok {
			scope["Values"] = t
		}
	}
	for _, sub := range c.Dependencies() {
		subcharts[sub.Name()] = collectTemplates(sub, out, scope)
	}
	full := c.ChartFullPath()
	library := strings.EqualFold(c.Metadata.Type, "library")
	for _, t := range c.Templates {
		if t == nil || (library && !strings.HasPrefix(path.Base(t.Name), "_")) {
			continue
		}
		out[path.Join(full, t.Name)] = templateScope{text: string(t.Data), vals: scope, basePath: path.Join(full, "templates")}
	}
	return scope
}

// parseError is Helm's form: "parse error at (name:line): message".
func parseError(name string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) == 1 {
		return fmt.Errorf("parse error in (%s): %s", name, err)
	}
	return fmt.Errorf("parse error at (%s): %s", tokens[1], tokens[len(tokens)-1])
}

// execError is Helm's form for required and fail: "execution error at
// (name:line:col): message"; other execution errors keep text/template's text.
func execError(name string, err error) error {
	// Only text/template's own ExecError is rewritten, as Helm does.
	if _, ok := err.(template.ExecError); !ok { //nolint:errorlint // Helm's test is the type itself
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %s", name, err)
	}
	if m := failMessage.FindStringSubmatch(tokens[2]); len(m) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", tokens[1], m[1])
	}
	return err
}
