package analysistest

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// expectation is one wanted finding.
type expectation struct {
	file  string // path as the engine names it
	line  int    // 1-based; 0 for a finding about the whole file
	col   int    // 0: any column
	rule  string
	re    *regexp.Regexp
	fix   int    // 0: either; 1: the finding must carry a fix; -1: it must not
	field string // "": any field
	// roots: "": any; else the finding's kustomize roots, comma-separated
	// ("-": none, a file judged as written)
	roots string
	at    string // where it was written, for messages
	met   bool
}

func (e *expectation) String() string {
	var attrs []string
	if e.col > 0 {
		attrs = append(attrs, fmt.Sprintf("col=%d", e.col))
	}
	switch e.fix {
	case 1:
		attrs = append(attrs, "fix")
	case -1:
		attrs = append(attrs, "nofix")
	}
	if e.field != "" {
		attrs = append(attrs, "field="+e.field)
	}
	if e.roots != "" {
		attrs = append(attrs, "roots="+e.roots)
	}
	s := e.rule
	if len(attrs) > 0 {
		s += " " + strings.Join(attrs, " ")
	}
	return fmt.Sprintf("%s %q", s, e.re)
}

// matches reports whether the finding fd (at the expectation's file and
// line) satisfies it.
func (e *expectation) matches(fd analysis.Finding) bool {
	switch {
	case e.rule != fd.Rule, !e.re.MatchString(fd.Message):
		return false
	case e.col != 0 && e.col != fd.Column:
		return false
	case e.fix == 1 && !fd.Fixable(), e.fix == -1 && fd.Fixable():
		return false
	case e.field != "" && e.field != fd.Field:
		return false
	case e.roots != "" && e.roots != rootsAttr(fd.Roots):
		return false
	}
	return true
}

// rootsAttr is how roots= writes a finding's roots: comma-separated, "-"
// for none.
func rootsAttr(roots []string) string {
	if len(roots) == 0 {
		return "-"
	}
	return strings.Join(roots, ",")
}

var ruleID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// parseWant reads the text after `want`: one or more expectations, each
// `[RULE] [col=N] [fix|nofix] [field=PATH] [roots=DIR,...] "REGEXP"`. The rule ID is
// required before the first regexp and carries over to the next ones;
// the attributes hold for the one regexp they precede. A regexp is a Go
// string literal, "double-quoted" or `back-quoted`.
func parseWant(text string, col int) ([]*expectation, error) {
	var out []*expectation
	rule := ""
	next := &expectation{col: col}
	pending := false // attributes or a rule not yet followed by a regexp
	s := strings.TrimSpace(text)
	for s != "" {
		var tok string
		switch s[0] {
		case '"':
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bad string %s: %v", s, err)
			}
			tok = q
		case '`':
			end := strings.IndexByte(s[1:], '`')
			if end < 0 {
				return nil, fmt.Errorf("unterminated `string` in %s", s)
			}
			tok = s[:end+2]
		default:
			tok = s
			if i := strings.IndexAny(s, " \t"); i >= 0 {
				tok = s[:i]
			}
		}
		s = strings.TrimSpace(s[len(tok):])
		switch {
		case tok[0] == '"' || tok[0] == '`':
			if rule == "" {
				return nil, fmt.Errorf("%s: a rule ID must come before the first regexp (# want rule-id \"regexp\")", tok)
			}
			pat, err := strconv.Unquote(tok)
			if err != nil {
				return nil, fmt.Errorf("bad string %s: %v", tok, err)
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				return nil, fmt.Errorf("bad regexp %s: %v", tok, err)
			}
			next.rule, next.re = rule, re
			out = append(out, next)
			next, pending = &expectation{col: col}, false
		case tok == "fix":
			next.fix, pending = 1, true
		case tok == "nofix":
			next.fix, pending = -1, true
		case strings.HasPrefix(tok, "col="):
			n, err := strconv.Atoi(tok[len("col="):])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("bad column %s (want col=N, N from 1)", tok)
			}
			next.col, pending = n, true
		case strings.HasPrefix(tok, "field="):
			next.field, pending = tok[len("field="):], true
		case strings.HasPrefix(tok, "roots=") && len(tok) > len("roots="):
			next.roots, pending = tok[len("roots="):], true
		case ruleID.MatchString(tok):
			rule, pending = tok, true
		default:
			return nil, fmt.Errorf("%q is not a rule ID, col=N, fix, nofix, field=PATH, roots=DIR,... or a quoted regexp", tok)
		}
	}
	if pending || len(out) == 0 {
		return nil, fmt.Errorf("want %q: every expectation ends with a quoted regexp", strings.TrimSpace(text))
	}
	return out, nil
}

// wantComment finds the `# want` comment of a line: a `#` at the start of
// the line or after a space or tab, then `want` and a blank. It returns the
// byte offset of the `#`, or -1.
func wantComment(line string) int {
	for i := 0; i < len(line); i++ {
		if line[i] != '#' || i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
			continue
		}
		rest := strings.TrimLeft(line[i+1:], " \t")
		if rest == "want" || strings.HasPrefix(rest, "want ") || strings.HasPrefix(rest, "want\t") {
			return i
		}
	}
	return -1
}

