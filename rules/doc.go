package rules

import (
	"embed"
	"path"
	"regexp"
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
func readDoc(id string) (doc, bad, good string) {
	read := func(name string) string {
		b, err := docs.ReadFile(name)
		if err != nil {
			return ""
		}
		return string(b)
	}
	return read(path.Join("doc", id+".md")), withoutWants(read(ExamplePath(id, true))), withoutWants(read(ExamplePath(id, false)))
}

// wantComment is a `# want` comment at the end of a line, for the tests:
// a reader of the example is shown the YAML without it.
var wantComment = regexp.MustCompile(`(?m)[ \t]+# want .*$`)

func withoutWants(example string) string { return wantComment.ReplaceAllString(example, "") }
