package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// githubAnchor is the anchor GitHub gives a heading.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func anchorsOf(t *testing.T, path string) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(stripFences(string(src)), -1) {
		anchors[githubAnchor(strings.TrimSpace(m[1]))] = true
	}
	return anchors
}

// stripFences drops fenced code blocks, whose # lines are no headings.
func stripFences(s string) string {
	var out []string
	in := false
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The README stays short, with a table of contents, and every relative
// link of the README and docs/*.md leads to a file that exists and, with
// an anchor, to a heading it has.
func TestDocsLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 300 {
		t.Errorf("README.md has %d lines; keep it under 300 and move the rest to docs/", n)
	}
	for _, toc := range []string{"(#install)", "(#quickstart)", "(#ci)", "(#configuration-and-suppression)"} {
		if !strings.Contains(string(readme), toc) {
			t.Errorf("README.md's table of contents lacks %s", toc)
		}
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	anchors := map[string]map[string]bool{} // by page, read once
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(stripFences(string(src)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && anchors[path] == nil {
				anchors[path] = anchorsOf(t, path)
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchors[path][anchor] {
				t.Errorf("%s: link %s: %s has no heading with anchor #%s", page, target, path, anchor)
			}
		}
	}
}

// The README's quickstart shows what `shipshape lint examples/gitops-repo`
// prints, from the repository's root.
func TestReadmeQuickstart(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "go run ./cmd/shipshape lint examples/gitops-repo\n```\n\n```\n"
	_, after, ok := strings.Cut(string(readme), cmd)
	if !ok {
		t.Fatalf("README.md has no quickstart block after %q", cmd)
	}
	shown, _, _ := strings.Cut(after, "```")
	got := runIn(t, filepath.Join("..", ".."), exitFindings, "lint", "examples/gitops-repo")
	if got != shown {
		t.Errorf("README.md's quickstart output differs from the tool's:\n--- README\n%s--- shipshape\n%s", shown, got)
	}
}
