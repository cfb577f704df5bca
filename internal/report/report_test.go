package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Rules are built here rather than taken from the registry, so that these
// tests do not depend on the rules being written elsewhere.
func testRules() []*analysis.Rule {
	return []*analysis.Rule{
		{
			ID:       "ambiguous-scalar",
			Severity: analysis.Error,
			Summary:  "Unquoted scalar that Kubernetes reads as a bool, number or null",
			Docs: analysis.StaticDocs(analysis.Documentation{
				Doc: "Kubernetes decodes manifests as YAML 1.1, where `yes`, `on`, `0755` and `~` " +
					"are not strings.\n\nQuote the value to keep it a string.",
				Bad:  "metadata:\n  labels:\n    active: yes\n",
				Good: "metadata:\n  labels:\n    active: \"yes\"\n",
			}),
			Fixable: true,
		},
		{
			ID:       "service-selects-nothing",
			Severity: analysis.Warning,
			Summary:  "Service selector matches no pod template",
			Docs:     analysis.StaticDocs(analysis.Documentation{Doc: "A Service whose selector matches no pod has no endpoints."}),
		},
		{
			ID:       "latest-tag",
			Severity: analysis.Info,
			Summary:  "Image uses the latest tag",
		},
	}
}

func deployment(ns, name string) manifest.Resource {
	return manifest.Resource{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: name}
}

// testFindings covers: a fixable error, a warning with characters that
// every format must escape, an info with non-ASCII in a path with a space,
// a finding of a rule missing from the metadata with no position and a
// multi-line message, and an absolute path.
func testFindings() []analysis.Finding {
	return []analysis.Finding{
		{
			Rule:     "ambiguous-scalar",
			Severity: analysis.Error,
			Message:  `value yes is read as bool true by Kubernetes; quote it`,
			Resource: deployment("prod", "web"),
			Field:    "spec.template.metadata.labels.active",
			File:     "deploy/web.yaml",
			Line:     12,
			Column:   17,
			Fix:      &analysis.Fix{Message: "quote the value"},
			Doc:      0,
		},
		{
			Rule:     "service-selects-nothing",
			Severity: analysis.Warning,
			Message:  `selector {app: "web", tier: <none>} & 'x' matches no pod, 100%`,
			Resource: manifest.Resource{APIVersion: "v1", Kind: "Service", Namespace: "prod", Name: "web"},
			Field:    "spec.selector",
			File:     "./deploy/svc.yaml",
			Line:     3,
			Column:   3,
			Doc:      1,
		},
		{
			Rule:     "latest-tag",
			Severity: analysis.Info,
			Message:  "image nginx:latest — pin a tag or digest (Grüße)",
			Resource: manifest.Resource{APIVersion: "v1", Kind: "Pod", Name: "nginx"},
			Field:    "spec.containers[0].image",
			File:     "deploy/my app/pod.yaml",
			Line:     7,
			Column:   14,
			Doc:      0,
		},
		{
			Rule:     "kustomize-parse",
			Severity: analysis.Error,
			Message:  "cannot read kustomization:\nline 1: mapping values are not allowed here",
			File:     "kustomization.yaml",
			Doc:      -1,
		},
		{
			Rule:     "service-selects-nothing",
			Severity: analysis.Warning,
			Message:  "selector app=api matches no pod",
			Resource: manifest.Resource{APIVersion: "v1", Kind: "Service", Namespace: "team-a", Name: "api"},
			Field:    "spec.selector",
			File:     "/abs/manifests/api.yaml",
			Line:     1,
			Column:   1,
			Fix:      &analysis.Fix{Message: "quote the value"},
		},
	}
}

func testSummary(findings []analysis.Finding) Summary {
	s := Count(findings)
	s.Files, s.Resources = 12, 40
	return s
}

func TestGolden(t *testing.T) {
	full, none := testFindings(), []analysis.Finding(nil)
	opt := Options{ToolVersion: "0.1.0-test", FixCommand: "shipshape fix"}
	colour := opt
	colour.Color = true
	tests := []struct {
		golden   string
		format   string
		findings []analysis.Finding
		opt      Options
	}{
		{"text.golden", "text", full, opt},
		{"text-color.golden", "text", full, colour},
		{"text-empty.golden", "text", none, opt},
		{"json.golden", "json", full, opt},
		{"json-empty.golden", "json", none, opt},
		{"sarif.golden", "sarif", full, opt},
		{"sarif-empty.golden", "sarif", none, Options{}},
		{"github.golden", "github", full, opt},
		{"github-empty.golden", "github", none, opt},
		{"junit.golden", "junit", full, opt},
		{"junit-empty.golden", "junit", none, opt},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tt.format, tt.findings, testSummary(tt.findings), testRules(), tt.opt); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, buf.Bytes())
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func TestFormats(t *testing.T) {
	got := Formats()
	want := []string{"text", "json", "sarif", "github", "junit"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Formats() = %q, want %q", got, want)
	}
	got[0] = "changed"
	if Formats()[0] != "text" {
		t.Fatal("Formats returns a shared slice")
	}
	for _, f := range want {
		if err := Write(&bytes.Buffer{}, f, testFindings(), Summary{}, nil, Options{}); err != nil {
			t.Errorf("Write(%q) with no rule metadata: %v", f, err)
		}
	}
	err := Write(&bytes.Buffer{}, "xml", nil, Summary{}, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), `"xml"`) || !strings.Contains(err.Error(), "junit") {
		t.Fatalf("unknown format: err = %v", err)
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		name     string
		findings []analysis.Finding
		want     Summary
	}{
		{"none", nil, Summary{}},
		{"mixed", testFindings(), Summary{Errors: 2, Warnings: 2, Infos: 1, Fixable: 2}},
		{"fixable info", []analysis.Finding{{Severity: analysis.Info, Fix: &analysis.Fix{}}}, Summary{Infos: 1, Fixable: 1}},
		// Two HelmReleases (info, unlisted) and one root with two remote
		// bases, reported twice (warnings, listed): three applications.
		{"not rendered", []analysis.Finding{
			{Severity: analysis.Info, Unrendered: analysis.HelmRelease},
			{Severity: analysis.Info, Unrendered: analysis.HelmRelease},
			{Severity: analysis.Warning, Unrendered: analysis.RemoteBase, Roots: []string{"overlays/prod"}},
			{Severity: analysis.Warning, Unrendered: analysis.RemoteBase, Roots: []string{"overlays/prod"}},
			{Severity: analysis.Warning, Unrendered: analysis.HelmCharts, Roots: []string{"overlays/prod", "overlays/dev"}},
		}, Summary{Warnings: 3, Unlisted: 2, NotRendered: map[analysis.Unrendered]int{analysis.HelmRelease: 2, analysis.RemoteBase: 1, analysis.HelmCharts: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Count(tt.findings); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Count = %+v, want %+v", got, tt.want)
			}
		})
	}
}

type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteErrors(t *testing.T) {
	for _, f := range Formats() {
		err := Write(failWriter{}, f, testFindings(), Summary{}, testRules(), Options{})
		if !errors.Is(err, errWrite) {
			t.Errorf("%s: err = %v, want the writer's error", f, err)
		}
	}
}
