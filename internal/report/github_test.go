package report

import (
	"bytes"
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
			if got := buf.String(); got != tt.want+"\n" {
				t.Errorf("got  %q\nwant %q", got, tt.want+"\n")
			}
		})
	}
}

// Every line on stdout must be a workflow command: no summary, no blank
// lines, no line broken by a message.
func TestGitHubOnlyCommands(t *testing.T) {
	var buf bytes.Buffer
	fs := testFindings()
	if err := Write(&buf, "github", fs, testSummary(fs), testRules(), Options{FixCommand: "shipshape fix"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(fs) {
		t.Fatalf("%d lines for %d findings:\n%s", len(lines), len(fs), buf.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::warning ") && !strings.HasPrefix(l, "::notice ") {
			t.Errorf("not a workflow command: %q", l)
		}
	}
	buf.Reset()
	if err := Write(&buf, "github", nil, Summary{Files: 3}, nil, Options{}); err != nil || buf.Len() != 0 {
		t.Fatalf("no findings: err %v, output %q", err, buf.String())
	}
}
