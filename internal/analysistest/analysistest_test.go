package analysistest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// fake reports the plain scalar values "bad" (with a fix that quotes
// them) and "worse" (without), a file of three or more objects (on line
// 0), and ConfigMaps of one name in several files (across files).
var fake = &analysis.Rule{
	ID:       "fake",
	Severity: analysis.Warning,
	Summary:  "A rule for the harness's own tests",
	Fixable:  true,
	Targets:  analysis.Objects,
	Check: func(p *analysis.Pass) {
		var walk func(n *yaml.Node, path string)
		walk = func(n *yaml.Node, path string) {
			switch n.Kind {
			case yaml.MappingNode:
				for i := 0; i+1 < len(n.Content); i += 2 {
					walk(n.Content[i+1], path+"."+n.Content[i].Value)
				}
			case yaml.SequenceNode:
				for i, c := range n.Content {
					walk(c, fmt.Sprintf("%s[%d]", path, i))
				}
			case yaml.ScalarNode:
				if n.Style != 0 {
					return
				}
				switch n.Value {
				case "bad":
					p.Report(n, path[1:], p.Quote(n, "quote it"), "unquoted bad (mode %q)", p.Config.Mode)
				case "worse":
					p.Report(n, path[1:], nil, "unquoted worse")
				}
			}
		}
		walk(p.Object.Node, "")
	},
	CheckFile: func(p *analysis.FilePass) {
		if n := len(p.File.Objects); n >= 3 {
			p.Report(0, 0, -1, "%d objects in one file", n)
		}
	},
	Cross: analysis.Summaries(func(p *analysis.Pass) (analysis.Finding, bool) {
		if p.Object.Kind != "ConfigMap" {
			return analysis.Finding{}, false
		}
		group := manifest.Path(p.Object.Node, "metadata", "labels", "group")
		if group == nil {
			return analysis.Finding{}, false
		}
		return p.Finding(group, "metadata.labels.group", nil, "%s", group.Value), true
	}, func(p *analysis.CrossPass, ss []analysis.Finding) {
		for _, a := range ss {
			for _, b := range ss {
				if a.Message == b.Message && a.File != b.File {
					f := a
					f.Message = fmt.Sprintf("ConfigMap group %q is also in %s", a.Message, b.File)
					p.Report(f)
				}
			}
		}
	}),
}

// TestRun is the harness on fixtures that meet their expectations: a
// stream with a List, CRLF and a BOM, a block scalar, want.txt, and a
// directory case with its own configuration and a cross-file finding.
func TestRun(t *testing.T) {
	RunWithFixes(t, filepath.Join("testdata", "ok"), fake)
}

// recorder is a tester that keeps what it is told.
type recorder struct{ errs []string }

type fatal struct{}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}

// runBad checks one fixture of testdata/bad and returns the errors.
func runBad(t *testing.T, name string) []string {
	t.Helper()
	defer func(u bool) { *Update = u }(*Update)
	*Update = false // never rewrite these goldens
	dir := filepath.Join("testdata", "bad")
	r := &recorder{}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(fatal); !ok {
					panic(p)
				}
			}
		}()
		checkCase(r, dir, testCase{name: name, dir: dir, inputs: []string{filepath.Join(dir, name)}}, fake, options{}, nil, true)
	}()
	return r.errs
}

