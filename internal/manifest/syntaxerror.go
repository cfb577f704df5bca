package manifest

// Where a document that does not parse breaks: yaml.v3's errors turned
// into a line and column of the file, with a word on the usual causes.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	yamlv4 "go.yaml.in/yaml/v4"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

var v3LinePrefix = lazyregexp.New(`^yaml: line (\d+): `)

// syntaxError turns a yaml.v3 error into a position. yaml.v3 drops the
// column from its messages, so the chunk is read once more by yaml v4,
// whose errors keep the parser's mark; this happens only on broken input.
func syntaxError(chunk []byte, err error) SyntaxError {
	msg := err.Error()
	e := SyntaxError{Line: 1, Column: 1, Message: msg}
	if m := v3LinePrefix.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Message = msg[len(m[0]):]
	} else if len(msg) > 6 && msg[:6] == "yaml: " {
		e.Message = msg[6:]
	}
	if !utf8.Valid(chunk) {
		// Neither parser says where; the first bad byte is the place.
		return invalidUTF8(chunk)
	}
	var n yamlv4.Node
	var le *yamlv4.LoadError
	if err4 := yamlv4.Unmarshal(chunk, &n); errors.As(err4, &le) && le.Mark.Line > 0 {
		e.Line, e.Column = le.Mark.Line, le.Mark.Column
		if le.Message != "" {
			e.Message = le.Message
		}
		if le.ContextMsg != "" {
			e.Message += " (" + le.ContextMsg + ")"
		}
		// A key with no ': ' after it (`description:|`, a word alone on
		// a line) reads on as a plain scalar until the scanner gives up,
		// lines later: the key is where to look.
		if le.ContextMsg == "while scanning a simple key" && le.ContextMark.Line > 0 && le.ContextMark.Line < le.Mark.Line {
			e.Line, e.Column = le.ContextMark.Line, le.ContextMark.Column
			e.Message = le.Message + " after the key that starts here: a key takes ': ' (a colon and a space) after it"
		}
	}
	return explainToken(chunk, clampPosition(chunk, e))
}

// noToken is how both parsers begin the error for a character no YAML
// token starts with; they do not say which.
const noToken = "found character that cannot start any token"

// explainToken names the character of a "cannot start any token" error
// and what to do about it: a tab, or an unquoted value that starts with
// @, a backtick or % (often a placeholder another tool fills in).
func explainToken(chunk []byte, e SyntaxError) SyntaxError {
	if !strings.HasPrefix(e.Message, noToken) {
		return e
	}
	r, ok := runeAt(chunk, e.Line, e.Column)
	switch {
	case !ok:
	case r == '\t':
		e.Message = "found a tab that cannot start any token (YAML indents with spaces, never tabs)"
	case r == '@':
		e.Message = "found character '@' that cannot start any token (a value that starts with '@' must be quoted; a placeholder (@VAR@) is filled by a tool before anything reads the file)"
	case r == '`' || r == '%':
		e.Message = fmt.Sprintf("found character '%c' that cannot start any token (a value that starts with '%c' must be quoted)", r, r)
	default:
		e.Message = fmt.Sprintf("found character %q that cannot start any token", r)
	}
	return e
}

// runeAt is the character at a 1-based line and column (in characters).
func runeAt(b []byte, line, col int) (rune, bool) {
	l, c := 1, 1
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if l == line && c == col {
			return r, true
		}
		i += size
		switch {
		case r == '\r' && i < len(b) && b[i] == '\n':
			i++
			fallthrough
		case r == '\r' || r == '\n':
			l, c = l+1, 1
		default:
			c++
		}
		if l > line {
			return 0, false
		}
	}
	return 0, false
}

// clampPosition keeps an error inside the chunk: at the end of the input
// the parser's mark can stand on a line that does not exist.
func clampPosition(chunk []byte, e SyntaxError) SyntaxError {
	lines, last := yamlLines(chunk)
	if e.Line > lines {
		e.Line, e.Column = lines, utf8.RuneCount(chunk[last:])+1
	}
	e.Line, e.Column = max(e.Line, 1), max(e.Column, 1)
	return e
}

// yamlLines counts lines as the YAML parser does (CR LF, CR, LF, NEL, LS
// and PS end a line) and returns where the last line starts.
func yamlLines(b []byte) (lines, lastStart int) {
	lines = 1
	for i := 0; i < len(b); i++ {
		n := 0
		switch {
		case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
			n = 2
		case b[i] == '\r', b[i] == '\n':
			n = 1
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] == 0x85:
			n = 2
		case b[i] == 0xe2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9):
			n = 3
		default:
			continue
		}
		lines++
		i += n - 1
		lastStart = i + 1
	}
	return lines, lastStart
}

// invalidUTF8 places the first byte of chunk that is not UTF-8.
func invalidUTF8(chunk []byte) SyntaxError {
	line, col := 1, 1
	for i := 0; i < len(chunk); {
		r, size := utf8.DecodeRune(chunk[i:])
		if r == utf8.RuneError && size <= 1 {
			return SyntaxError{Line: line, Column: col, Message: fmt.Sprintf(
				"invalid UTF-8 (byte 0x%02X): the file is not UTF-8 text (Latin-1?); convert it to UTF-8", chunk[i])}
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return SyntaxError{Line: line, Column: col, Message: "invalid UTF-8"}
}
