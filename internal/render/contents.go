package render

import "strings"

// withoutContents is kustomize's error message msg without the contents
// of files it quotes: kyaml's "node contents:" and "content summary:"
// dumps (cut to the end of the message, as the dump is), and the object
// printed after "in object " ("missing metadata.name in object {{v1
// ConfigMap} {{ } map[a:...] map[]}}", labels and annotations included),
// written {…}. A CI log shows what kustomize says, not what the file
// holds: it may be reached through a link (/etc/passwd), or hold secrets.
func withoutContents(msg string) string {
	for _, dump := range []string{"node contents:", "content summary:"} {
		if i := strings.Index(msg, dump); i >= 0 {
			msg = msg[:i] + dump + " (left out)"
		}
	}
	const object = "in object "
	var b strings.Builder
	for {
		i := strings.Index(msg, object)
		if i < 0 || !strings.HasPrefix(msg[i+len(object):], "{") {
			b.WriteString(msg)
			return b.String()
		}
		start := i + len(object)
		b.WriteString(msg[:start])
		end := balanced(msg[start:])
		if end < 0 { // unbalanced: the dump runs to the end
			b.WriteString("{…}")
			return b.String()
		}
		b.WriteString("{…}")
		msg = msg[start+end:]
	}
}

// balanced is the length of the bracketed text s starts with ({...} with
// [...] inside), or -1 when it does not close.
func balanced(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}
