package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// Decoding types written independently of the encoder's, as a consumer
// (GitLab, Jenkins) would read the report.
type xTestsuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			File      string `xml:"file,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error     *struct{} `xml:"error"`
			Skipped   *struct{} `xml:"skipped"`
			SystemOut string    `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// parseJUnit checks well-formedness with a strict token pass, then decodes.
func parseJUnit(t *testing.T, data []byte) xTestsuites {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, data)
		}
	}
	var out xTestsuites
	if err := xml.Unmarshal(data, &out); err != nil {
		t.Fatalf("decoding: %v\n%s", err, data)
	}
	return out
}

func writeJUnitBytes(t *testing.T, fs []analysis.Finding) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, "junit", fs, Count(fs), testRules(), Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte(xml.Header)) {
		t.Fatalf("missing XML declaration:\n%s", buf.Bytes())
	}
	return buf.Bytes()
}

func TestJUnitCounts(t *testing.T) {
	tricky := "a < b && c > \"d\" 'e' ]]> — ünïcödé ✓ 日本 😀"
	tests := []struct {
		name         string
		findings     []analysis.Finding
		wantTests    int
		wantFailures int
		wantSuites   []string
	}{
		{"mixed", testFindings(), 5, 4,
			[]string{"deploy/web.yaml", "./deploy/svc.yaml", "deploy/my app/pod.yaml", "kustomization.yaml", "/abs/manifests/api.yaml"}},
		{"none", nil, 1, 0, []string{"shipshape"}},
		{"infos only", []analysis.Finding{
			{Rule: "latest-tag", Severity: analysis.Info, Message: tricky, File: "a.yaml", Line: 1, Column: 1},
		}, 1, 0, []string{"a.yaml"}},
		{"same file, tricky text", []analysis.Finding{
			{Rule: "r<&>", Severity: analysis.Error, Message: tricky, File: "a&b.yaml", Line: 1, Column: 1,
				Resource: manifest.Resource{Kind: "ConfigMap", Name: "ü"}, Field: `data."x"`},
			{Rule: "r<&>", Severity: analysis.Warning, Message: tricky, File: "a&b.yaml", Line: 2, Column: 1,
				Resource: manifest.Resource{Kind: "ConfigMap", Name: "ü"}, Field: `data."x"`},
			{Rule: "other", Severity: analysis.Info, Message: "fine", File: "a&b.yaml", Line: 3, Column: 1},
		}, 3, 2, []string{"a&b.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseJUnit(t, writeJUnitBytes(t, tt.findings))
			if got.Name != "shipshape" || got.Tests != tt.wantTests || got.Failures != tt.wantFailures || got.Errors != 0 || got.Skipped != 0 {
				t.Errorf("testsuites: name %q tests %d failures %d errors %d skipped %d; want tests %d failures %d",
					got.Name, got.Tests, got.Failures, got.Errors, got.Skipped, tt.wantTests, tt.wantFailures)
			}
			var names []string
			tests, failures := 0, 0
			for _, s := range got.Suites {
				names = append(names, s.Name)
				sf := 0
				seen := map[string]bool{}
				for _, c := range s.Cases {
					key := c.Classname + "\x00" + c.Name
					if seen[key] {
						t.Errorf("suite %q: duplicate test case %q %q", s.Name, c.Classname, c.Name)
					}
					seen[key] = true
					if c.Failure != nil {
						sf++
					}
					if c.Error != nil || c.Skipped != nil {
						t.Errorf("suite %q: unexpected <error> or <skipped> in %q", s.Name, c.Name)
					}
				}
				if s.Tests != len(s.Cases) || s.Failures != sf || s.Errors != 0 || s.Skipped != 0 {
					t.Errorf("suite %q: tests %d failures %d, but holds %d cases, %d failures", s.Name, s.Tests, s.Failures, len(s.Cases), sf)
				}
				tests += s.Tests
				failures += s.Failures
			}
			if tests != got.Tests || failures != got.Failures {
				t.Errorf("suite totals %d/%d differ from testsuites %d/%d", tests, failures, got.Tests, got.Failures)
			}
			if strings.Join(names, "|") != strings.Join(tt.wantSuites, "|") {
				t.Errorf("suites %q, want %q", names, tt.wantSuites)
			}
		})
	}
}

