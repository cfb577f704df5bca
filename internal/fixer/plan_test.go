package fixer

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

const planLWS = `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: l
  namespace: ns
spec:
  leaderWorkerTemplate:
    workerTemplate:
      spec:
        containers:
          - name: c
            image: example/c:1
            envFrom:
              - configMapRef:
                  name: cfg
`

const planCM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
  namespace: ns
data:
  a: b
`

const (
	lwsAnn = `  annotations:
    kapp.k14s.io/change-group.shipshape-lws: shipshape.dev/lws.ns.l
    kapp.k14s.io/change-rule.shipshape-lws: upsert after upserting shipshape.dev/deps.ns.l
`
	cmAnn = `  annotations:
    kapp.k14s.io/change-group.shipshape-l: shipshape.dev/deps.ns.l
    kapp.k14s.io/change-rule.shipshape-l: delete after deleting shipshape.dev/lws.ns.l
`
)

// withAnn inserts annotation lines after the namespace line of a fixture.
func withAnn(doc, ann string) string {
	return strings.Replace(doc, "  namespace: ns\n", "  namespace: ns\n"+ann, 1)
}

// fixRun does what `shipshape fix` does: lint (keeping the bytes), then
// the fix driver; between runs after the lint, before anything is written.
func fixRun(t *testing.T, dir string, dry bool, between func()) (*engine.Result, map[string]*FileFix, []string) {
	t.Helper()
	eng, err := engine.New(rules.All(), &config.Config{LWS: config.LWSConfig{Engine: "kapp"}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	inputs, werrs := manifest.Collect([]string{dir})
	if len(werrs) > 0 {
		t.Fatal(werrs)
	}
	eng.KeepSource = true
	res := eng.Run(inputs)
	if between != nil {
		between()
	}
	outcomes := map[string]*FileFix{}
	var failures []string
	for _, o := range Files(eng, res, Options{DryRun: dry, Roots: []string{dir}}) {
		outcomes[o.Path] = o
		if o.Err != nil {
			failures = append(failures, filepath.Base(o.Path)+": "+o.Err.Error())
		}
	}
	return res, outcomes, failures
}

func TestCrossFix(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		dry      bool
		between  map[string]string // files rewritten after the lint
		want     map[string]string // file bytes after (on disk, or Out when dry)
		applied  int               // cross findings applied
		left     []string          // substrings of cross findings left
		failures []string
	}{
		{
			name:    "two files, written",
			files:   map[string]string{"lws.yaml": planLWS, "cm.yaml": planCM},
			want:    map[string]string{"lws.yaml": withAnn(planLWS, lwsAnn), "cm.yaml": withAnn(planCM, cmAnn)},
			applied: 2,
		},
		{
			name:    "dry run: Out holds the result",
			files:   map[string]string{"lws.yaml": planLWS, "cm.yaml": planCM},
			dry:     true,
			want:    map[string]string{"lws.yaml": withAnn(planLWS, lwsAnn), "cm.yaml": withAnn(planCM, cmAnn)},
			applied: 2,
		},
		{
			name:    "one file, two documents, CRLF and a BOM",
			files:   map[string]string{"all.yaml": "\ufeff" + crlf(planLWS+"---\n"+planCM)},
			want:    map[string]string{"all.yaml": "\ufeff" + crlf(withAnn(planLWS, lwsAnn)+"---\n"+withAnn(planCM, cmAnn))},
			applied: 2,
		},
		{
			name:    "on top of a per-file fix, written",
			files:   map[string]string{"lws.yaml": planLWS, "cm.yaml": strings.Replace(planCM, "a: b", "a: yes", 1)},
			want:    map[string]string{"lws.yaml": withAnn(planLWS, lwsAnn), "cm.yaml": withAnn(strings.Replace(planCM, "a: b", `a: "yes"`, 1), cmAnn)},
			applied: 2,
		},
		{
			name:    "on top of a per-file fix, dry run",
			files:   map[string]string{"lws.yaml": planLWS, "cm.yaml": strings.Replace(planCM, "a: b", "a: yes", 1)},
			dry:     true,
			want:    map[string]string{"lws.yaml": withAnn(planLWS, lwsAnn), "cm.yaml": withAnn(strings.Replace(planCM, "a: b", `a: "yes"`, 1), cmAnn)},
			applied: 2,
		},
		{
			name:    "flow metadata is left, the rest is fixed",
			files:   map[string]string{"lws.yaml": planLWS, "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: ns}\n"},
			want:    map[string]string{"lws.yaml": withAnn(planLWS, lwsAnn), "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: ns}\n"},
			applied: 1,
			left:    []string{`ConfigMap "cfg" is used by LeaderWorkerSet "ns/l"`, "(not fixed: 3:11: set "},
		},
		{
			name:     "a file changed by someone else after the lint",
			files:    map[string]string{"lws.yaml": planLWS, "cm.yaml": planCM},
			between:  map[string]string{"cm.yaml": "# emptied by someone else\n"},
			want:     map[string]string{"lws.yaml": withAnn(planLWS, lwsAnn), "cm.yaml": "# emptied by someone else\n"},
			applied:  1,
			left:     []string{`ConfigMap "cfg" is used by LeaderWorkerSet "ns/l"`},
			failures: []string{"cm.yaml: " + ErrChanged.Error()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(files map[string]string) {
				for name, data := range files {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			write(tc.files)
			res, outcomes, failures := fixRun(t, dir, tc.dry, func() { write(tc.between) })
			for name, want := range tc.want {
				path := filepath.Join(dir, name)
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if tc.dry {
					if string(got) != tc.files[name] {
						t.Errorf("%s written in a dry run", name)
					}
					got = outcomes[path].Out
				}
				if string(got) != want {
					t.Errorf("%s:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
				}
			}
			applied := 0
			for _, o := range outcomes {
				for _, fd := range o.Applied {
					if fd.Rule == "lws-recreate-order" {
						applied++
					}
				}
			}
			if applied != tc.applied {
				t.Errorf("applied %d cross fixes, want %d", applied, tc.applied)
			}
			var left []string
			for _, fd := range res.Findings {
				if fd.Rule == "lws-recreate-order" {
					if fd.Fix != nil && len(tc.failures) == 0 {
						t.Errorf("finding left with its fix: %s", fd.Message)
					}
					left = append(left, fd.Message)
				}
			}
			if len(left) != min(len(tc.left), 1) {
				t.Errorf("left %d findings, want %d: %v", len(left), min(len(tc.left), 1), left)
			}
			for _, w := range tc.left {
				if len(left) == 1 && !strings.Contains(left[0], w) {
					t.Errorf("left finding lacks %q: %s", w, left[0])
				}
			}
			fails := failures
			sort.Strings(fails)
			if strings.Join(fails, "\n") != strings.Join(tc.failures, "\n") {
				t.Errorf("failures %v, want %v", fails, tc.failures)
			}
		})
	}
}

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
