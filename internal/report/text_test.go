package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

func TestSummaryLine(t *testing.T) {
	tests := []struct {
		sum  Summary
		fix  string
		want string
	}{
		{Summary{Files: 12, Resources: 40}, "shipshape fix", "no problems in 12 files (40 resources)"},
		{Summary{Files: 1, Resources: 1}, "", "no problems in 1 file (1 resource)"},
		{Summary{}, "", "no problems in 0 files (0 resources)"},
		{Summary{Files: 12, Resources: 40, Errors: 3, Warnings: 1, Fixable: 2}, "shipshape fix",
			"3 errors, 1 warning, 0 infos in 12 files (40 resources); 2 fixable: run shipshape fix"},
		{Summary{Files: 1, Resources: 2, Errors: 1, Warnings: 2, Infos: 1}, "shipshape fix",
			"1 error, 2 warnings, 1 info in 1 file (2 resources)"},
		{Summary{Files: 2, Resources: 1, Infos: 5, Fixable: 1}, "",
			"0 errors, 0 warnings, 5 infos in 2 files (1 resource); 1 fixable"},
		// Never "no problems" about what was not rendered.
		{Summary{Files: 26, Resources: 29, Unlisted: 6, NotRendered: map[analysis.Unrendered]int{analysis.HelmRelease: 6}}, "shipshape fix",
			"0 errors, 0 warnings, 0 infos in 26 files (29 resources); 6 applications not rendered: 6 Helm releases (shipshape -v lists them)"},
		{Summary{Files: 3, Resources: 2, Warnings: 1, NotRendered: map[analysis.Unrendered]int{analysis.RemoteBase: 1}}, "",
			"0 errors, 1 warning, 0 infos in 3 files (2 resources); 1 application not rendered: 1 remote base"},
		{Summary{Files: 9, Resources: 9, Warnings: 1, Unlisted: 3, NotRendered: map[analysis.Unrendered]int{analysis.RemoteBase: 1, analysis.HelmRelease: 2, analysis.GeneratedApps: 1}}, "",
			"0 errors, 1 warning, 0 infos in 9 files (9 resources); 4 applications not rendered: 2 Helm releases, 1 remote base, 1 ApplicationSet (shipshape -v lists them)"},
		// A shard's counts are its own: the line says whose.
		{Summary{Files: 12, Resources: 40, Shard: "2/5"}, "", "shard 2/5: no problems in 12 files (40 resources)"},
		{Summary{Files: 12, Resources: 40, Errors: 1, Shard: "1/3"}, "",
			"shard 1/3: 1 error, 0 warnings, 0 infos in 12 files (40 resources)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := summaryLine(tt.sum, tt.fix, false); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestTextLines(t *testing.T) {
	tests := []struct {
		name  string
		f     analysis.Finding
		color bool
		want  string
	}{
		{"full position",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", File: "a.yaml", Line: 3, Column: 5},
			false, "a.yaml:3:5: error r: m"},
		{"line 0",
			analysis.Finding{Rule: "r", Severity: analysis.Warning, Message: "m", File: "a.yaml"},
			false, "a.yaml: warning r: m"},
		{"column 0",
			analysis.Finding{Rule: "r", Severity: analysis.Info, Message: "m", File: "a.yaml", Line: 9},
			false, "a.yaml:9: info r: m"},
		{"fixable",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", File: "a.yaml", Line: 1, Column: 1, Fix: &analysis.Fix{}},
			false, "a.yaml:1:1: error r: m [fixable]"},
		{"control characters are made visible",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "a\nb\x1b[31mc\x00\u009b\xff\td", File: "a.yaml", Line: 1, Column: 1},
			false, `a.yaml:1:1: error r: a\nb\x1b[31mc\x00\u009b\xff` + "\td"},
		{"colour error",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", File: "a.yaml", Line: 1, Column: 2},
			true, "\x1b[1ma.yaml:1:2\x1b[0m: \x1b[31merror\x1b[0m r: m"},
		{"colour warning",
			analysis.Finding{Rule: "r", Severity: analysis.Warning, Message: "m", File: "a.yaml"},
			true, "\x1b[1ma.yaml\x1b[0m: \x1b[33mwarning\x1b[0m r: m"},
		{"colour info",
			analysis.Finding{Rule: "r", Severity: analysis.Info, Message: "m", File: "a.yaml", Line: 4, Column: 1},
			true, "\x1b[1ma.yaml:4:1\x1b[0m: \x1b[36minfo\x1b[0m r: m"},
		{"colour with a resource",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", File: "a.yaml", Line: 1, Column: 2,
				Resource: manifest.Resource{Kind: "Deployment", Namespace: "prod", Name: "web"}},
			true, "\x1b[1ma.yaml:1:2\x1b[0m: \x1b[31merror\x1b[0m r: Deployment/web (namespace prod): m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			fs := []analysis.Finding{tt.f}
			if err := Write(&buf, "text", fs, Count(fs), nil, Options{Color: tt.color}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			if len(lines) != 2 {
				t.Fatalf("want a finding line and a summary line, got %q", buf.String())
			}
			if lines[0] != tt.want {
				t.Errorf("got  %q\nwant %q", lines[0], tt.want)
			}
			if strings.Contains(lines[1], "\x1b") {
				t.Errorf("summary line is coloured: %q", lines[1])
			}
		})
	}
}

