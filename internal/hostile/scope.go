// Package hostile builds, for tests, trees that try to make shipshape
// read or write outside the paths it was given: a repository whose
// kustomizations, Flux paths and links lead to a victim directory beside
// it, to an absolute path and to /etc/passwd, with bait above the
// repository (a kustomization and a config) that must not be opened.
package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Canary is in every victim file: it must never appear in any output.
const Canary = "CANARY-5f0c1d7e"

// Tree is a hostile tree made by ScopeTree.
type Tree struct {
	// Dir holds Repo and Victim (and the bait above the repository).
	Dir, Repo, Victim string
	// Entries are the kustomization files (relative to Repo) whose entries
	// lead outside, with the line of the offending entry.
	Entries map[string]int
	// Links are the YAML links (relative to Repo) that lead outside.
	Links []string
	// Kustomizations are kustomization files (relative to Repo) that are
	// links leading outside: their roots cannot render.
	Kustomizations []string
	// Good is a file (relative to Repo) with a fixable finding inside the
	// repository: fix must still fix it.
	Good string
}

// A Deployment leftover in a DaemonSet: fixable, so that a fix that
// reached a victim would rewrite it.
const victimDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: victim
  labels: {note: ` + Canary + `}
spec:
  replicas: 3
  selector: {matchLabels: {app: victim}}
  template:
    metadata: {labels: {app: victim}}
    spec:
      containers: [{name: c, image: "victim:1"}]
`

const victimPatch = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  replicas: 2
  template:
    metadata: {annotations: {note: ` + Canary + `}}
`

const agent = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: c, image: "agent:1"}]
`

// ScopeTree writes the hostile tree into a new temporary directory.
func ScopeTree(t testing.TB) *Tree {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := &Tree{Dir: dir, Repo: filepath.Join(dir, "repo"), Victim: filepath.Join(dir, "victim"), Entries: map[string]int{}}
	victim := map[string]string{
		"x.yaml":                  victimDaemonSet,
		"patch.yaml":              victimPatch,
		"base/kustomization.yaml": "resources: [ds.yaml]\n",
		"base/ds.yaml":            victimDaemonSet,
		"secret.yaml":             Canary + "\n",
		// Read through the repository's fleet.yaml link, it would stop the
		// good application from being rendered (Fleet renders it over a
		// chart).
		"fleet.yaml": "helm: {chart: " + Canary + "}\nkustomize: {dir: apps/good}\n",
	}
	for name, data := range victim {
		write(t, filepath.Join(tr.Victim, name), data)
	}
	// Bait above the repository: never opened.
	write(t, filepath.Join(dir, "kustomization.yaml"), "resources: [victim/x.yaml] # "+Canary+"\n")
	write(t, filepath.Join(dir, ".shipshape.yaml"), "apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec: {failOn: "+Canary+"}\n")

	abs := filepath.Join(tr.Victim, "x.yaml")
	repo := map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		// kustomize refuses these files too (load restrictor).
		"apps/file-outside/kustomization.yaml":  "resources:\n- ../../../victim/x.yaml\n",
		"apps/absolute/kustomization.yaml":      "resources:\n- " + abs + "\n",
		"apps/patch-outside/kustomization.yaml": "resources: [agent.yaml]\npatches:\n- path: ../../../victim/patch.yaml\n",
		"apps/patch-outside/agent.yaml":         agent,
		"apps/psm-outside/kustomization.yaml":   "resources: [agent.yaml]\npatchesStrategicMerge:\n- ../../../victim/patch.yaml\n",
		"apps/psm-outside/agent.yaml":           agent,
		// kustomize loads these bases: shipshape must not.
		"apps/base-outside/kustomization.yaml": "resources:\n- ../../../victim/base\n",
		"apps/linked-base/kustomization.yaml":  "resources:\n- ../../links/base\n",
		// A clean application with a fixable finding of its own.
		"apps/good/kustomization.yaml": "resources: [agent.yaml]\n",
		"apps/good/agent.yaml":         strings.Replace(agent, "spec:\n  selector", "spec:\n  replicas: 2\n  selector", 1),
	}
	for name, data := range repo {
		write(t, filepath.Join(tr.Repo, name), data)
	}
	tr.Entries = map[string]int{
		"apps/file-outside/kustomization.yaml":  2,
		"apps/absolute/kustomization.yaml":      2,
		"apps/patch-outside/kustomization.yaml": 3,
		"apps/psm-outside/kustomization.yaml":   3,
		"apps/base-outside/kustomization.yaml":  2,
		"apps/linked-base/kustomization.yaml":   2,
	}
	tr.Good = "apps/good/agent.yaml"
	links := map[string]string{
		"links/base":          "../../victim/base",
		"plain/pw.yaml":       "../../victim/secret.yaml",
		"plain/passwd.yaml":   "/etc/passwd",
		"plain/absolute.yaml": abs,
		"fleet.yaml":          "../victim/fleet.yaml",
		"apps/linked-kustomization/kustomization.yaml": "../../../victim/base/kustomization.yaml",
	}
	for name, target := range links {
		p := filepath.Join(tr.Repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Skip("symbolic links not supported:", err)
		}
	}
	tr.Links = []string{"fleet.yaml", "plain/absolute.yaml", "plain/passwd.yaml", "plain/pw.yaml"}
	tr.Kustomizations = []string{"apps/linked-kustomization/kustomization.yaml"}
	return tr
}

// VictimBytes returns every file under the victim directory and the bait,
// by path: compare before and after a run.
func (tr *Tree) VictimBytes(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range []string{filepath.Join(tr.Dir, "kustomization.yaml"), filepath.Join(tr.Dir, ".shipshape.yaml")} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(data)
	}
	err := filepath.WalkDir(tr.Victim, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
