package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// The official OASIS SARIF 2.1.0 schema (errata01), committed verbatim;
// testdata/README.md says where it comes from.
const (
	sarifSchemaFile   = "sarif-schema-2.1.0.json"
	sarifSchemaID     = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	sarifSchemaSHA256 = "ddddcccbf95c7c50c037b5b07eff4140556278ca574ff374db46786b5fce7949"
)

var sarifSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	data, err := os.ReadFile(filepath.Join("testdata", sarifSchemaFile))
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // uri, uri-reference, date-time are checked too
	if err := c.AddResource(sarifSchemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(sarifSchemaID)
})

func validateSARIF(t *testing.T, data []byte) error {
	t.Helper()
	sch, err := sarifSchema()
	if err != nil {
		t.Fatalf("loading the SARIF schema: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func TestSARIFSchemaIsOfficial(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", sarifSchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != sarifSchemaSHA256 {
		t.Fatalf("testdata/%s changed: sha256 %s, want %s", sarifSchemaFile, got, sarifSchemaSHA256)
	}
	var head struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		t.Fatal(err)
	}
	if head.ID != sarifSchemaID || !strings.Contains(head.Title, "SARIF") {
		t.Fatalf("unexpected schema header %+v", head)
	}
}

func writeSARIFBytes(t *testing.T, findings []analysis.Finding, meta []*analysis.Rule, opt Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, "sarif", findings, Count(findings), meta, opt); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSARIFValidatesAgainstOfficialSchema(t *testing.T) {
	tests := []struct {
		name     string
		findings []analysis.Finding
		meta     []*analysis.Rule
		opt      Options
	}{
		{"findings with metadata", testFindings(), testRules(), Options{ToolVersion: "1.2.3"}},
		{"findings without metadata", testFindings(), nil, Options{}},
		{"no findings", nil, testRules(), Options{ToolVersion: "dev"}},
		{"nothing at all", nil, nil, Options{}},
		{"rule with empty doc", []analysis.Finding{{Rule: "x", File: "a.yaml", Line: 1}},
			[]*analysis.Rule{{ID: "x"}, nil, {ID: "x"}}, Options{}},
		{"odd paths", []analysis.Finding{
			{Rule: "x", File: "a:b.yaml", Line: 1, Column: 1},
			{Rule: "x", File: "dir/#1?/100%.yaml", Line: 2},
			{Rule: "x", File: "../up/ü.yaml", Line: 3},
			{Rule: "x", File: "", Line: 3},
		}, nil, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := writeSARIFBytes(t, tt.findings, tt.meta, tt.opt)
			if err := validateSARIF(t, data); err != nil {
				t.Fatalf("output does not validate: %v\n%s", err, data)
			}
		})
	}
}

// The validation must be able to fail: each mutation of a valid document
// breaks one rule of the schema.
func TestSARIFSchemaRejectsInvalid(t *testing.T) {
	valid := writeSARIFBytes(t, testFindings(), testRules(), Options{ToolVersion: "1.2.3"})
	if err := validateSARIF(t, valid); err != nil {
		t.Fatalf("baseline does not validate: %v", err)
	}
	tests := []struct {
		name   string
		at     string // where the validator must complain
		mutate func(log map[string]any)
	}{
		{"unknown level", "/runs/0/results/0/level", func(l map[string]any) { result(l, 0)["level"] = "fatal" }},
		{"line 0", "/runs/0/results/0/locations/0/physicalLocation/region/startLine",
			func(l map[string]any) { region(l, 0)["startLine"] = 0 }},
		{"driver without name", "/runs/0/tool/driver", func(l map[string]any) { delete(driver(l), "name") }},
		{"wrong version", "/version", func(l map[string]any) { l["version"] = "2.0.0" }},
		{"result without message", "/runs/0/results/0", func(l map[string]any) { delete(result(l, 0), "message") }},
		{"unknown property", "/runs/0/results/0", func(l map[string]any) { result(l, 0)["severity"] = "error" }},
		{"rules not unique", "/runs/0/tool/driver/rules", func(l map[string]any) {
			d := driver(l)
			rs := d["rules"].([]any)
			d["rules"] = append(rs, rs[0])
		}},
		{"informationUri not a URI", "/runs/0/tool/driver/informationUri",
			func(l map[string]any) { driver(l)["informationUri"] = "shipshape" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log map[string]any
			if err := json.Unmarshal(valid, &log); err != nil {
				t.Fatal(err)
			}
			tt.mutate(log)
			data, err := json.Marshal(log)
			if err != nil {
				t.Fatal(err)
			}
			err = validateSARIF(t, data)
			if err == nil {
				t.Fatalf("schema accepted an invalid document:\n%s", data)
			}
			if !strings.Contains(err.Error(), "'"+tt.at+"'") {
				t.Fatalf("rejected, but not at %s: %v", tt.at, err)
			}
		})
	}
}

