package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/english"
)

// GitHub shows at most this many annotations of each kind (error, warning,
// notice) per step; the workflow commands beyond it stay in the log only
// (actions/toolkit docs/problem-matchers.md, "Limitations").
const githubAnnotationsPerKind = 10

// writeGitHub prints one GitHub Actions workflow command per finding,
//
//	::error file=F,line=L,col=C,title=RULE::Kind/name (namespace ns): MESSAGE
//
// (warning -> ::warning, info -> ::notice; the resource as in the text
// format, left out when the finding has none), so that the job log turns
// every line into an annotation. Unknown line and column are left out;
// GitHub then annotates the whole file.
//
// A finding beyond GitHub's limit for its kind would be no annotation
// anyway: it is printed as a plain text-format line, and the closing
// ::notice summary (which takes one of the notice slots, so findings get
// one fewer) says how many are only in the log.
func writeGitHub(w io.Writer, findings []analysis.Finding, sum Summary, opt Options) error {
	ew := &errWriter{w: w}
	annotated := map[string]int{}
	logOnly := map[string]int{}
	for _, f := range findings {
		kind := githubCommand(f.Severity)
		limit := githubAnnotationsPerKind
		if kind == "notice" {
			limit-- // the summary's slot
		}
		if annotated[kind] >= limit {
			logOnly[kind]++
			ew.printf("%s\n", textLine(f, Options{}))
			continue
		}
		annotated[kind]++
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
		cmd := "::" + kind
		if len(props) > 0 {
			cmd += " " + strings.Join(props, ",")
		}
		msg := f.Message
		if r := f.Resource.Label(); r != "" {
			msg = r + ": " + msg
		}
		ew.printf("%s::%s\n", cmd, escapeGitHubData(msg))
	}
	ew.printf("::notice title=shipshape::%s\n", escapeGitHubData(githubSummary(sum, opt.FixCommand, logOnly)))
	return ew.err
}

// githubSummary is the text summary line, then, when GitHub drops some
// annotations, how many findings of each kind only the log shows.
func githubSummary(sum Summary, fixCommand string, logOnly map[string]int) string {
	s := summaryLine(sum, fixCommand, true) // every finding is an annotation or in the log
	var dropped []string
	for _, k := range []struct{ kind, one, many string }{
		{"error", "error", "errors"}, {"warning", "warning", "warnings"}, {"notice", "info", "infos"},
	} {
		if n := logOnly[k.kind]; n > 0 {
			dropped = append(dropped, english.Count(n, k.one, k.many))
		}
	}
	if len(dropped) == 0 {
		return s
	}
	return fmt.Sprintf("%s. GitHub shows %d annotations of each kind per step: %s only in this step's log",
		s, githubAnnotationsPerKind, strings.Join(dropped, ", "))
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
