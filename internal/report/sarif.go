package report

import (
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

const (
	sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion   = "2.1.0"
	toolName       = "shipshape"
	toolInfoURI    = "https://github.com/shipshape-dev/shipshape"
	// srcRoot is the uriBaseId of relative paths: the directory shipshape
	// ran in, which code-scanning uploaders map to the repository root.
	srcRoot = "%SRCROOT%"
)

// The subset of SARIF 2.1.0 that shipshape writes. Field order is output
// order; optional members are omitted rather than written empty.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
	// ColumnKind says how columns count: shipshape's columns count
	// characters (yaml.v3 node columns), i.e. Unicode code points.
	ColumnKind string `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string              `json:"id"`
	Name                 string              `json:"name,omitempty"`
	ShortDescription     *sarifMultiformat   `json:"shortDescription,omitempty"`
	FullDescription      *sarifMultiformat   `json:"fullDescription,omitempty"`
	Help                 *sarifMultiformat   `json:"help,omitempty"`
	DefaultConfiguration *sarifConfiguration `json:"defaultConfiguration,omitempty"`
	Properties           *sarifRuleProps     `json:"properties,omitempty"`
}

type sarifMultiformat struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags    []string `json:"tags"`
	Fixable bool     `json:"fixable"`
}

type sarifResult struct {
	RuleID     string            `json:"ruleId"`
	RuleIndex  int               `json:"ruleIndex"`
	Level      string            `json:"level"`
	Message    sarifMessage      `json:"message"`
	Locations  []sarifLocation   `json:"locations,omitempty"`
	Properties *sarifResultProps `json:"properties,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResultProps struct {
	Field   string `json:"field,omitempty"`
	Fixable bool   `json:"fixable,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogicalLocation struct {
	Name               string              `json:"name,omitempty"`
	FullyQualifiedName string              `json:"fullyQualifiedName,omitempty"`
	Kind               string              `json:"kind"`
	Properties         *sarifResourceProps `json:"properties,omitempty"`
}

type sarifResourceProps struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
}

// writeSARIF writes one run. Fixes are not emitted: shipshape's fixes are
// node-level edits whose byte ranges only the transformers' byte applier
// can compute from the source, and a SARIF fix with guessed ranges is worse
// than none. Fixability is recorded in properties instead.
func writeSARIF(w io.Writer, findings []analysis.Finding, rulesMeta []*analysis.Rule, opt Options) error {
	driver := sarifDriver{
		Name:           toolName,
		InformationURI: toolInfoURI,
		Version:        opt.ToolVersion,
		Rules:          []sarifRule{},
	}
	index := map[string]int{}
	for _, r := range rulesMeta {
		if r == nil {
			continue
		}
		if _, dup := index[r.ID]; dup {
			continue
		}
		index[r.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRuleFor(r))
	}
	// A finding of a rule the caller did not describe still gets a
	// descriptor, so that every ruleIndex is valid.
	for _, f := range findings {
		if _, ok := index[f.Rule]; !ok {
			index[f.Rule] = len(driver.Rules)
			driver.Rules = append(driver.Rules, sarifRule{ID: f.Rule, Name: ruleName(f.Rule)})
		}
	}

	results := make([]sarifResult, 0, len(findings))
	for _, f := range findings {
		res := sarifResult{
			RuleID:    f.Rule,
			RuleIndex: index[f.Rule],
			Level:     sarifLevel(f.Severity),
			Message:   sarifMessage{Text: sarifText(f)},
		}
		var loc sarifLocation
		if f.File != "" {
			pl := &sarifPhysicalLocation{ArtifactLocation: artifactLocation(f.File)}
			if f.Line > 0 {
				pl.Region = &sarifRegion{StartLine: f.Line}
				if f.Column > 0 {
					pl.Region.StartColumn = f.Column
				}
			}
			loc.PhysicalLocation = pl
		}
		if ll, ok := logicalLocation(f); ok {
			loc.LogicalLocations = []sarifLogicalLocation{ll}
		}
		if loc.PhysicalLocation != nil || loc.LogicalLocations != nil {
			res.Locations = []sarifLocation{loc}
		}
		if f.Field != "" || f.Fixable() {
			res.Properties = &sarifResultProps{Field: f.Field, Fixable: f.Fixable()}
		}
		results = append(results, res)
	}

	return encodeJSON(w, sarifLog{
		Schema:  sarifSchemaURI,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool:       sarifTool{Driver: driver},
			Results:    results,
			ColumnKind: "unicodeCodePoints",
		}},
	})
}

func sarifRuleFor(r *analysis.Rule) sarifRule {
	sr := sarifRule{
		ID:                   r.ID,
		Name:                 ruleName(r.ID),
		DefaultConfiguration: &sarifConfiguration{Level: sarifLevel(r.Severity)},
		Properties:           &sarifRuleProps{Tags: []string{"kubernetes"}, Fixable: r.Fixable},
	}
	if r.Summary != "" {
		sr.ShortDescription = &sarifMultiformat{Text: r.Summary}
	}
	docs := r.Documentation()
	doc := strings.TrimSpace(docs.Doc)
	if doc != "" {
		// Doc is Markdown, which reads well enough as plain text too.
		sr.FullDescription = &sarifMultiformat{Text: doc, Markdown: doc}
	}
	if md := helpMarkdown(doc, docs); md != "" {
		text := doc
		if text == "" {
			text = r.Summary
		}
		sr.Help = &sarifMultiformat{Text: text, Markdown: md}
	}
	return sr
}

// helpMarkdown is the rule's documentation followed by its examples.
func helpMarkdown(doc string, docs analysis.Documentation) string {
	var b strings.Builder
	b.WriteString(doc)
	example := func(title, yaml string) {
		yaml = strings.TrimRight(yaml, "\n")
		if strings.TrimSpace(yaml) == "" {
			return
		}
		fence := "```"
		for strings.Contains(yaml, fence) {
			fence += "`"
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(title + "\n\n" + fence + "yaml\n" + yaml + "\n" + fence)
	}
	example("Bad:", docs.Bad)
	example("Good:", docs.Good)
	return b.String()
}

