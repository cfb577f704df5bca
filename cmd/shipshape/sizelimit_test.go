package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSizeLimit: --max-file-size refuses larger files and stdin with a
// read-error (the default is engine.DefaultMaxFileSize, 64 MiB), and lints
// the rest.
func TestSizeLimit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, []byte(goodYAML+"  pad: \""+strings.Repeat("p", 400)+"\"\n"), 0o644)
	small := filepath.Join(dir, "small.yaml")
	os.WriteFile(small, []byte(goodYAML), 0o644)
	findings, _, _ := lintFindings(t, "--fail-on", "none", "--max-file-size", "200", dir)
	var bigErr, smallOK bool
	for _, f := range findings {
		bigErr = bigErr || f.File == big && f.Rule == "read-error" && strings.Contains(f.Message, "over the 200-byte limit (--max-file-size)")
		smallOK = smallOK || f.File == small && f.Rule == "ambiguous-scalar"
	}
	if !bigErr || !smallOK {
		t.Errorf("big refused: %v, small linted: %v: %+v", bigErr, smallOK, findings)
	}

	var stdout, stderr bytes.Buffer
	run([]string{"lint", "--format", "json", "--fail-on", "none", "--max-file-size", "10", "-"}, strings.NewReader(goodYAML), &stdout, &stderr)
	if !strings.Contains(stdout.String(), "over the 10-byte limit") {
		t.Errorf("stdin over the limit: %s %s", stdout.String(), stderr.String())
	}
}

// TestSizeLimitFluxGenerated: a file over --max-file-size in a directory
// Flux generates a kustomization for is refused, and its objects are not
// judged after the Kustomization's substitution either (that reads the
// file again, under the same limit); a file under it is.
func TestSizeLimitFluxGenerated(t *testing.T) {
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, "clusters", "apps.yaml"), `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: plain
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/plain
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  postBuild:
    substitute:
      SWITCH: "on"
`)
	configMap := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  switch: ${SWITCH}\n"
	}
	small := filepath.Join(repo, "apps", "plain", "small.yaml")
	writeFile(t, small, configMap("small"))
	big := filepath.Join(repo, "apps", "plain", "big.yaml")
	writeFile(t, big, configMap("big")+"# "+strings.Repeat("p", 600)+"\n")
	findings, _, _ := lintFindings(t, "--fail-on", "none", "--max-file-size", "500", repo)
	var bigRefused, smallSubstituted bool
	for _, f := range findings {
		switch {
		case f.File == big && f.Rule == "read-error":
			bigRefused = true
		case f.File == big:
			t.Errorf("a finding in the file over the limit: %+v", f)
		case f.File == small && f.Rule == "ambiguous-scalar" && strings.Contains(f.Message, "post-build substitution"):
			smallSubstituted = true
		}
	}
	if !bigRefused || !smallSubstituted {
		t.Errorf("big refused: %v, small judged after the substitution: %v: %+v", bigRefused, smallSubstituted, findings)
	}
}
