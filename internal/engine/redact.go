package engine

import (
	"os"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// quotesNoContent are the rules whose messages never quote what a file
// holds (an operating system's error, a panic's place): they are kept
// whole for a file named through a link.
var quotesNoContent = map[string]bool{InputErrorID: true, InternalErrorID: true}

// linkedFiles caches which paths are symbolic links.
type linkedFiles map[string]bool

func (l linkedFiles) is(path string) bool {
	if path == "" || path == manifest.Stdin {
		return false
	}
	linked, seen := l[path]
	if !seen {
		st, err := os.Lstat(path)
		linked = err == nil && st.Mode()&os.ModeSymlink != 0
		l[path] = linked
	}
	return linked
}

// withoutLinkedContents replaces the message of each finding in a file
// that is a symbolic link with the rule's summary: a link may lead out of
// the repository (pw.yaml -> /etc/passwd), and what it leads to must not
// reach a CI log through a message. Position, rule, resource and field
// stay.
func (e *Engine) withoutLinkedContents(findings []analysis.Finding, linked linkedFiles) {
	for i := range findings {
		f := &findings[i]
		if quotesNoContent[f.Rule] || !linked.is(f.File) {
			continue
		}
		summary := "shipshape found a problem here"
		for _, r := range e.known {
			if r.ID == f.Rule {
				summary = r.Summary
				break
			}
		}
		f.Message = summary + " (the message is left out: " + f.File + " is a symbolic link, and shipshape quotes nothing read through one)"
	}
}
