package engine_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// FuzzLint reads arbitrary bytes as `shipshape fix -` does (stdin: the
// size limit, the encoding check, the parser, every rule, cross-resource
// ones included, then the fixer with its re-parse and re-lint), and holds
// what a hostile input must never break:
//   - no panic: the engine turns one into an internal-error finding, which
//     fails the target here;
//   - every finding is in the file, on a line that exists;
//   - a fix that is applied re-parses into as many documents;
//   - bounded time, whatever the nesting or the aliases.
//
// The seed corpus is in testdata/fuzz/FuzzLint. Longer runs:
// go test -run '^$' -fuzz FuzzLint -fuzztime 10m ./internal/engine
func FuzzLint(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {on: yes}\ndata:\n  a: 1.10\n  a: x\n",
		"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  replicas: \"3\"\n  strategy: {type: RollingUpdate}\n  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: x}}\n    spec:\n      containers: [{name: c, image: i, imagePullpolicy: Always, ports: [{containerPort: eighty}]}]\n",
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: s}, spec: {ports: [{port: 80}]}}\n- &a {apiVersion: v1, kind: Secret, metadata: {name: x}, data: {k: '!!'}}\n- *a\n",
		"a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n---\n- apiVersion: v1\n  kind: Pod\n---\nbare\n",
		"\xef\xbb\xbfapiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: crlf}\r\ndata: {x: on}\r\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n\tlabels: {}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: \"unterminated\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {a: caf\xe9}\n",
		"\xff\xfea\x00b\x00",
		"{{ .Values.x }}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: deep}\nspec: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
	} {
		f.Add([]byte(s))
	}
	eng, err := engine.New(rules.All(), nil, nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	eng.MaxFileSize = 1 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		eng.Stdin = bytes.NewReader(data)
		eng.KeepSource = true
		res := eng.Run([]manifest.Input{{Path: manifest.Stdin, Explicit: true}})
		var outcome *fixer.FileFix
		if outs := fixer.Files(eng, res, fixer.Options{DryRun: true}); len(outs) > 0 {
			outcome = outs[0]
		}
		lines := yamlLines(data)
		for _, fd := range res.Findings {
			if fd.Rule == engine.InternalErrorID {
				t.Fatalf("%q: %s", data, fd.Message)
			}
			if fd.Line < 0 || fd.Line > lines || fd.Column < 0 {
				t.Fatalf("%q: finding outside the file (%d lines): %+v", data, lines, fd)
			}
		}
		if outcome != nil && outcome.Changed() {
			before := manifest.Parse("-", outcome.Orig, manifest.Context{})
			after := manifest.Parse("-", outcome.Out, manifest.Context{})
			if before.Docs != after.Docs {
				t.Fatalf("%q: fixed into %q: %d documents, was %d", data, outcome.Out, after.Docs, before.Docs)
			}
		}
	})
}

// yamlLines counts lines as the YAML parser does: CR LF, CR, LF, NEL, LS
// and PS end a line.
func yamlLines(b []byte) int {
	s := strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n").Replace(string(b))
	return strings.Count(s, "\n") + 1
}
