package analysis

import (
	"fmt"
	"strings"
)

// notReported is the heading of a rule documentation's last section,
// which Markdown prints after the examples.
const notReported = "### Not reported"

// Markdown renders a rule's documentation: the text `shipshape explain`
// prints and docs/rules.md is made of, so the two never disagree. It is
// the summary and the facts (severity, fix, targets, settings), the Doc
// (what, why, how to fix), the examples, then the Doc's "Not reported"
// section.
func Markdown(r *Rule) string {
	var b strings.Builder
	fixable := "no"
	if r.Fixable {
		fixable = "yes (`shipshape fix`)"
	}
	fmt.Fprintf(&b, "## %s\n\n%s.\n\n", r.ID, r.Summary)
	fmt.Fprintf(&b, "- Severity: %s\n- Fixable: %s\n", r.Severity, fixable)
	if r.Targets != 0 {
		fmt.Fprintf(&b, "- Judges: %s\n", r.Targets)
	}
	for _, s := range r.Settings {
		fmt.Fprintf(&b, "- Setting `%s` (default: %s): %s\n", s.Name, s.Default, s.Doc)
	}
	docs := r.Documentation()
	body, rest, _ := strings.Cut(strings.TrimSpace(docs.Doc), notReported)
	fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(body))
	if docs.Bad != "" {
		fmt.Fprintf(&b, "\nBad:\n\n```yaml\n%s```\n", docs.Bad)
	}
	if docs.Good != "" {
		fmt.Fprintf(&b, "\nGood:\n\n```yaml\n%s```\n", docs.Good)
	}
	if rest = strings.TrimSpace(rest); rest != "" {
		fmt.Fprintf(&b, "\n%s\n\n%s\n", notReported, rest)
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
