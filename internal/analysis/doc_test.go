package analysis

import (
	"strings"
	"testing"
)

// Markdown prints the facts, the doc up to "Not reported", the examples,
// then "Not reported": the order a reader in a terminal wants.
func TestMarkdownOrder(t *testing.T) {
	r := &Rule{
		ID: "x-rule", Severity: Warning, Summary: "X is wrong",
		Targets:  Objects | Patches,
		Settings: []Setting{{Name: "x.mode", Default: "auto", Doc: "how X is judged"}},
		Docs: StaticDocs(Documentation{
			Doc: "What.\n\n### Why\n\nBecause.\n\n### Not reported\n\n- Y.\n",
			Bad: "a: 1\n", Good: "a: 2\n",
		}),
	}
	got := Markdown(r)
	order := []string{
		"## x-rule", "X is wrong.", "- Judges: objects, kustomize patches",
		"- Setting `x.mode` (default: auto): how X is judged",
		"What.", "### Why", "Bad:", "a: 1", "Good:", "a: 2", "### Not reported", "- Y.",
	}
	at := 0
	for _, want := range order {
		i := strings.Index(got[at:], want)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", want, got)
		}
		at += i + len(want)
	}
	if strings.Count(got, "### Not reported") != 1 {
		t.Errorf("Not reported printed %d times:\n%s", strings.Count(got, "### Not reported"), got)
	}
}

func TestTargetsString(t *testing.T) {
	for _, c := range []struct {
		t    Targets
		want string
	}{
		{0, "none"},
		{Objects, "objects"},
		{SourceFiles | Patches | RenderedValues, "kustomize patches, source files as read, values set by JSON or inline patches"},
	} {
		if got := c.t.String(); got != c.want {
			t.Errorf("%08b: got %q, want %q", c.t, got, c.want)
		}
	}
}

func TestDeclarationError(t *testing.T) {
	check := func(p *Pass) {}
	for _, c := range []struct {
		name string
		r    Rule
		ok   bool
	}{
		{"objects", Rule{Targets: Objects | Patches, Check: check}, true},
		{"no targets", Rule{Check: check}, false},
		{"objects and sources", Rule{Targets: Objects | SourceFiles, Check: check}, false},
		{"rendered values without sources", Rule{Targets: Objects | RenderedValues, Check: check}, false},
		{"rendered values without visitor", Rule{Targets: SourceFiles | RenderedValues, Check: check}, false},
		{"cross on patches", Rule{Targets: Objects | Patches, Cross: Summaries(func(*Pass) (int, bool) { return 0, false }, func(*CrossPass, []int) {})}, false},
		{"engine's own", Rule{}, true},
		{"change", Rule{Targets: Changes, Change: func(*ChangePass) {}}, true},
		{"change without target", Rule{Change: func(*ChangePass) {}}, false},
		{"change with objects", Rule{Targets: Changes | Objects, Change: func(*ChangePass) {}}, false},
		{"change target without Change", Rule{Targets: Changes, Check: check}, false},
	} {
		if err := DeclarationError(&c.r); (err == nil) != c.ok {
			t.Errorf("%s: got %v", c.name, err)
		}
	}
}
