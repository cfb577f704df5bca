package report

import (
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// writeGitHub prints one GitHub Actions workflow command per finding,
//
//	::error file=F,line=L,col=C,title=RULE::Kind/name (namespace ns): MESSAGE
//
// (warning -> ::warning, info -> ::notice; the resource as in the text
// format, left out when the finding has none) and nothing else, so that the
// job log turns every line into an annotation. Unknown line and column are
// left out; GitHub then annotates the whole file.
func writeGitHub(w io.Writer, findings []analysis.Finding) error {
	ew := &errWriter{w: w}
	for _, f := range findings {
		var props []string
		if f.File != "" {
			props = append(props, "file="+escapeGitHubProperty(githubPath(f.File)))
			if f.Line > 0 {
				props = append(props, "line="+strconv.Itoa(f.Line))
				if f.Column > 0 {
					props = append(props, "col="+strconv.Itoa(f.Column))
				}
			}
		}
		if f.Rule != "" {
			props = append(props, "title="+escapeGitHubProperty(f.Rule))
		}
		cmd := "::" + githubCommand(f.Severity)
		if len(props) > 0 {
			cmd += " " + strings.Join(props, ",")
		}
		msg := f.Message
		if r := f.Resource.Label(); r != "" {
			msg = r + ": " + msg
		}
		ew.printf("%s::%s\n", cmd, escapeGitHubData(msg))
	}
	return ew.err
}

func githubCommand(s analysis.Severity) string {
	switch {
	case s >= analysis.Error:
		return "error"
	case s == analysis.Warning:
		return "warning"
	}
	return "notice"
}

// githubData escapes a command's message the way @actions/core does.
var githubData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

// githubProperty additionally escapes the property separators.
var githubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

func escapeGitHubData(s string) string     { return githubData.Replace(s) }
func escapeGitHubProperty(s string) string { return githubProperty.Replace(s) }

// githubPath writes relative paths the way GitHub matches them against the
// repository: forward slashes, no leading "./".
func githubPath(file string) string {
	p := filepath.ToSlash(file)
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}