// ruleName turns a rule ID into the PascalCase name SARIF viewers expect:
// "ambiguous-scalar" becomes "AmbiguousScalar".
func ruleName(id string) string {
	var b strings.Builder
	upper := true
	for _, r := range id {
		if r == '-' || r == '_' || r == '.' || r == ' ' {
			upper = true
			continue
		}
		if upper && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		upper = false
		b.WriteRune(r)
	}
	return b.String()
}

func sarifLevel(s analysis.Severity) string {
	switch {
	case s >= analysis.Error:
		return "error"
	case s == analysis.Warning:
		return "warning"
	}
	return "note"
}

// artifactLocation turns a file path into a URI reference: relative paths
// stay relative (forward slashes, "./" dropped) under %SRCROOT%; absolute
// paths become file URIs.
func artifactLocation(file string) sarifArtifactLocation {
	p := filepath.ToSlash(file)
	if filepath.IsAbs(file) {
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x -> /C:/x
		}
		u := url.URL{Scheme: "file", Path: p}
		return sarifArtifactLocation{URI: u.String()}
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	// url.URL escapes spaces, %, ?, # and non-ASCII, and guards a first
	// segment containing ':' with "./" so it cannot read as a scheme.
	u := url.URL{Path: p}
	return sarifArtifactLocation{URI: u.String(), URIBaseID: srcRoot}
}

// logicalLocation names the Kubernetes object of a finding, when known.
func logicalLocation(f analysis.Finding) (sarifLogicalLocation, bool) {
	r := f.Resource
	if r.Kind == "" && r.Name == "" {
		return sarifLogicalLocation{}, false
	}
	parts := make([]string, 0, 3)
	for _, s := range []string{r.Kind, r.Namespace, r.Name} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return sarifLogicalLocation{
		Name:               r.Name,
		FullyQualifiedName: strings.Join(parts, "/"),
		Kind:               "resource",
		Properties: &sarifResourceProps{
			APIVersion: r.APIVersion,
			Kind:       r.Kind,
			Namespace:  r.Namespace,
			Name:       r.Name,
		},
	}, true
}

// sarifText is the message, then its detail as a paragraph of its own:
// viewers show the first line as the result's summary.
func sarifText(f analysis.Finding) string {
	if f.Detail == "" {
		return f.Message
	}
	return f.Message + "\n\n" + f.Detail
}
