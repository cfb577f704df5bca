package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/hostile"
)

// Issue 31: a pull request cannot make shipshape read, judge or rewrite
// anything outside the paths it was given and their repository, through
// kustomization entries (relative, absolute, patches, bases kustomize
// would load) or links; what it refuses is a finding at the entry or the
// link, and nothing outside is quoted. integration/scope_test.go traces
// the same runs' system calls.
func TestHostileScope(t *testing.T) {
	tr := hostile.ScopeTree(t)
	before := tr.VictimBytes(t)
	t.Chdir(tr.Repo)

	findings, code, stderr := lintFindings(t, ".")
	if code != 1 {
		t.Errorf("exit %d, want 1 (stderr %s)", code, stderr)
	}
	at := map[string][]hostileFinding{}
	for _, f := range findings {
		rel, err := filepath.Rel(tr.Repo, f.File)
		if err != nil || strings.HasPrefix(rel, "..") {
			if !filepath.IsAbs(f.File) {
				rel = f.File
			} else {
				t.Errorf("finding outside the repository: %+v", f)
				continue
			}
		}
		at[rel] = append(at[rel], f)
	}
	for file, line := range tr.Entries {
		if !hasFinding(at[file], "render-skipped", line, "leads outside the repository") {
			t.Errorf("%s: no render-skipped at line %d saying the entry leads outside; got %+v", file, line, at[file])
		}
	}
	for _, link := range tr.Links {
		if !hasFinding(at[link], "read-error", 0, "outside the repository") {
			t.Errorf("%s: no read-error saying the link leads outside; got %+v", link, at[link])
		}
		// Anything else there was read through the link (a fleet.yaml's
		// render-skipped).
		if len(at[link]) != 1 {
			t.Errorf("%s: read through the link: %+v", link, at[link])
		}
	}
	for _, k := range tr.Kustomizations {
		if !hasFinding(at[k], "read-error", 0, "outside the repository") || !hasFinding(at[k], "render-error", 0, "") {
			t.Errorf("%s: want a read-error saying the link leads outside and its root's render-error; got %+v", k, at[k])
		}
	}
	if !hasFinding(at[tr.Good], "daemonset-replicas", 0, "") {
		t.Errorf("the application inside the repository is still judged: got %+v", at[tr.Good])
	}

	// No format quotes what lies outside.
	for _, format := range []string{"text", "json", "sarif", "github", "junit"} {
		var stdout, stderr bytes.Buffer
		run([]string{"lint", "--format", format, "."}, strings.NewReader(""), &stdout, &stderr)
		for _, secret := range []string{hostile.Canary, "root:x:0:0"} {
			if out := stdout.String() + stderr.String(); strings.Contains(out, secret) {
				t.Errorf("--format %s quotes %q from outside the repository:\n%s", format, secret, out)
			}
		}
	}

	// Named alone (pre-commit names staged files): the same refusals.
	for _, arg := range append([]string{"apps/base-outside/kustomization.yaml"}, tr.Links...) {
		fs, _, _ := lintFindings(t, arg)
		if len(fs) == 0 || !strings.Contains(fs[0].Message, "outside the repository") {
			t.Errorf("lint %s: %+v, want a refusal", arg, fs)
		}
	}

	var stdout, stderrB bytes.Buffer
	run([]string{"fix", "."}, strings.NewReader(""), &stdout, &stderrB)
	for p, data := range tr.VictimBytes(t) {
		if before[p] != data {
			t.Errorf("fix changed %s outside the repository", p)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(tr.Repo, tr.Good)); strings.Contains(string(got), "replicas") {
		t.Errorf("fix no longer fixes inside the repository:\n%s\n%s", got, stdout.String()+stderrB.String())
	}
}

// hasFinding reports whether fs holds a finding of rule (at line, unless
// 0) whose message contains text.
func hasFinding(fs []hostileFinding, rule string, line int, text string) bool {
	for _, f := range fs {
		if f.Rule == rule && (line == 0 || f.Line == line) && strings.Contains(f.Message, text) {
			return true
		}
	}
	return false
}
