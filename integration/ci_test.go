package integration

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// The report formats CI systems read, from real runs of the binary on the
// examples: JUnit XML for GitLab and Jenkins, GitHub workflow commands and
// SARIF for code scanning. Each must parse, and fail the job (exit 1) only
// when there are findings at the fail level.
func TestCIReportFormats(t *testing.T) {
	t.Parallel()
	need(t, "go", "Go is on the machine image")
	shipshape := filepath.Join(binDir, "shipshape")
	bad, clean := filepath.Join("kustomize-plugin", "base"), filepath.Join("kustomize-plugin", "clean")

	tests := []struct {
		name     string
		format   string
		dir      string
		wantCode int
		check    func(t *testing.T, out string)
	}{
		{"junit with findings", "junit", bad, 1, func(t *testing.T, out string) {
			s := parseJUnit(t, out)
			// The three errors in base/ fail; infos from other rules may pass.
			if s.Failures < 3 || s.Tests < s.Failures {
				t.Errorf("junit: %d tests, %d failures; want at least 3 failures", s.Tests, s.Failures)
			}
			var rules []string
			for _, suite := range s.Suites {
				for _, c := range suite.Cases {
					if c.File == "" || (c.Failure != nil && !strings.Contains(c.Failure.Text, c.Classname)) {
						t.Errorf("test case %+v: want a file, and a failure naming its rule", c)
					}
					if c.Failure != nil {
						rules = append(rules, c.Classname)
					}
				}
			}
			wantAll(t, "junit rules", strings.Join(rules, " "), "daemonset-replicas", "daemonset-deployment-field", "ambiguous-scalar")
			wantAll(t, "junit", out, "node-agent.yaml:7:3: error daemonset-replicas")
		}},
		{"junit clean", "junit", clean, 0, func(t *testing.T, out string) {
			s := parseJUnit(t, out)
			if s.Failures != 0 || s.Tests != 1 {
				t.Errorf("junit: %d tests, %d failures; want 1 passing", s.Tests, s.Failures)
			}
		}},
		{"github annotations", "github", bad, 1, func(t *testing.T, out string) {
			wantAll(t, "github", out,
				"::error file=kustomize-plugin/base/node-agent.yaml,line=7,col=3,title=daemonset-replicas::DaemonSet/node-agent: DaemonSet has no spec.replicas")
			if lines := strings.Split(strings.TrimSpace(out), "\n"); !strings.HasPrefix(lines[len(lines)-1], "::notice title=shipshape::") {
				t.Errorf("github output does not end with the summary notice: %q", lines[len(lines)-1])
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if !strings.HasPrefix(line, "::") {
					t.Errorf("not a workflow command: %q", line)
				}
			}
		}},
		{"sarif", "sarif", bad, 1, func(t *testing.T, out string) {
			var log struct {
				Version string `json:"version"`
				Runs    []struct {
					Results []struct {
						RuleID string `json:"ruleId"`
					} `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal([]byte(out), &log); err != nil {
				t.Fatalf("sarif is not JSON: %v\n%s", err, out)
			}
			if log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) < 3 {
				t.Errorf("sarif: version %q, %d runs; want 2.1.0 with one run of at least 3 results", log.Version, len(log.Runs))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, root, nil, shipshape, "lint", "--format", tt.format, tt.dir)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %v", r.code, tt.wantCode, r)
			}
			tt.check(t, r.stdout)
		})
	}
}

type junitSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			File      string `xml:"file,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// parseJUnit checks that out is one well-formed XML document (every token
// decodes, nothing trails it) and reads it.
func parseJUnit(t *testing.T, out string) junitSuites {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(out))
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("junit is not well-formed XML: %v\n%s", err, out)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && strings.TrimSpace(string(tok)) != "" {
				t.Fatalf("text outside the root element: %q", tok)
			}
		}
	}
	if roots != 1 || depth != 0 {
		t.Fatalf("junit: %d root elements, depth %d at the end", roots, depth)
	}
	var s junitSuites
	if err := xml.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return s
}
