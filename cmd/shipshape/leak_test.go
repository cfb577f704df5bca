package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessagesQuoteNoContents: what a file holds does not reach the output
// beyond a short excerpt of the value judged, and nothing at all of a file
// named through a symbolic link (pw.yaml -> a password file elsewhere in
// the tree; one outside it is not read at all, see hostile_scope_test.go),
// in any output format: CI logs are public to more people than the
// files they lint.
func TestMessagesQuoteNoContents(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	const secret = "S3CR3T-hunter2-tok3n"
	// long pushes what follows past the excerpt a message may quote.
	const long = "a long value that goes on and on and on, and then "
	dir := t.TempDir()
	outside := filepath.Join(dir, "private") // no YAML names: read only through the links
	files := map[string]string{
		// Read through links.
		filepath.Join(outside, "passwd"):     "root:x:0:0:" + secret + ":/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
		filepath.Join(outside, "kubeconfig"): "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kc}\ndata:\n  token: [" + secret + "]\n",
		// Hostile documents in the tree.
		filepath.Join(dir, "bare.yaml"):   long + secret + "\n",
		filepath.Join(dir, "dep.yaml"):    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: \"" + long + secret + "\"\n",
		filepath.Join(dir, "dup.yaml"):    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata:\n  " + strings.Repeat("k", 40) + "-KEYTAIL: a\n  " + strings.Repeat("k", 40) + "-KEYTAIL: b\n",
		filepath.Join(dir, "syntax.yaml"): "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata:\n  k: [a, \"" + secret + "\"\n",
		filepath.Join(dir, "escape.yaml"): "\"\\e[2J\\u202e" + long + secret + "\"\n",
		// kustomize's errors print the object they refuse.
		filepath.Join(dir, "noname", "kustomization.yaml"): "resources:\n- cm.yaml\n",
		filepath.Join(dir, "noname", "cm.yaml"):            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: \"" + secret + "\"}\n",
		filepath.Join(dir, "scalar", "kustomization.yaml"): "resources:\n- bare.yaml\n",
		filepath.Join(dir, "scalar", "bare.yaml"):          long + secret + "\n",
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"pw.yaml": "passwd", "kc.yaml": "kubeconfig"} {
		if err := os.Symlink(filepath.Join(outside, target), filepath.Join(dir, link)); err != nil {
			t.Skip("symlinks not supported:", err)
		}
	}
	for _, format := range []string{"text", "json", "sarif", "github", "junit"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"lint", "--format", format, dir}, strings.NewReader(""), &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code != exitFindings {
			t.Fatalf("%s: exit %d, want %d:\n%s", format, code, exitFindings, out)
		}
		if strings.Contains(out, secret) {
			t.Errorf("%s output holds the secret:\n%s", format, out)
		}
		if strings.ContainsAny(out, "\x1b\u202e") {
			t.Errorf("%s output holds a terminal escape or a bidi override:\n%q", format, out)
		}
		// Not vacuous: each file got its finding.
		for _, want := range []string{"pw.yaml", "kc.yaml", "bare.yaml", "dep.yaml", "dup.yaml", "syntax.yaml", "escape.yaml", "noname", "scalar"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output has no finding about %s:\n%s", format, want, out)
			}
		}
		// The field path of the duplicate key is the key; messages
		// quote at most its first runes.
		if (format == "text" || format == "github") && strings.Contains(out, "KEYTAIL") {
			t.Errorf("%s output quotes all of a long key:\n%s", format, out)
		}
		if format == "text" {
			for _, want := range []string{"pw.yaml:1:1: error type-mismatch: ", "is a symbolic link, and shipshape quotes nothing read through one"} {
				if !strings.Contains(out, want) {
					t.Errorf("text output lacks %q:\n%s", want, out)
				}
			}
		}
		// kustomize's own message goes to the finding's detail.
		if format == "json" && !strings.Contains(out, "in object {…}") {
			t.Errorf("json output lacks kustomize's message with the object left out:\n%s", out)
		}
	}
}