// TestFailures is the harness on fixtures that do not meet their
// expectations: each must fail, saying where and why.
func TestFailures(t *testing.T) {
	tests := []struct {
		file string
		want []string // one substring per error, in order
	}{
		{"missing.yaml", []string{"missing.yaml:4: no finding met the expectation fake \"bad\""}},
		{"unexpected.yaml", []string{`unexpected.yaml:6:6: unexpected finding: fake col=6 nofix field=data.a "unquoted worse"`}},
		{"attributes.yaml", []string{
			"attributes.yaml:6:6: unexpected finding", "expected on this line: fake col=5",
			"attributes.yaml:7:6: unexpected finding",
			"attributes.yaml:8:6: unexpected finding",
			"attributes.yaml:9:6: unexpected finding",
			"attributes.yaml:10:6: unexpected finding",
			"attributes.yaml:6: no finding met the expectation fake col=5",
			"attributes.yaml:7: no finding met the expectation fake nofix",
			"attributes.yaml:8: no finding met the expectation fake fix",
			"attributes.yaml:9: no finding met the expectation fake field=data.c",
			`attributes.yaml:10: no finding met the expectation fake "better"`,
			"the fixes change the file, and there is no",
		}},
		{"block.yaml", []string{"block.yaml:[7]: \"# want fake \\\"bad\\\"\" is not a YAML comment there (inside a block scalar or a quoted string?): put the expectation in want.txt"}},
		{"quoted.yaml", []string{"quoted.yaml:[6]: ", "is not a YAML comment there"}},
		{"standalone.yaml", []string{"standalone.yaml:6: a # want comment must trail the content of the line it is about", "standalone.yaml:7:6: unexpected finding"}},
		{"syntax.yaml", []string{
			"syntax.yaml:6: \"worse\": a rule ID must come before the first regexp",
			"syntax.yaml:7: want \"fake\": every expectation ends with a quoted regexp",
			"syntax.yaml:8: bad column col=x",
			"syntax.yaml:9: bad regexp \"(worse\"",
			"syntax.yaml:10: \"Fake!\" is not a rule ID",
			"syntax.yaml:6:6: unexpected finding", "syntax.yaml:7:6: unexpected finding", "syntax.yaml:8:6: unexpected finding",
			"syntax.yaml:9:6: unexpected finding", "syntax.yaml:10:6: unexpected finding",
		}},
		{"otherrule.yaml", []string{"otherrule.yaml:4: rule unknown-rule does not run in this case", "otherrule.yaml:4: no finding met"}},
		{"nogolden.yaml", []string{"nogolden.yaml: the fixes change the file, and there is no testdata/bad/nogolden.yaml.golden", "-  a: bad", "+  a: \"bad\""}},
		{"golden.yaml", []string{"golden.yaml: the fixed file differs from testdata/bad/golden.yaml.golden", "-  name: golden-but-not-this", "+  name: golden"}},
		{"notyaml.yaml", []string{"notyaml.yaml:4:1: unexpected finding: yaml-syntax"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			errs := runBad(t, tc.file)
			all := strings.Join(errs, "\n")
			at := 0
			for _, w := range tc.want {
				i := strings.Index(all[at:], w)
				if i < 0 {
					t.Errorf("lacks (after %d bytes) %q; errors:\n%s", at, w, all)
					return
				}
				at += i + len(w)
			}
			if len(errs) == 0 {
				t.Error("the fixture passed")
			}
		})
	}
}

// TestAttribution: a finding must name the object its line is in.
func TestAttribution(t *testing.T) {
	src := map[string][]byte{"a.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n")}
	cm := manifest.Resource{APIVersion: "v1", Kind: "ConfigMap", Name: "a"}
	secret := manifest.Resource{APIVersion: "v1", Kind: "Secret", Name: "b"}
	tests := []struct {
		fd   analysis.Finding
		want string
	}{
		{analysis.Finding{Rule: "r", File: "a.yaml", Line: 3, Resource: cm, Doc: 0, Item: -1}, ""},
		{analysis.Finding{Rule: "r", File: "a.yaml", Line: 6, Resource: secret, Doc: 1, Item: -1}, ""},
		{analysis.Finding{Rule: "r", File: "a.yaml", Line: 0, Doc: -1, Item: -1}, ""}, // the file
		{analysis.Finding{Rule: "r", File: "a.yaml", Line: 6, Resource: cm, Doc: 1, Item: -1}, "names ConfigMap/a, but document 1 item -1 is Secret/b"},
		{analysis.Finding{Rule: "r", File: "a.yaml", Line: 6, Resource: cm, Doc: 0, Item: -1}, "finding about ConfigMap/a is outside its lines 1-3"},
		{analysis.Finding{Rule: "r", File: "a.yaml", Line: 6, Resource: cm, Doc: 2, Item: -1}, "names document 2 item -1, which holds no object"},
	}
	for _, tc := range tests {
		r := &recorder{}
		checkAttribution(r, []analysis.Finding{tc.fd}, src)
		got := strings.Join(r.errs, "\n")
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: got %q, want %q", tc.fd, got, tc.want)
		}
	}
}

