// Package yaml11 tells what kubectl reads from a plain YAML scalar.
//
// kubectl and the API machinery turn YAML into JSON with sigs.k8s.io/yaml,
// which decodes with go.yaml.in/yaml/v2 and its YAML 1.1 rules: `yes`, `on`,
// `1.10`, `0755` and `~` become a bool, numbers and null there, while yaml.v3
// (which shipshape parses with) keeps them as strings.
//
// Resolve re-implements v2's resolve() for untagged plain scalars instead of
// calling the decoder: it runs on every plain scalar in a string position,
// and a decoder call costs a document parse and a dozen allocations, while
// the mirror below rejects almost every string on its first byte and never
// allocates for a string that stays a string. It makes the same strconv calls
// as v2 (so ranges, octal and underscores behave identically) but only after a
// syntax check has shown they can succeed, because strconv's error values
// allocate. The differential and fuzz tests hold it to the real decoder.
package yaml11

import (
	"math"
	"strconv"
	"strings"
)

// Kind is the JSON type kubectl ends up with.
type Kind uint8

const (
	String Kind = iota
	Bool
	Int
	Float
	Null
)

func (k Kind) String() string {
	switch k {
	case String:
		return "string"
	case Bool:
		return "boolean"
	case Int:
		return "integer"
	case Float:
		return "float"
	case Null:
		return "null"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is what the YAML 1.1 decoder made of a scalar.
type Value struct {
	Kind Kind
	// Text is the value as sigs.k8s.io/yaml.YAMLToJSON prints it: "true",
	// "1.1" for 1.10, "83" for 0123, "1000" for 1e3, "null". JSON has no
	// NaN or infinities (YAMLToJSON fails on them), so those read "NaN",
	// "+Inf" and "-Inf".
	Text string
}

// Describe names the value for messages: "boolean true", "number 1.1", "null".
func (v Value) Describe() string {
	switch v.Kind {
	case Bool:
		return "boolean " + v.Text
	case Int, Float:
		return "number " + v.Text
	case Null:
		return "null"
	}
	return "string " + strconv.Quote(v.Text)
}

var (
	boolTrue  = Value{Bool, "true"}
	boolFalse = Value{Bool, "false"}
	null      = Value{Null, "null"}
)

// Resolve reports how go-yaml v2 (YAML 1.1) reads the plain scalar text s,
// as yaml.v3 hands it over in Node.Value. ok is false when it stays a string.
// Quoted, block and tagged scalars are always what they say; do not pass them.
func Resolve(s string) (v Value, ok bool) {
	if s == "" {
		return null, true // `key:` with nothing after it
	}
	switch s[0] {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		return word(s)
	case '+', '-', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return number(s)
	}
	return Value{}, false
}

// word covers v2's lookup table for scalars starting with a letter: exact
// spellings only, so "nULL" and "yES" stay strings.
func word(s string) (Value, bool) {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return boolTrue, true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return boolFalse, true
	case "~", "null", "Null", "NULL":
		return null, true
	}
	return Value{}, false
}

// number mirrors v2's branch for scalars starting with a digit, sign or dot.
// v2 also tries timestamps there (2006-01-02...), but decoding into
// interface{} turns them back into the original string, and nothing that
// starts with four digits and '-' is a number, so they need no case here.
func number(s string) (Value, bool) {
	switch s {
	case ".nan", ".NaN", ".NAN":
		return Value{Float, "NaN"}, true
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return Value{Float, "+Inf"}, true
	case "-.inf", "-.Inf", "-.INF":
		return Value{Float, "-Inf"}, true
	}
	if !numeric(s) {
		return Value{}, false // "1.2.3-rc1", "80/TCP", "10m": no strconv, no allocation
	}
	if s[0] == '.' {
		// v2 calls ParseFloat on the text as is, and ParseFloat takes Go's
		// digit separators: ".5_0" is 0.5, "._5" and ".5_" are strings.
		if !separatorsOK(s) {
			return Value{}, false
		}
		s = dropUnderscores(s)
		if !isFloat(s) {
			return Value{}, false
		}
		return parseFloat(s)
	}
	// v2 drops every underscore before parsing, wherever it stands.
	if strings.IndexByte(s, '_') >= 0 {
		var ok bool
		if s, ok = withoutUnderscores(s); !ok {
			return Value{}, false
		}
	}
	if isInt(s) {
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			return Value{Int, strconv.FormatInt(i, 10)}, true
		}
		if u, err := strconv.ParseUint(s, 0, 64); err == nil {
			return Value{Int, strconv.FormatUint(u, 10)}, true
		}
		// Decimal beyond uint64 falls through to float, as in v2.
	}
	if isFloat(s) {
		return parseFloat(s)
	}
	// v2's last resort re-parses "0b..." in base 2 with strconv, which takes
	// a sign after the prefix: "0b-101" is -5. (Its "-0b" twin never finds
	// anything base 0 missed.)
	if isBinary(s) {
		if i, err := strconv.ParseInt(s[2:], 2, 64); err == nil {
			return Value{Int, strconv.FormatInt(i, 10)}, true
		}
		if u, err := strconv.ParseUint(s[2:], 2, 64); err == nil {
			return Value{Int, strconv.FormatUint(u, 10)}, true
		}
	}
	return Value{}, false
}