const bom = "\xef\xbb\xbf"

// scanFile reads the `# want` comments of one fixture (src as on disk).
// A want comment trails the content of the line it is about; one that
// stands alone on its line, or that YAML does not read as a comment (it is
// inside a block scalar or a quoted string), is an error: write such
// expectations in want.txt.
func scanFile(path string, src []byte) ([]*expectation, []error) {
	text := strings.TrimPrefix(string(src), bom)
	lines := strings.Split(text, "\n")
	var errs []error
	type found struct {
		line    int
		comment string // from the # to the end of the line
	}
	var wants []found
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		at := wantComment(l)
		if at < 0 {
			continue
		}
		if strings.TrimSpace(l[:at]) == "" {
			errs = append(errs, fmt.Errorf("%s:%d: a # want comment must trail the content of the line it is about (for a line that cannot hold one, use %s)", path, i+1, WantFile))
			continue
		}
		wants = append(wants, found{i + 1, strings.TrimRight(l[at:], " \t")})
	}
	// Every want must be a YAML comment: count, per document, the comment
	// lines the parser kept that end with it.
	bad := map[int]bool{}
	for _, c := range chunks(lines) {
		need := map[string][]int{}
		for _, w := range wants {
			if w.line >= c.first && w.line < c.first+c.n {
				need[w.comment] = append(need[w.comment], w.line)
			}
		}
		if len(need) == 0 {
			continue
		}
		comments, ok := yamlComments(c.text)
		if !ok {
			continue // a document that does not parse: nothing to compare
		}
		for _, comment := range slices.Sorted(maps.Keys(need)) {
			at := need[comment]
			have := 0
			for _, yc := range comments {
				if strings.HasSuffix(yc, comment) {
					have++
				}
			}
			if have < len(at) {
				errs = append(errs, fmt.Errorf("%s:%v: %q is not a YAML comment there (inside a block scalar or a quoted string?): put the expectation in %s", path, at, comment, WantFile))
				for _, l := range at {
					bad[l] = true
				}
			}
		}
	}
	var out []*expectation
	for _, w := range wants {
		if bad[w.line] {
			continue
		}
		pos := fmt.Sprintf("%s:%d", path, w.line)
		exps, err := parseWant(strings.TrimLeft(w.comment[1:], " \t")[len("want"):], 0)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", pos, err))
			continue
		}
		for _, e := range exps {
			e.file, e.line, e.at = path, w.line, pos
		}
		out = append(out, exps...)
	}
	return out, errs
}

type chunk struct {
	first, n int // 1-based first line, number of lines
	text     string
}

// chunks splits a stream's lines into its documents at `---` and `...`
// lines (which end a block scalar too).
func chunks(lines []string) []chunk {
	var out []chunk
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, chunk{start + 1, end - start, strings.Join(lines[start:end], "\n")})
		}
		start = end
	}
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if marker(l, "---") || marker(l, "...") {
			flush(i)
		}
	}
	flush(len(lines))
	return out
}

func marker(l, m string) bool {
	return l == m || strings.HasPrefix(l, m+" ") || strings.HasPrefix(l, m+"\t")
}

// yamlComments returns the comment lines yaml.v3 keeps for a document.
func yamlComments(doc string) ([]string, bool) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		return nil, false
	}
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
			for _, l := range strings.Split(c, "\n") {
				if l = strings.TrimSpace(strings.TrimSuffix(l, "\r")); l != "" {
					out = append(out, l)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&n)
	return out, true
}

// WantFile is the name of the file that holds expectations no comment can
// carry: findings about a whole file (line 0), on lines inside a block
// scalar, or in fixtures whose comments are under test.
const WantFile = "want.txt"

// readWantFile reads dir/want.txt: lines `FILE:LINE[:COL] EXPECTATION...`
// (FILE relative to dir; blank lines and lines starting with # are
// skipped). It returns nil when there is none.
func readWantFile(dir string) ([]*expectation, []error) {
	path := filepath.Join(dir, WantFile)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	var out []*expectation
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' {
			continue
		}
		pos := fmt.Sprintf("%s:%d", path, n)
		where, rest, _ := strings.Cut(l, " ")
		parts := strings.Split(where, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
			errs = append(errs, fmt.Errorf("%s: want FILE:LINE[:COL] then expectations, got %q", pos, where))
			continue
		}
		line, err := strconv.Atoi(parts[1])
		col := 0
		if err == nil && len(parts) == 3 {
			col, err = strconv.Atoi(parts[2])
		}
		if err != nil || line < 0 || col < 0 {
			errs = append(errs, fmt.Errorf("%s: bad position %q", pos, where))
			continue
		}
		exps, err := parseWant(rest, col)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", pos, err))
			continue
		}
		for _, e := range exps {
			e.file, e.line, e.at = filepath.Join(dir, filepath.FromSlash(parts[0])), line, pos
		}
		out = append(out, exps...)
	}
	return out, errs
}
