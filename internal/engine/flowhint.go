package engine

import (
	"bytes"
	"fmt"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

// flowScalar is a mapping value, or a sequence item, that starts with `{`
// and goes on after the matching `}` (`image: {username}/app:latest`):
// meant as text, but YAML reads the `{` as the start of a flow mapping and
// fails after it.
var flowScalar = lazyregexp.New(`^(\s*(?:-\s+)?(?:[^\s#{][^#]*?:\s+)?)(\{[^{}\n]*\}[^\s#,][^#\n]*?)\s*(?:#.*)?$`)

// flowMappingCause is the cause of a YAML syntax error at line (1-based)
// of src when a value on that line, or one of the two before it, starts
// with a `{` that opens a flow mapping by accident: it says so, at the
// `{`, and suggests the quoted value; ok is false for any other error.
func flowMappingCause(src []byte, line int) (msg string, atLine, atColumn int, ok bool) {
	lines := bytes.Split(src, []byte("\n"))
	for l := line; l >= 1 && l >= line-2 && l <= len(lines); l-- {
		m := flowScalar.FindSubmatch(bytes.TrimRight(lines[l-1], "\r"))
		if m == nil {
			continue
		}
		value := string(m[2])
		return fmt.Sprintf("the `{` of %s opens a YAML flow mapping, so the value is not the text it looks like: quote it (%q)", value, value),
			l, len(m[1]) + 1, true
	}
	return "", 0, 0, false
}