// parseFloat drops out-of-range values the way v2 does: "1e400" is a string
// (ParseFloat fails), while "1e-400" underflows to 0 without error.
func parseFloat(s string) (Value, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return Value{}, false
	}
	return Value{Float, jsonFloat(f)}, true
}

// jsonFloat formats like encoding/json, which YAMLToJSON ends with.
func jsonFloat(f float64) string {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, format, -1, 64)
	if format == 'e' {
		// e-07 -> e-7, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return string(b)
}

// numeric reports whether every byte can occur in something v2 parses as a
// number once underscores are dropped.
func numeric(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case digit(c) < 16, c == '_', c == '.', c == '+', c == '-',
			c == 'x', c == 'X', c == 'o', c == 'O':
		default:
			return false
		}
	}
	return true
}

// isInt accepts what strconv.ParseInt(s, 0, 64) parses, overflow aside:
// an optional sign, then 0x/0o/0b with digits, a leading-0 octal, or decimal.
func isInt[T text](s T) bool {
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	switch {
	case len(s) == 0:
		return false
	case s[0] != '0':
		return allDigits(s, 10)
	case len(s) >= 3 && (s[1] == 'x' || s[1] == 'X'):
		return allDigits(s[2:], 16)
	case len(s) >= 3 && (s[1] == 'o' || s[1] == 'O'):
		return allDigits(s[2:], 8)
	case len(s) >= 3 && (s[1] == 'b' || s[1] == 'B'):
		return allDigits(s[2:], 2)
	}
	return allDigits(s[1:], 8) // also accepts "0" alone
}

// isBinary accepts "0b" followed by what strconv.ParseInt(s, 2, 64)
// parses, overflow aside.
func isBinary[T text](s T) bool {
	if len(s) < 3 || s[0] != '0' || s[1] != 'b' {
		return false
	}
	s = s[2:]
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	return len(s) > 0 && allDigits(s, 2)
}

// separatorsOK reports whether every '_' stands between two digits, the
// rule strconv.ParseFloat applies to decimal text.
func separatorsOK(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && (i == 0 || i == len(s)-1 || digit(s[i-1]) > 9 || digit(s[i+1]) > 9) {
			return false
		}
	}
	return true
}

// withoutUnderscores strips into a stack buffer and checks the syntax there,
// so that a non-number like "1_2_3.4" costs no allocation; only a candidate
// becomes a new string.
func withoutUnderscores(s string) (string, bool) {
	var buf [64]byte
	b := buf[:0]
	for i := 0; i < len(s); i++ {
		if s[i] != '_' {
			b = append(b, s[i])
		}
	}
	if len(b) == 0 || !(isInt(b) || isFloat(b) || isBinary(b)) {
		return "", false
	}
	return string(b), true
}

func dropUnderscores(s string) string {
	if strings.IndexByte(s, '_') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "_", "")
}

// text lets the syntax checks run on a stack buffer as well as a string.
type text interface{ ~string | ~[]byte }

func allDigits[T text](s T, base byte) bool {
	for i := 0; i < len(s); i++ {
		if digit(s[i]) >= base {
			return false
		}
	}
	return true
}

func digit(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 255
}

// isFloat matches v2's yamlStyleFloat without the regexp:
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
func isFloat[T text](s T) bool {
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	n := decimals(s, i)
	i += n
	if i < len(s) && s[i] == '.' {
		i++
		m := decimals(s, i)
		if n == 0 && m == 0 {
			return false
		}
		i += m
	} else if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		n := decimals(s, i)
		if n == 0 {
			return false
		}
		i += n
	}
	return i == len(s)
}

func decimals[T text](s T, i int) int {
	n := 0
	for i+n < len(s) && '0' <= s[i+n] && s[i+n] <= '9' {
		n++
	}
	return n
}
