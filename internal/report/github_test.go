package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

func TestGitHubCommands(t *testing.T) {
	tests := []struct {
		name string
		f    analysis.Finding
		want string
	}{
		{"error",
			analysis.Finding{Rule: "ambiguous-scalar", Severity: analysis.Error, Message: "quote it", File: "a.yaml", Line: 3, Column: 9},
			"::error file=a.yaml,line=3,col=9,title=ambiguous-scalar::quote it"},
		{"warning",
			analysis.Finding{Rule: "r", Severity: analysis.Warning, Message: "m", File: "a.yaml", Line: 1, Column: 1},
			"::warning file=a.yaml,line=1,col=1,title=r::m"},
		{"info is a notice",
			analysis.Finding{Rule: "r", Severity: analysis.Info, Message: "m", File: "a.yaml", Line: 1, Column: 1},
			"::notice file=a.yaml,line=1,col=1,title=r::m"},
		{"line 0 leaves out line and col",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", File: "a.yaml"},
			"::error file=a.yaml,title=r::m"},
		{"column 0 leaves out col",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", File: "a.yaml", Line: 4},
			"::error file=a.yaml,line=4,title=r::m"},
		{"no file",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", Line: 4},
			"::error title=r::m"},
		{"message escaping",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "100% a:b, c\r\nd\ne %0A", File: "a.yaml", Line: 1, Column: 1},
			"::error file=a.yaml,line=1,col=1,title=r::100%25 a:b, c%0D%0Ad%0Ae %250A"},
		{"resource",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", File: "a.yaml", Line: 1, Column: 1,
				Resource: manifest.Resource{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
			"::error file=a.yaml,line=1,col=1,title=r::Deployment/web: m"},
		{"resource with a namespace",
			analysis.Finding{Rule: "r", Severity: analysis.Warning, Message: "m", File: "a.yaml", Line: 1, Column: 1,
				Resource: manifest.Resource{Kind: "Service", Namespace: "prod", Name: "web"}},
			"::warning file=a.yaml,line=1,col=1,title=r::Service/web (namespace prod): m"},
		{"resource escaping",
			analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m", File: "a.yaml", Line: 1, Column: 1,
				Resource: manifest.Resource{Kind: "K", Namespace: "100%", Name: "a\r\n::error file=x.yaml::forged"}},
			"::error file=a.yaml,line=1,col=1,title=r::K/a%0D%0A::error file=x.yaml::forged (namespace 100%25): m"},
		{"property escaping",
			analysis.Finding{Rule: "r:1,2", Severity: analysis.Error, Message: "m", File: "dir,x/c:d%\n.yaml", Line: 1, Column: 1},
			"::error file=dir%2Cx/c%3Ad%25%0A.yaml,line=1,col=1,title=r%3A1%2C2::m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, "github", []analysis.Finding{tt.f}, Summary{Files: 1}, nil, Options{FixCommand: "shipshape fix"}); err != nil {
				t.Fatal(err)
			}
			got, _, _ := strings.Cut(buf.String(), "\n")
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// Every line on stdout must be a workflow command: no blank lines, no line
// broken by a message, and the last one the summary notice.
func TestGitHubOnlyCommands(t *testing.T) {
	var buf bytes.Buffer
	fs := testFindings()
	if err := Write(&buf, "github", fs, testSummary(fs), testRules(), Options{FixCommand: "shipshape fix"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(fs)+1 {
		t.Fatalf("%d lines for %d findings and the summary:\n%s", len(lines), len(fs), buf.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::warning ") && !strings.HasPrefix(l, "::notice ") {
			t.Errorf("not a workflow command: %q", l)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "::notice title=shipshape::") || strings.Contains(last, "log") {
		t.Errorf("last line is not the summary, or speaks of dropped annotations: %q", last)
	}
	buf.Reset()
	if err := Write(&buf, "github", nil, Summary{Files: 3}, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "::notice title=shipshape::no problems in 3 files (0 resources)\n"; buf.String() != want {
		t.Fatalf("no findings: got %q, want %q", buf.String(), want)
	}
}

// Past GitHub's 10 annotations of a kind per step, findings are plain log
// lines and the summary says how many of each kind only the log has; the
// notices leave the summary its slot.
func TestGitHubAnnotationLimit(t *testing.T) {
	var fs []analysis.Finding
	for i := 1; i <= 12; i++ {
		fs = append(fs, analysis.Finding{Rule: "e", Severity: analysis.Error, Message: "m", File: "a.yaml", Line: i, Column: 1})
	}
	for i := 1; i <= 10; i++ {
		fs = append(fs, analysis.Finding{Rule: "w", Severity: analysis.Warning, Message: "m", File: "b.yaml", Line: i, Column: 1})
	}
	for i := 1; i <= 10; i++ {
		fs = append(fs, analysis.Finding{Rule: "i", Severity: analysis.Info, Message: "m", File: "c.yaml", Line: i, Column: 1})
	}
	var buf bytes.Buffer
	if err := Write(&buf, "github", fs, testSummary(fs), nil, Options{}); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	var plain []string
	for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if kind, _, ok := strings.Cut(l, " "); ok && strings.HasPrefix(kind, "::") {
			counts[kind]++
		} else {
			plain = append(plain, l)
		}
	}
	if counts["::error"] != 10 || counts["::warning"] != 10 || counts["::notice"] != 10 {
		t.Errorf("annotations per kind: %v, want 10 each (9 infos and the summary)", counts)
	}
	wantPlain := []string{"a.yaml:11:1: error e: m", "a.yaml:12:1: error e: m", "c.yaml:10:1: info i: m"}
	if !slices.Equal(plain, wantPlain) {
		t.Errorf("log-only lines:\n%q\nwant\n%q", plain, wantPlain)
	}
	checkGolden(t, "github-limit.golden", buf.Bytes())
}
