package rules

import (
	"embed"
	"path"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// docs holds each rule's documentation, found by the rule's ID:
// doc/<id>.md (what, why, how to fix, "Not reported") and the examples
// doc/<id>/bad.yaml (fires the rule where its `# want` comments say) and
// doc/<id>/good.yaml (does not fire it). Prose and YAML live in files of
// their own kind, where they are read and edited as what they are.
//
//go:embed doc
var docs embed.FS

// ExamplePath is the path, in this directory, of rule id's bad or good
// example.
func ExamplePath(id string, bad bool) string {
	name := "good.yaml"
	if bad {
		name = "bad.yaml"
	}
	return path.Join("doc", id, name)
}

// readDoc returns the documentation of rule id; "" for a file that is not
// there (TestRuleMetadata names it).
func readDoc(id string) analysis.Documentation {
	read := func(name string) string {
		b, err := docs.ReadFile(name)
		if err != nil {
			return ""
		}
		return string(b)
	}
	return analysis.Documentation{
		Doc:  read(path.Join("doc", id+".md")),
		Bad:  withoutWants(read(ExamplePath(id, true))),
		Good: withoutWants(read(ExamplePath(id, false))),
	}
}

// withoutWants drops each line's `# want` comment (the blanks before a
// "# want " and the rest of the line), for the tests: a reader of the
// example is shown the YAML without it. It is a loop rather than a regular
// expression because every rule's examples went through it while the
// package initialised (they are read at first use now, see Register):
// compiling and running a regexp there cost a third of a millisecond of
// start-up (TestWithoutWants holds it to the expression
// `(?m)[ \t]+# want .*$`).
func withoutWants(example string) string {
	if !strings.Contains(example, "# want ") {
		return example
	}
	var b strings.Builder
	b.Grow(len(example))
	for line := range strings.SplitAfterSeq(example, "\n") {
		body, nl := strings.CutSuffix(line, "\n")
		b.WriteString(wantCut(body))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// wantCut returns line up to its first "# want " that follows a blank,
// without the blanks before it; line itself when there is none.
func wantCut(line string) string {
	for from := 0; ; {
		i := strings.Index(line[from:], "# want ")
		if i < 0 {
			return line
		}
		i += from
		start := i
		for start > 0 && (line[start-1] == ' ' || line[start-1] == '\t') {
			start--
		}
		if start < i {
			return line[:start]
		}
		from = i + 1
	}
}
