package render

import "testing"

func TestWithoutContents(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"accumulating resources from 'cm.yaml': missing metadata.name in object {{v1 ConfigMap} {{ } map[a:SECRET] map[]}}': must build at directory",
			"accumulating resources from 'cm.yaml': missing metadata.name in object {…}': must build at directory"},
		{"missing kind in object {{v1 } {{x } map[] map[b:SECRET]}} and in object {{v1 } {{y } map[] map[]}}",
			"missing kind in object {…} and in object {…}"},
		{"missing kind in object {{v1 } {{x } map[a:SECRET", "missing kind in object {…}"},
		{"wrong node kind: expected MappingNode but got ScalarNode: node contents:\nroot:x:0:0:SECRET\n': must build",
			"wrong node kind: expected MappingNode but got ScalarNode: node contents: (left out)"},
		{"yaml MappingNodes must have even length contents: content length 3, content summary: SECRET",
			"yaml MappingNodes must have even length contents: content length 3, content summary: (left out)"},
		{"no such file in object store", "no such file in object store"},
	} {
		if got := withoutContents(tt.in); got != tt.want {
			t.Errorf("withoutContents(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