func run0(l map[string]any) map[string]any { return l["runs"].([]any)[0].(map[string]any) }
func driver(l map[string]any) map[string]any {
	return run0(l)["tool"].(map[string]any)["driver"].(map[string]any)
}
func result(l map[string]any, i int) map[string]any {
	return run0(l)["results"].([]any)[i].(map[string]any)
}
func region(l map[string]any, i int) map[string]any {
	loc := result(l, i)["locations"].([]any)[0].(map[string]any)
	return loc["physicalLocation"].(map[string]any)["region"].(map[string]any)
}

// Decoded view of the parts the tests check.
type sarifCheck struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name, Version, InformationURI string
				Rules                         []struct {
					ID, Name             string
					ShortDescription     *struct{ Text string }
					Help                 *struct{ Text, Markdown string }
					DefaultConfiguration *struct{ Level string }
				}
			}
		}
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation *struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					}
					Region *struct{ StartLine, StartColumn int }
				}
				LogicalLocations []struct {
					Name, FullyQualifiedName, Kind string
				}
			}
			Fixes []any
		}
	}
}

func TestSARIFContent(t *testing.T) {
	fs := testFindings()
	var log sarifCheck
	if err := json.Unmarshal(writeSARIFBytes(t, fs, testRules(), Options{ToolVersion: "1.2.3"}), &log); err != nil {
		t.Fatal(err)
	}
	if log.Schema != "https://json.schemastore.org/sarif-2.1.0.json" || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("header: %q %q, %d runs", log.Schema, log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	d := run.Tool.Driver
	if d.Name != "shipshape" || d.Version != "1.2.3" || d.InformationURI == "" {
		t.Errorf("driver = %+v", d)
	}
	// Three described rules plus one descriptor for the undescribed rule.
	if len(d.Rules) != 4 || d.Rules[3].ID != "kustomize-parse" {
		t.Fatalf("rules: %+v", d.Rules)
	}
	r0 := d.Rules[0]
	if r0.Name != "AmbiguousScalar" || r0.ShortDescription == nil || r0.DefaultConfiguration.Level != "error" ||
		r0.Help == nil || !strings.Contains(r0.Help.Markdown, "```yaml\nmetadata:") {
		t.Errorf("rule 0 = %+v", r0)
	}
	if h := d.Rules[1].Help; h == nil || strings.Contains(h.Markdown, "```") {
		t.Errorf("rule without examples: help %+v", h)
	}
	if lvl := d.Rules[2].DefaultConfiguration.Level; lvl != "note" {
		t.Errorf("info rule level = %q, want note", lvl)
	}

	if len(run.Results) != len(fs) {
		t.Fatalf("%d results for %d findings", len(run.Results), len(fs))
	}
	wantURI := []struct{ uri, base string }{
		{"deploy/web.yaml", "%SRCROOT%"},
		{"deploy/svc.yaml", "%SRCROOT%"},
		{"deploy/my%20app/pod.yaml", "%SRCROOT%"},
		{"kustomization.yaml", "%SRCROOT%"},
		{"file:///abs/manifests/api.yaml", ""},
	}
	wantLevel := []string{"error", "warning", "note", "error", "warning"}
	for i, res := range run.Results {
		f := fs[i]
		if d.Rules[res.RuleIndex].ID != res.RuleID || res.RuleID != f.Rule {
			t.Errorf("result %d: ruleId %q, ruleIndex %d -> %q", i, res.RuleID, res.RuleIndex, d.Rules[res.RuleIndex].ID)
		}
		if res.Level != wantLevel[i] || res.Message.Text != f.Message {
			t.Errorf("result %d: level %q message %q", i, res.Level, res.Message.Text)
		}
		if res.Fixes != nil {
			t.Errorf("result %d has fixes", i)
		}
		pl := res.Locations[0].PhysicalLocation
		if pl.ArtifactLocation.URI != wantURI[i].uri || pl.ArtifactLocation.URIBaseID != wantURI[i].base {
			t.Errorf("result %d: artifactLocation %+v, want %+v", i, pl.ArtifactLocation, wantURI[i])
		}
		switch {
		case f.Line == 0 && pl.Region != nil:
			t.Errorf("result %d: region for line 0: %+v", i, pl.Region)
		case f.Line > 0 && (pl.Region == nil || pl.Region.StartLine != f.Line || pl.Region.StartColumn != f.Column):
			t.Errorf("result %d: region %+v, want %d:%d", i, pl.Region, f.Line, f.Column)
		}
		ll := res.Locations[0].LogicalLocations
		if f.Resource.Kind == "" {
			if ll != nil {
				t.Errorf("result %d: logical location without a resource: %+v", i, ll)
			}
			continue
		}
		if len(ll) != 1 || ll[0].Kind != "resource" || ll[0].Name != f.Resource.Name {
			t.Errorf("result %d: logicalLocations %+v", i, ll)
		}
	}
	if got := run.Results[0].Locations[0].LogicalLocations[0].FullyQualifiedName; got != "Deployment/prod/web" {
		t.Errorf("fullyQualifiedName = %q", got)
	}
	if got := run.Results[2].Locations[0].LogicalLocations[0].FullyQualifiedName; got != "Pod/nginx" {
		t.Errorf("fullyQualifiedName without namespace = %q", got)
	}
}

func TestArtifactLocation(t *testing.T) {
	tests := []struct{ in, uri, base string }{
		{"a.yaml", "a.yaml", "%SRCROOT%"},
		{"./a.yaml", "a.yaml", "%SRCROOT%"},
		{"././x/a.yaml", "x/a.yaml", "%SRCROOT%"},
		{"a:b.yaml", "./a:b.yaml", "%SRCROOT%"},
		{"x/#1?/100%.yaml", "x/%231%3F/100%25.yaml", "%SRCROOT%"},
		{"ü.yaml", "%C3%BC.yaml", "%SRCROOT%"},
		{"/etc/k8s/a b.yaml", "file:///etc/k8s/a%20b.yaml", ""},
	}
	for _, tt := range tests {
		got := artifactLocation(tt.in)
		if got.URI != tt.uri || got.URIBaseID != tt.base {
			t.Errorf("artifactLocation(%q) = %+v, want %q %q", tt.in, got, tt.uri, tt.base)
		}
	}
}

func TestRuleName(t *testing.T) {
	for in, want := range map[string]string{
		"ambiguous-scalar":        "AmbiguousScalar",
		"service-selects-nothing": "ServiceSelectsNothing",
		"x":                       "X",
		"":                        "",
		"lws_template.ok":         "LwsTemplateOk",
	} {
		if got := ruleName(in); got != want {
			t.Errorf("ruleName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSARIFRuleHelp(t *testing.T) {
	tests := []struct {
		name     string
		rule     analysis.Rule
		wantText string
		wantMD   string // "" means no help at all
	}{
		{"doc and examples", analysis.Rule{ID: "a", Summary: "S", Docs: analysis.StaticDocs(analysis.Documentation{Doc: "Why.\n", Bad: "a: yes\n", Good: "a: \"yes\"\n"})},
			"Why.", "Why.\n\nBad:\n\n```yaml\na: yes\n```\n\nGood:\n\n```yaml\na: \"yes\"\n```"},
		{"examples only", analysis.Rule{ID: "a", Summary: "S", Docs: analysis.StaticDocs(analysis.Documentation{Bad: "a: yes"})},
			"S", "Bad:\n\n```yaml\na: yes\n```"},
		{"fence inside example", analysis.Rule{ID: "a", Docs: analysis.StaticDocs(analysis.Documentation{Doc: "D", Good: "x: |\n  ```\n"})},
			"D", "D\n\nGood:\n\n````yaml\nx: |\n  ```\n````"},
		{"nothing", analysis.Rule{ID: "a", Summary: "S"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sr := sarifRuleFor(&tt.rule)
			if tt.wantMD == "" {
				if sr.Help != nil || sr.FullDescription != nil {
					t.Fatalf("help %+v, fullDescription %+v; want none", sr.Help, sr.FullDescription)
				}
				return
			}
			if sr.Help == nil || sr.Help.Text != tt.wantText || sr.Help.Markdown != tt.wantMD {
				t.Fatalf("help = %+v\nwant text %q markdown %q", sr.Help, tt.wantText, tt.wantMD)
			}
		})
	}
}