// The resource goes between the rule and the message, after the
// "file:line:col: " prefix that editors' problem matchers read, and is
// written like krm.Describe's "Kind/name (namespace ns)".
func TestTextResource(t *testing.T) {
	at := func(r manifest.Resource) analysis.Finding {
		return analysis.Finding{Rule: "ambiguous-scalar", Severity: analysis.Error, Message: "quote it",
			Resource: r, Field: "metadata.labels.active", File: "deploy.yaml", Line: 7, Column: 13}
	}
	tests := []struct {
		name string
		f    analysis.Finding
		want string
	}{
		{"no resource keeps the file-level shape",
			analysis.Finding{Rule: "yaml-syntax", Severity: analysis.Error, Message: "did not find expected key", File: "deploy.yaml", Line: 3, Column: 1},
			"deploy.yaml:3:1: error yaml-syntax: did not find expected key"},
		{"no resource, no position",
			analysis.Finding{Rule: "read-error", Severity: analysis.Error, Message: "permission denied", File: "deploy.yaml"},
			"deploy.yaml: error read-error: permission denied"},
		{"apiVersion alone is no resource",
			at(manifest.Resource{APIVersion: "v1"}),
			"deploy.yaml:7:13: error ambiguous-scalar: quote it"},
		{"kind and name",
			at(manifest.Resource{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}),
			"deploy.yaml:7:13: error ambiguous-scalar: Deployment/web: quote it"},
		{"with a namespace",
			at(manifest.Resource{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "prod", Name: "web"}),
			"deploy.yaml:7:13: error ambiguous-scalar: Deployment/web (namespace prod): quote it"},
		{"kind without a name",
			at(manifest.Resource{Kind: "ConfigMap"}),
			"deploy.yaml:7:13: error ambiguous-scalar: ConfigMap: quote it"},
		{"name without a kind",
			at(manifest.Resource{Namespace: "prod", Name: "web"}),
			"deploy.yaml:7:13: error ambiguous-scalar: web (namespace prod): quote it"},
		{"fixable",
			func() analysis.Finding {
				f := at(manifest.Resource{Kind: "Deployment", Name: "web"})
				f.Fix = &analysis.Fix{}
				return f
			}(),
			"deploy.yaml:7:13: error ambiguous-scalar: Deployment/web: quote it [fixable]"},
		{"hostile name, namespace and kind are made visible",
			at(manifest.Resource{
				Kind:      "Deploy\x1b]0;pwned\x07ment",
				Namespace: "prod\r\nother.yaml:1:1: error fake: forged",
				Name:      "web\n\x1b[2J\x1b[31mred\u009b\xff",
			}),
			`deploy.yaml:7:13: error ambiguous-scalar: Deploy\x1b]0;pwned\x07ment/web\n\x1b[2J\x1b[31mred\u009b\xff` +
				` (namespace prod\r\nother.yaml:1:1: error fake: forged): quote it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			fs := []analysis.Finding{tt.f}
			if err := Write(&buf, "text", fs, Count(fs), nil, Options{}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			if len(lines) != 2 {
				t.Fatalf("want a finding line and a summary line, got %q", buf.String())
			}
			if lines[0] != tt.want {
				t.Errorf("got  %q\nwant %q", lines[0], tt.want)
			}
			if strings.ContainsAny(lines[0], "\x1b\r") {
				t.Errorf("control character on the line: %q", lines[0])
			}
		})
	}
}

func TestTextNoColourWhenOff(t *testing.T) {
	var buf bytes.Buffer
	fs := testFindings()
	if err := Write(&buf, "text", fs, Count(fs), nil, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "\x1b") {
		t.Fatalf("escape sequence without Color:\n%s", buf.String())
	}
}

// A line longer than maxTextLine is fitted: the roots shortened first,
// then the message's middle elided, keeping its start (the cause) and its
// last clause (the fix); -v prints it whole, with the detail below.
func TestTextLineFits(t *testing.T) {
	long := strings.Repeat("cause words ", 20) + "and more words; " + strings.Repeat("consequence words ", 10) + ": quote it (\"yes\")"
	roots := []string{"apps/overlays/production-east-1", "apps/overlays/production-west-2", "apps/overlays/staging-central-9"}
	tests := []struct {
		name     string
		f        analysis.Finding
		verbose  bool
		want     []string // substrings of the line
		wantNone []string
	}{
		{"short line as it was",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", File: "a/b.yaml", Line: 1, Column: 1, Roots: roots},
			false, []string{"(kustomize roots " + strings.Join(roots, ", ") + ")"}, nil},
		{"long message: start and fix kept",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: long, File: "a/b.yaml", Line: 1, Column: 1},
			false, []string{"a/b.yaml:1:1: error r: cause words cause words", " … quote it (\"yes\")"}, []string{"consequence"}},
		{"roots of the file's own directory",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: long[:230], File: "apps/overlays/production-east-1/kustomization.yaml", Line: 1, Column: 1, Roots: roots[:1]},
			false, []string{"(kustomize root: the file's directory)"}, nil},
		{"several roots counted",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: long[:180], File: "x.yaml", Line: 1, Column: 1, Roots: roots},
			false, []string{"(kustomize roots apps/overlays/production-east-1 and 2 more)"}, nil},
		{"verbose: whole",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: long, Detail: "kustomize: chain\nsecond", File: "a/b.yaml", Line: 1, Column: 1, Roots: roots},
			true, []string{long, strings.Join(roots, ", "), "\n    kustomize: chain\n    second\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, "text", []analysis.Finding{tt.f}, Summary{}, nil, Options{Verbose: tt.verbose}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			first, _, _ := strings.Cut(out, "\n")
			if !tt.verbose && utf8.RuneCountInString(first) > maxTextLine {
				t.Errorf("line of %d characters: %s", utf8.RuneCountInString(first), first)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantNone {
				if strings.Contains(first, w) {
					t.Errorf("has %q:\n%s", w, first)
				}
			}
		})
	}
}