func TestParseWant(t *testing.T) {
	tests := []struct {
		in, want string // want: the expectations, or the error
	}{
		{`r "a"`, `r "a"`},
		{"r `a \"b\"`", `r "a \"b\""`},
		{`r "a" "b" s col=3 fix "c"`, `r "a"; r "b"; s col=3 fix "c"`},
		{`r col=2 nofix field=spec.x[0] "a" "b"`, `r col=2 nofix field=spec.x[0] "a"; r "b"`},
		{`r roots=a/b,c "a" roots=- "b"`, `r roots=a/b,c "a"; r roots=- "b"`},
		{`r roots= "a"`, "is not a rule ID"},
		{`"a"`, "a rule ID must come before"},
		{`r`, "ends with a quoted regexp"},
		{`r "a" col=2`, "ends with a quoted regexp"},
		{`r "(a"`, "bad regexp"},
		{"r `a", "unterminated"},
		{`r "a`, "bad string"},
		{`r col=0 "a"`, "bad column"},
		{`R "a"`, "is not a rule ID"},
	}
	for _, tc := range tests {
		exps, err := parseWant(tc.in, 0)
		var got string
		if err != nil {
			got = err.Error()
		} else {
			var s []string
			for _, e := range exps {
				s = append(s, e.String())
			}
			got = strings.Join(s, "; ")
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("parseWant(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestInvariants: a fix needs Fixable in the metadata, and the files and
// their objects (shipshape fn) give the same findings.
func TestInvariants(t *testing.T) {
	unfixable := *fake
	unfixable.Fixable = false
	fd := analysis.Finding{Rule: "fake", File: "a.yaml", Line: 6, Column: 6, Fix: &analysis.Fix{}}
	r := &recorder{}
	checkFixable(r, []*analysis.Rule{&unfixable}, []analysis.Finding{fd})
	if got := strings.Join(r.errs, "\n"); !strings.Contains(got, "a.yaml:6:6: fake finding carries a fix, but the rule does not say Fixable: true") {
		t.Errorf("checkFixable: %q", got)
	}

	eng, err := newEngine(fake, options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: worse}\n")
	srcs := map[string][]byte{"a.yaml": src}
	res := eng.RunSource("a.yaml", src)
	r = &recorder{}
	checkObjects(r, eng, res.Findings, []string{"a.yaml"}, srcs)
	if len(r.errs) > 0 {
		t.Errorf("checkObjects on its own findings: %q", r.errs)
	}
	extra := res.Findings[0]
	extra.Message = "only in the files"
	checkObjects(r, eng, append(res.Findings, extra), []string{"a.yaml"}, srcs)
	if got := strings.Join(r.errs, "\n"); !strings.Contains(got, `a.yaml:4:11: fake "only in the files" (fix false, document 0, item -1): found in the files, not in their objects`) {
		t.Errorf("checkObjects: %q", got)
	}
}

// TestCaseConfig: a case's .shipshape.yaml, else its directory's, else
// the one given with WithConfig.
func TestCaseConfig(t *testing.T) {
	fallback := &config.Config{Mode: "lint"}
	dir := filepath.Join("testdata", "ok")
	for _, tc := range []struct {
		c    testCase
		want string
	}{
		{testCase{dir: filepath.Join(dir, "dir")}, "fix"},
		{testCase{dir: dir}, "lint"},
	} {
		cfg, err := caseConfig(dir, tc.c, fallback)
		if err != nil || cfg.Mode != tc.want {
			t.Errorf("%s: mode %q, %v; want %q", tc.c.dir, cfg.Mode, err, tc.want)
		}
	}
}

// TestRunTree is RunTree on a tree that meets its expectations: a
// finding in a base, one in an overlay's patch file, one in an inline
// patch (want.txt: a block scalar holds no comment), and a plain file
// beside the roots judged as written, with a whole-file finding (line 0);
// the base's fix is compared with its .golden.
func TestRunTree(t *testing.T) {
	RunTreeWithFixes(t, filepath.Join("testdata", "tree", "ok"), fake)
}

// chdirRecorder is a recorder that can change the working directory, as
// checkTree needs.
type chdirRecorder struct {
	*recorder
	t *testing.T
}

func (r chdirRecorder) Chdir(dir string) { r.t.Chdir(dir) }

// TestRunTreeFails checks that a tree's finding without a want, a want
// without a finding, and a finding of other roots than the want names,
// fail with the file and line.
func TestRunTreeFails(t *testing.T) {
	dir := filepath.Join("testdata", "tree", "bad")
	for _, tc := range []struct{ name, want string }{
		{"unexpected", "testdata/tree/bad/unexpected/base/cm.yaml:6:9: unexpected finding: fake col=9 nofix field=data.mode roots=. \"unquoted worse\""},
		{"missing", "testdata/tree/bad/missing/base/cm.yaml:6: no finding met the expectation fake \"unquoted\""},
		{"roots", "testdata/tree/bad/roots/base/cm.yaml:6:9: unexpected finding: fake col=9 nofix field=data.mode roots=. \"unquoted worse\"\n" +
			"\texpected on this line: fake roots=base \"unquoted worse\"\n" +
			"testdata/tree/bad/roots/base/cm.yaml:6: no finding met the expectation fake roots=base \"unquoted worse\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			checkTree(chdirRecorder{r, t}, dir, filepath.Join(dir, tc.name), fake, options{}, false)
			if got := strings.Join(r.errs, "\n"); got != filepath.FromSlash(tc.want) {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
