package analysis

import (
	"fmt"
	"strings"
)

// Markdown renders a rule's documentation: the text `shipshape explain`
// prints and docs/rules.md is made of, so the two never disagree.
func Markdown(r *Rule) string {
	var b strings.Builder
	fixable := "no"
	if r.Fixable {
		fixable = "yes (`shipshape fix`)"
	}
	fmt.Fprintf(&b, "## %s\n\n%s.\n\n", r.ID, r.Summary)
	fmt.Fprintf(&b, "- Severity: %s\n- Fixable: %s\n", r.Severity, fixable)
	if r.ValueLevel {
		b.WriteString("- Also checks kustomize patches (it judges single values)\n")
	}
	fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(r.Doc))
	if r.Bad != "" {
		fmt.Fprintf(&b, "\nBad:\n\n```yaml\n%s```\n", r.Bad)
	}
	if r.Good != "" {
		fmt.Fprintf(&b, "\nGood:\n\n```yaml\n%s```\n", r.Good)
	}
	return b.String()
}

// DocsPage renders docs/rules.md from rs, in their order.
func DocsPage(rs []*Rule) string {
	var b strings.Builder
	b.WriteString("# shipshape rules\n\n<!-- Generated from the rule metadata by `go generate ./rules`; do not edit. -->\n\n")
	b.WriteString("| Rule | Severity | Fixable | Summary |\n|---|---|---|---|\n")
	for _, r := range rs {
		fixable := "no"
		if r.Fixable {
			fixable = "yes"
		}
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s |\n", r.ID, r.ID, r.Severity, fixable, r.Summary)
	}
	for _, r := range rs {
		b.WriteString("\n")
		b.WriteString(Markdown(r))
	}
	return b.String()
}
