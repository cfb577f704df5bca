package rules

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// TestWithoutWants holds withoutWants to the regular expression it
// replaces, over every embedded example and lines made to trip it.
func TestWithoutWants(t *testing.T) {
	wantComment := regexp.MustCompile(`(?m)[ \t]+# want .*$`)
	inputs := []string{
		"",
		"a: 1\n",
		"a: 1 # want \"x\"\n",
		"a: 1  \t# want \"x\"\nb: 2\n",
		"a: 1 # want \"x\"",
		"a: 1# want \"x\" # want \"y\"\n",
		"a: 1 # wantz # want \"y\"\r\n",
		"# want \"at line start\"\n  # want \"indented\"\n",
		"a: 1 # want\n",
		"a: \"# want \" # want \"y\"\n\n\n",
	}
	err := fs.WalkDir(docs, "doc", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".yaml") {
			return err
		}
		b, err := docs.ReadFile(name)
		inputs = append(inputs, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		if got, want := withoutWants(in), wantComment.ReplaceAllString(in, ""); got != want {
			t.Errorf("withoutWants(%q) = %q, want %q", in, got, want)
		}
	}
}
