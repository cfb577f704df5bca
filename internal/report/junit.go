package report

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// JUnit layout, chosen for GitLab's test report (and Jenkins):
//
//   - one <testsuite> per file, named by the file, in the order files first
//     appear in findings. GitLab merges all suites of a job into one list, so
//     suites only matter to tools that list them; per file they read like
//     the text output and give per-file counts.
//   - one <testcase> per finding. classname is the rule ID: GitLab shows it
//     in its "Suite" column, and rule IDs hold no dots, which Jenkins would
//     split into package and class (file names like deploy.yaml would).
//     name is "FILE KIND NAMESPACE/NAME FIELD", without line numbers, so that
//     GitLab's merge-request comparison of test reports (which identifies a
//     test case by its names, not its text) keeps a finding "existing" when
//     an edit above it shifts its line. Repeats get " #2", " #3".
//     The file attribute feeds GitLab's "Filename" column.
//   - errors and warnings are <failure type=RULE message=MESSAGE> whose text
//     starts with "file:line:col: severity rule: message". (<error> means
//     a test that crashed, which a finding is not.)
//   - infos are passing test cases carrying the finding in <system-out>:
//     advice must not fail the report, and <skipped> would claim the check
//     did not run.
//   - with no findings at all, one passing test case "shipshape lint".
type junitTestsuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Skipped  int              `xml:"skipped,attr"`
	Suites   []junitTestsuite `xml:"testsuite"`
}

type junitTestsuite struct {
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Errors   int             `xml:"errors,attr"`
	Skipped  int             `xml:"skipped,attr"`
	Cases    []junitTestcase `xml:"testcase"`
}

type junitTestcase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",innerxml"` // escaped by xmlText
}

type junitText struct {
	Text string `xml:",innerxml"` // escaped by xmlText
}

const junitSuiteName = "shipshape"

func writeJUnit(w io.Writer, findings []analysis.Finding, rulesMeta []*analysis.Rule) error {
	meta := map[string]*analysis.Rule{}
	for _, r := range rulesMeta {
		if r != nil {
			meta[r.ID] = r
		}
	}

	out := junitTestsuites{Name: junitSuiteName}
	suiteOf := map[string]int{}
	seen := map[[2]string]int{} // (classname, name) -> count, to keep names unique
	for _, f := range findings {
		file := f.File
		if file == "" {
			file = "-"
		}
		i, ok := suiteOf[file]
		if !ok {
			i = len(out.Suites)
			suiteOf[file] = i
			out.Suites = append(out.Suites, junitTestsuite{Name: file})
		}
		s := &out.Suites[i]

		name := junitCaseName(f, file)
		key := [2]string{f.Rule, name}
		seen[key]++
		if n := seen[key]; n > 1 {
			name += " #" + strconv.Itoa(n)
		}
		tc := junitTestcase{Name: name, Classname: f.Rule, File: f.File}
		body := junitBody(f, meta[f.Rule])
		if f.Severity >= analysis.Warning {
			tc.Failure = &junitFailure{Message: f.Message, Type: f.Rule, Text: xmlText(body)}
			s.Failures++
		} else {
			tc.SystemOut = &junitText{Text: xmlText(body)}
		}
		s.Tests++
		s.Cases = append(s.Cases, tc)
	}
	if len(out.Suites) == 0 {
		out.Suites = []junitTestsuite{{
			Name:  junitSuiteName,
			Tests: 1,
			Cases: []junitTestcase{{Name: "shipshape lint", Classname: junitSuiteName}},
		}}
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
	}

	data, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	ew := &errWriter{w: w}
	ew.printf("%s%s\n", xml.Header, data)
	return ew.err
}

// junitCaseName is stable across line shifts: file, resource and field.
func junitCaseName(f analysis.Finding, file string) string {
	parts := []string{file}
	if r := resourceName(f); r != "" {
		parts = append(parts, r)
	}
	if f.Field != "" {
		parts = append(parts, f.Field)
	}
	return strings.Join(parts, " ")
}

// junitBody is the failure text (or system-out of an info):
//
//	deploy.yaml:12:7: error ambiguous-scalar: message
//	resource: apps/v1 Deployment prod/web
//	field: spec.template.metadata.labels.active
//	rule: Summary of the rule
//	fixable: yes
func junitBody(f analysis.Finding, r *analysis.Rule) string {
	var b strings.Builder
	b.WriteString(position(f) + ": " + f.Severity.String() + " " + f.Rule + ": " + f.Message + "\n")
	if res := resourceName(f); res != "" {
		if f.Resource.APIVersion != "" {
			res = f.Resource.APIVersion + " " + res
		}
		b.WriteString("resource: " + res + "\n")
	}
	if f.Field != "" {
		b.WriteString("field: " + f.Field + "\n")
	}
	if r != nil && r.Summary != "" {
		b.WriteString("rule: " + r.Summary + "\n")
	}
	if f.Fixable() {
		b.WriteString("fixable: yes\n")
	}
	return b.String()
}

// xmlText escapes s as element content. encoding/xml would also escape
// newlines and quotes as character references, which is valid but makes
// the multi-line failure text unreadable in the raw report; here only what
// must be escaped is, and characters XML 1.0 cannot carry (most control
// characters, invalid UTF-8) become U+FFFD, as encoding/xml does.
func xmlText(s string) string {
	var b strings.Builder
	for _, r := range s { // ranging turns invalid UTF-8 into U+FFFD
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\r':
			b.WriteString("&#xD;") // a raw CR would be read back as LF
		case r == '\n' || r == '\t' ||
			(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF):
			b.WriteRune(r)
		default:
			b.WriteRune('\uFFFD')
		}
	}
	return b.String()
}
