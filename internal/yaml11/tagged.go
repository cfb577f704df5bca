package yaml11

import (
	"encoding/base64"
	"strconv"
	"time"
)

// TagError is an explicitly tagged scalar whose text is not of its tag's
// type (`!!int "abc"`, `!!bool "1"`): go-yaml v2 refuses it, so kubectl
// cannot read the document at all. Error returns v2's own words, without
// its "yaml: " prefix.
type TagError struct {
	Tag  string // the tag written: "!!int"
	Got  string // what the text is untagged: "!!str", "!!float", ...; "" for !!binary
	Text string
}

func (e *TagError) Error() string {
	if e.Tag == "!!binary" {
		return "!!binary value contains invalid base64 data"
	}
	return "cannot decode " + e.Got + " `" + e.Text + "` as a " + e.Tag
}

// ResolveTagged reports how go-yaml v2 reads a scalar written with an
// explicit tag, given in yaml.v3's short form (Node.ShortTag(): "!!int",
// "!!bool", "!foo") and the scalar's text s. Quoting does not matter once
// a scalar is tagged: `!!int "3"` is the number 3.
//
// ok is false when kubectl reads the string s (`!!str`, a valid
// `!!timestamp`, tags v2 does not resolve such as `!foo`). A `!!binary`
// scalar is the string its base64 text decodes to. err is a *TagError when
// v2 cannot decode s as the tag's type.
//
// It mirrors v2's resolve() for tagged scalars: the text is resolved as if
// untagged (without trying timestamps) and must land on the tag's type,
// except that an integer is accepted as a float.
func ResolveTagged(tag, s string) (v Value, ok bool, err error) {
	switch tag {
	case "!!bool", "!!int", "!!float", "!!null":
	case "!!timestamp":
		if isTimestamp(s) {
			return Value{}, false, nil // decoded into interface{}, v2 keeps the text
		}
	case "!!binary":
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return Value{}, false, &TagError{Tag: tag, Text: s}
		}
		if string(b) == s {
			return Value{}, false, nil
		}
		return Value{String, string(b)}, true, nil
	default:
		// !!str, and tags v2 does not resolve (!foo, !, !!map...): the text.
		return Value{}, false, nil
	}
	v, ok = Resolve(s)
	got := "!!str"
	if ok {
		got = shortTag(v.Kind)
	}
	switch {
	case got == tag:
		return v, true, nil
	case tag == "!!float" && got == "!!int":
		// v2 converts int and int64 results, not uint64 ones.
		if i, err := strconv.ParseInt(v.Text, 10, 64); err == nil {
			return Value{Float, jsonFloat(float64(i))}, true, nil
		}
	}
	return Value{}, false, &TagError{Tag: tag, Got: got, Text: s}
}

func shortTag(k Kind) string {
	switch k {
	case Bool:
		return "!!bool"
	case Int:
		return "!!int"
	case Float:
		return "!!float"
	case Null:
		return "!!null"
	}
	return "!!str"
}

// timestampFormats are v2's allowedTimestampFormats.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp mirrors v2's parseTimestamp.
func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range timestampFormats {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}