func TestJUnitRoundTrip(t *testing.T) {
	tricky := "a < b && c > \"d\" 'e' ]]> — ünïcödé ✓ 日本 😀\nsecond line"
	fs := []analysis.Finding{
		{Rule: "ambiguous-scalar", Severity: analysis.Error, Message: tricky, File: "dir/ä.yaml", Line: 12, Column: 7,
			Resource: deployment("prod", "web"), Field: "spec.replicas"},
		{Rule: "latest-tag", Severity: analysis.Info, Message: tricky, File: "dir/ä.yaml", Line: 20, Column: 3},
		{Rule: "ctl", Severity: analysis.Warning, Message: "bell\a nul\x00 esc\x1b end", File: "x.yaml"},
		{Rule: "crlf", Severity: analysis.Warning, Message: "a\r\nb \xff", File: "x.yaml", Line: 2},
	}
	got := parseJUnit(t, writeJUnitBytes(t, fs))
	if len(got.Suites) != 2 {
		t.Fatalf("want 2 suites, got %d", len(got.Suites))
	}

	c := got.Suites[0].Cases[0]
	if c.Classname != "ambiguous-scalar" || c.File != "dir/ä.yaml" || c.Name != "dir/ä.yaml Deployment prod/web spec.replicas" {
		t.Errorf("case 0: %+v", c)
	}
	if c.Failure == nil || c.Failure.Message != tricky || c.Failure.Type != "ambiguous-scalar" {
		t.Fatalf("case 0 failure: %+v", c.Failure)
	}
	wantText := "dir/ä.yaml:12:7: error ambiguous-scalar: " + tricky + "\n" +
		"resource: apps/v1 Deployment prod/web\n" +
		"field: spec.replicas\n" +
		"rule: Unquoted scalar that Kubernetes reads as a bool, number or null\n"
	if c.Failure.Text != wantText {
		t.Errorf("failure text\n got %q\nwant %q", c.Failure.Text, wantText)
	}

	info := got.Suites[0].Cases[1]
	if info.Failure != nil || !strings.HasPrefix(info.SystemOut, "dir/ä.yaml:20:3: info latest-tag: "+tricky) {
		t.Errorf("info case: %+v", info)
	}

	// Characters XML cannot carry are replaced, not written raw.
	ctl := got.Suites[1].Cases[0]
	if ctl.Failure == nil || ctl.Failure.Message != "bell\uFFFD nul\uFFFD esc\uFFFD end" {
		t.Errorf("control characters: %+v", ctl.Failure)
	}
	if !strings.HasPrefix(ctl.Failure.Text, "x.yaml: warning ctl: bell\uFFFD nul\uFFFD esc\uFFFD end") {
		t.Errorf("line-0 position, control characters in text: %q", ctl.Failure.Text)
	}
	// CR survives in text (a raw CR would be read back as LF); invalid
	// UTF-8 becomes U+FFFD.
	crlf := got.Suites[1].Cases[1]
	if want := "x.yaml:2: warning crlf: a\r\nb \uFFFD\n"; crlf.Failure == nil || crlf.Failure.Text != want {
		t.Errorf("crlf text = %+v, want %q", crlf.Failure, want)
	}
}

func TestJUnitNoFindings(t *testing.T) {
	got := parseJUnit(t, writeJUnitBytes(t, nil))
	if len(got.Suites) != 1 || len(got.Suites[0].Cases) != 1 {
		t.Fatalf("want one suite with one case, got %+v", got)
	}
	c := got.Suites[0].Cases[0]
	if c.Name != "shipshape lint" || c.Failure != nil {
		t.Errorf("passing case: %+v", c)
	}
}
