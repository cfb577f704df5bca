package manifest

import (
	"strings"
	"testing"
)

// TestSyntaxErrorPositions: broken input is reported where it breaks, and
// never past the end of the file (FuzzLint found a mark one line after
// the last line of ": \n0").
func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		name, src  string
		line, col  int
		msg        string
		otherNames []string // objects still read from the other documents
	}{
		{name: "mark past the end", src: "a: [1, 2", line: 1, col: 9, msg: "did not find expected ',' or ']'"},
		{name: "mark on the line after the last break", src: "[a\n", line: 2, col: 1},
		// A key with no ': ' is reported where it starts, not where the
		// scanner gave up (past the end, here).
		{name: "a key alone at the end", src: ": \n0", line: 2, col: 1, msg: "could not find expected ':' after the key that starts here"},
		{name: "a key alone, then a line break", src: ": \n0\n", line: 2, col: 1},
		{name: "lone CR ends a line", src: "a: 1\r: \r0", line: 3, col: 1},
		{name: "Latin-1 byte", src: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n", line: 4, col: 12, msg: "invalid UTF-8 (byte 0xE9)"},
		{
			name: "Latin-1 in one document of three",
			src:  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nx: \xff\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
			line: 5, col: 4, msg: "invalid UTF-8 (byte 0xFF)", otherNames: []string{"a", "c"},
		},
		{name: "tab indentation", src: "a:\n\tb: c\n", line: 2, col: 1, msg: "found a tab that cannot start any token (YAML indents with spaces, never tabs)"},
		{name: "percent sign", src: "a:\n  b:\tc\n  d: %x\n", line: 3, col: 6, msg: "found character '%' that cannot start any token (a value that starts with '%' must be quoted)"},
		{name: "reserved indicator", src: "a:\n  name: @NAME@\n", line: 2, col: 9, msg: "found character '@' that cannot start any token (a value that starts with '@' must be quoted; a placeholder (@VAR@) is filled by a tool before anything reads the file)"},
		{name: "backtick", src: "a: `b`\n", line: 1, col: 4, msg: "found character '`' that cannot start any token (a value that starts with '`' must be quoted)"},
		{name: "unterminated quote", src: "a: \"abc\nb: c\n", line: 3, col: 1, msg: "while scanning a quoted scalar"},
		{name: "nesting", src: "a: " + strings.Repeat("[", 20000), line: 1, col: 10004, msg: "exceeded max depth of 10000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse("x.yaml", []byte(tt.src), Context{})
			if len(f.Errors) != 1 {
				t.Fatalf("errors: %+v", f.Errors)
			}
			e := f.Errors[0]
			if e.Line != tt.line || e.Column != tt.col || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %d:%d %q, want %d:%d %q", e.Line, e.Column, e.Message, tt.line, tt.col, tt.msg)
			}
			var names []string
			for _, o := range f.Objects {
				names = append(names, o.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.otherNames, ",") {
				t.Errorf("objects %v, want %v", names, tt.otherNames)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // "" for text
	}{
		{"UTF-8", "a: b\n", ""},
		{"UTF-8 BOM", "\xef\xbb\xbfa: b\n", ""},
		{"Latin-1 is left to the parser", "a: caf\xe9\n", ""},
		{"empty", "", ""},
		{"UTF-16 LE", "\xff\xfea\x00:\x00", "UTF-16 text"},
		{"UTF-16 BE", "\xfe\xff\x00a\x00:", "UTF-16 text"},
		{"UTF-32 LE", "\xff\xfe\x00\x00a\x00\x00\x00", "UTF-32 text"},
		{"UTF-32 BE", "\x00\x00\xfe\xff\x00\x00\x00a", "UTF-32 text"},
		{"binary", "\x7fELF\x02\x01\x01\x00", "binary file (a NUL byte at offset 7)"},
		{"NUL late in the file is binary too", strings.Repeat("a", 5000) + "\x00", "binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Sniff([]byte(tt.data))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused text: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

// TestStrays: documents kubectl cannot read as an object are recorded;
// other YAML (no apiVersion and kind) is not Kubernetes and stays silent.
func TestStrays(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // message fragments, in order
	}{
		{"bare value", "just text\n", []string{`the bare value "just text"`}},
		{"bare value after an object", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n42\n", []string{`the bare value "42"`}},
		{"list of objects", "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {x: 1}\n", []string{"a list of one Kubernetes object, not an object"}},
		{"Ansible playbook", "- hosts: all\n  tasks: []\n", nil},
		{"null and empty documents", "---\n~\n---\n# comment\n---\n", nil},
		{"GitHub workflow", "on: push\njobs: {}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse("x.yaml", []byte(tt.src), Context{})
			if len(f.Strays) != len(tt.want) {
				t.Fatalf("strays %+v, want %d", f.Strays, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(f.Strays[i].Message, w) {
					t.Errorf("%q does not contain %q", f.Strays[i].Message, w)
				}
			}
		})
	}
}
