package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/shipshape-dev/shipshape/internal/corpus"
)

// The LWS ordering goldens: testdata/lws/<case>/ holds config.yaml (its
// lws.engine), input/ (an LWS with the ConfigMap, Secret, ServiceAccount,
// PVC, Service and HPA around it, in two files) and what shipshape makes
// of it:
//
//	lint.txt      `shipshape lint` of input/
//	expected/     the files after `shipshape fix`, byte for byte
//	fix.txt       what `shipshape fix` prints
//	fn.yaml       the ResourceList `shipshape fn` returns in fix mode, for
//	              input/ read the way kpt reads a package
//
// Run `go test ./cmd/shipshape -run LWS -update` to rewrite them, then read
// every one by eye.

const lwsCases = "../../testdata/lws"

func lwsCaseDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(lwsCases, "*", "config.yaml"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no LWS cases: %v", err)
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	return dirs
}

// runIn runs shipshape with args and returns its output with dir made
// relative, as the goldens have it.
//
// It runs in dir, with dir and the paths below it named relative to it, as
// a user in dir would: text output fits its lines to a length (report's
// maxTextLine), so the goldens must not depend on where the test's
// temporary directory is.
func runIn(t *testing.T, dir string, want int, args ...string) string {
	t.Helper()
	if abs, err := filepath.Abs(dir); err == nil {
		args = slices.Clone(args)
		for i, a := range args {
			if _, err := os.Lstat(a); err != nil || strings.HasPrefix(a, "-") {
				continue // a flag or a command, not a path
			}
			p, _ := filepath.Abs(a)
			if rel, err := filepath.Rel(abs, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				args[i] = rel
			} else {
				args[i] = p
			}
		}
		// Back before the caller reads its goldens, by relative paths;
		// none of this package's tests runs in parallel.
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chdir(abs); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		dir = abs
	}
	var stdout, stderr bytes.Buffer
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != want {
		t.Fatalf("shipshape %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout.String(), stderr.String())
	}
	out := strings.ReplaceAll(stdout.String()+stderr.String(), dir+string(filepath.Separator), "")
	return strings.ReplaceAll(out, dir, ".")
}

func TestLWSGoldens(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	for _, dir := range lwsCaseDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg := filepath.Join(dir, "config.yaml")
			work := t.TempDir()
			copyTree(t, filepath.Join(dir, "input"), work)

			golden(t, filepath.Join(dir, "lint.txt"), []byte(runIn(t, work, exitOK, "lint", "--fail-on", "none", "-c", cfg, work)))
			golden(t, filepath.Join(dir, "fix.txt"), []byte(runIn(t, work, exitOK, "fix", "--fail-on", "none", "-c", cfg, work)))
			compareTree(t, work, filepath.Join(dir, "expected"), true)

			// Fixing twice changes nothing, and nothing fixable is left.
			before := readTree(t, work)
			out := runIn(t, work, exitOK, "fix", "--fail-on", "none", "-c", cfg, work)
			if !strings.Contains(out, "fixed 0 findings in 0 files") {
				t.Errorf("second fix did something:\n%s", out)
			}
			if after := readTree(t, work); !equalTrees(before, after) {
				t.Error("second fix changed files")
			}
			for _, f := range lintJSON(t, work).Findings {
				if f.Fixable {
					t.Errorf("still fixable after fix: %s:%d %s", f.File, f.Line, f.Rule)
				}
			}

			// --diff and --check write nothing and see the same fixes.
			work2 := t.TempDir()
			copyTree(t, filepath.Join(dir, "input"), work2)
			orig := readTree(t, work2)
			diff := runIn(t, work2, exitOK, "fix", "--diff", "--fail-on", "none", "-c", cfg, work2)
			if changed := !equalTrees(orig, readTree(t, filepath.Join(dir, "expected"))); changed != (diff != "") {
				t.Errorf("--diff printed %q; files change: %v", diff, changed)
			}
			wantCheck := exitOK
			if diff != "" {
				wantCheck = exitFindings
			}
			runIn(t, work2, wantCheck, "fix", "--check", "--fail-on", "none", "-c", cfg, work2)
			if !equalTrees(orig, readTree(t, work2)) {
				t.Error("--diff or --check wrote files")
			}

			fnOut := runLWSFn(t, dir, fnInput(t, filepath.Join(dir, "input"), cfg))
			golden(t, filepath.Join(dir, "fn.yaml"), fnOut)
			// The function is idempotent too: its output items, fed back in,
			// come out unchanged.
			again := runLWSFn(t, dir, stripResults(t, fnOut))
			if items(t, again) != items(t, fnOut) {
				t.Errorf("fn run on its own output changed the items:\n%s", again)
			}
		})
	}
}

// fnInput builds the ResourceList kpt sends for package dir, with the case's
// config in fix mode as functionConfig.
func fnInput(t *testing.T, dir, cfg string) []byte {
	t.Helper()
	nodes, err := (&kio.LocalPackageReader{PackagePath: dir, PreserveSeqIndent: true, WrapBareSeqNode: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	fc, err := yaml.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := fc.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec"), yaml.SetField("mode", yaml.NewStringRNode("fix"))); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := kio.ByteWriter{Writer: &b, KeepReaderAnnotations: true, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion, FunctionConfig: fc}
	if err := w.Write(nodes); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func runLWSFn(t *testing.T, dir string, in []byte) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"fn"}, bytes.NewReader(in), &stdout, &stderr); code != exitOK && code != exitFindings {
		t.Fatalf("%s: fn exit %d: %s", dir, code, stderr.String())
	}
	return stdout.Bytes()
}

// stripResults returns a ResourceList without its results, to run again.
func stripResults(t *testing.T, rl []byte) []byte {
	t.Helper()
	n, err := yaml.Parse(string(rl))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.PipeE(yaml.Clear("results")); err != nil {
		t.Fatal(err)
	}
	return []byte(n.MustString())
}

func items(t *testing.T, rl []byte) string {
	t.Helper()
	n, err := yaml.Parse(string(rl))
	if err != nil {
		t.Fatal(err)
	}
	return n.Field("items").Value.MustString()
}

// readTree returns the files below dir by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTrees(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// compareTree checks the fixed files against the expected ones, byte for
// byte; -update rewrites the expected ones when mayUpdate.
func compareTree(t *testing.T, got, want string, mayUpdate bool) {
	t.Helper()
	g := readTree(t, got)
	if *update && mayUpdate {
		os.RemoveAll(want)
		copyTree(t, got, want)
		return
	}
	w := readTree(t, want)
	var names []string
	for k := range g {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !bytes.Equal(g[k], w[k]) {
			t.Errorf("%s differs from %s:\n--- got ---\n%s\n--- want ---\n%s", k, want, g[k], w[k])
		}
	}
	if len(g) != len(w) {
		t.Errorf("got %d files, want %d", len(g), len(w))
	}
}

// TestLWSOnlyAddsLines checks the promise of the goldens themselves: the
// ordering fix only adds annotation lines; the one line it may change is
// an existing depends-on, by appending references to it.
func TestLWSOnlyAddsLines(t *testing.T) {
	for _, dir := range lwsCaseDirs(t) {
		in := readTree(t, filepath.Join(dir, "input"))
		out := readTree(t, filepath.Join(dir, "expected"))
		for name, a := range in {
			if extra, ok := onlyAdded(a, out[name]); !ok {
				t.Errorf("%s/%s: the fix changes or removes input lines", filepath.Base(dir), name)
			} else if len(extra) > 0 {
				for _, l := range extra {
					if !annotationLine.MatchString(l) {
						t.Errorf("%s/%s: added line %q is not an annotation", filepath.Base(dir), name, l)
					}
				}
			}
		}
	}
}

var annotationLine = regexp.MustCompile(`^ {2,}(annotations:|[a-z0-9./-]+: .+)$`)

// onlyAdded reports whether b is a with lines inserted (and depends-on
// lines extended), and returns the lines inserted.
func onlyAdded(a, b []byte) (added []string, ok bool) {
	al, bl := strings.SplitAfter(string(a), "\n"), strings.SplitAfter(string(b), "\n")
	i := 0
	for _, l := range bl {
		if i < len(al) && (l == al[i] || extends(al[i], l)) {
			i++
			continue
		}
		added = append(added, strings.TrimRight(l, "\n"))
	}
	return added, i == len(al)
}

func extends(old, new string) bool {
	old = strings.TrimRight(old, "\n")
	return strings.Contains(old, "config.kubernetes.io/depends-on: ") && strings.HasPrefix(new, old+",")
}

// TestLWSKpt runs the real kpt with shipshape as an exec function over each
// input and checks that the files it writes are the ones `fix` writes.
func TestLWSKpt(t *testing.T) {
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		t.Skip("kpt not installed")
	}
	bin := filepath.Join(t.TempDir(), "shipshape")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, dir := range lwsCaseDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			work := t.TempDir()
			pkg := filepath.Join(work, "pkg")
			copyTree(t, filepath.Join(dir, "input"), pkg)
			fc := filepath.Join(work, "fn-config.yaml")
			cfg, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(fc, bytes.Replace(cfg, []byte("spec:\n"), []byte("spec:\n  mode: fix\n"), 1), 0o644)
			cmd := exec.Command(kpt, "fn", "eval", pkg, "--exec", bin+" fn", "--fn-config", fc)
			cmd.Env = append(os.Environ(), "HOME="+work)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("kpt fn eval: %v\n%s", err, out)
			}
			compareTree(t, pkg, filepath.Join(dir, "expected"), false)
		})
	}
}

// TestLWSCorpus lints and fixes the LWS project's own manifests with every
// engine: its samples are valid, so lws-invalid-name, lws-service-shadow and
// lws-unsafe-recreate must stay quiet, and what the ordering rules report is
// in testdata/lws/corpus/<engine>.txt (read line by line). The fix only adds
// annotation lines, and a second fix changes nothing.
func TestLWSCorpus(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	src := filepath.Join(corpus.Dir(t), "kubernetes-sigs+lws")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("LWS manifests not in the corpus (%v)", err)
	}
	for _, engine := range []string{"auto", "argocd", "kapp", "cli-utils", "flux", "none"} {
		t.Run(engine, func(t *testing.T) {
			if corpus.Stride() > 1 && engine != "argocd" && engine != "kapp" {
				// The two engines whose fixes reach across files carry the
				// race checks; .ci/run runs every engine without -race.
				t.Skip("race detector on: argocd and kapp only")
			}
			tmp := t.TempDir()
			cfg := filepath.Join(tmp, "config.yaml")
			os.WriteFile(cfg, []byte("apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nspec:\n  lws:\n    engine: "+engine+"\n"), 0o644)
			work := filepath.Join(tmp, "lws")
			copyTree(t, src, work)

			var lws []string
			for _, l := range strings.Split(runIn(t, work, exitOK, "lint", "--fail-on", "none", "-c", cfg, work), "\n") {
				switch {
				case strings.Contains(l, " lws-invalid-name: "), strings.Contains(l, " lws-service-shadow: "), strings.Contains(l, " lws-unsafe-recreate: "):
					t.Errorf("false positive on the LWS project's samples: %s", l)
				case strings.Contains(l, " lws-"):
					lws = append(lws, l)
				}
			}
			golden(t, filepath.Join(lwsCases, "corpus", engine+".txt"), []byte(strings.Join(append(lws, ""), "\n")))

			before := readTree(t, work)
			runIn(t, work, exitOK, "fix", "--fail-on", "none", "-c", cfg, work)
			after := readTree(t, work)
			for name, a := range before {
				if bytes.Equal(a, after[name]) {
					continue
				}
				added, ok := onlyAdded(a, after[name])
				if !ok {
					t.Errorf("%s: the fix changed or removed lines", name)
				}
				for _, l := range added {
					if !annotationLine.MatchString(l) {
						t.Errorf("%s: added line %q is not an annotation", name, l)
					}
				}
			}
			if out := runIn(t, work, exitOK, "fix", "--fail-on", "none", "-c", cfg, work); !strings.Contains(out, "fixed 0 findings in 0 files") {
				t.Errorf("second fix did something:\n%s", out)
			}
			if !equalTrees(after, readTree(t, work)) {
				t.Error("second fix changed files")
			}
		})
	}
}

// TestLWSFixStdin fixes a case's files as one stream on stdin: the output
// is the expected files as one stream.
func TestLWSFixStdin(t *testing.T) {
	for _, name := range []string{"argocd", "kapp", "cli-utils"} {
		dir := filepath.Join(lwsCases, name)
		in := readTree(t, filepath.Join(dir, "input"))
		want := readTree(t, filepath.Join(dir, "expected"))
		stream := func(files map[string][]byte) string {
			return string(files["lws.yaml"]) + "---\n" + string(files["deps.yaml"])
		}
		var stdout, stderr bytes.Buffer
		if code := run([]string{"fix", "-c", filepath.Join(dir, "config.yaml"), "-"}, strings.NewReader(stream(in)), &stdout, &stderr); code != exitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
		}
		if got := stdout.String(); got != stream(want) {
			t.Errorf("%s: stdin fix:\n%s", name, got)
		}
	}
}

// TestLWSEnginePerApplication: lws.engine auto decides per application. A
// repository holding an Argo CD application (its annotations say so) and
// an unrelated LeaderWorkerSet application gets Argo CD ordering for the
// first only, through lint, fix and fn.
func TestLWSEnginePerApplication(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	repo := t.TempDir()
	copyTree(t, filepath.Join(lwsCases, "auto", "input"), filepath.Join(repo, "argo"))
	copyTree(t, filepath.Join(lwsCases, "auto-none", "input"), filepath.Join(repo, "plain"))
	cfg := filepath.Join(lwsCases, "auto", "config.yaml")
	before := readTree(t, repo)

	var out bytes.Buffer
	run([]string{"lint", "--format", "json", "--fail-on", "none", "-c", cfg, repo}, strings.NewReader(""), &out, io.Discard)
	var report jsonReport
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("lint json: %v", err)
	}
	var argo, plain int
	for _, f := range report.Findings {
		if f.Rule != "lws-recreate-order" {
			continue
		}
		switch {
		case strings.Contains(f.File, "/argo/"):
			argo++
		case strings.Contains(f.File, "/plain/"):
			plain++
			t.Errorf("Argo CD ordering proposed to another application: %s:%d", f.File, f.Line)
		}
	}
	if argo != 3 {
		t.Errorf("%d lws-recreate-order findings in the Argo CD application, want 3 (LWS, Service, HPA)", argo)
	}

	fnOut := string(runLWSFn(t, repo, fnInput(t, repo, cfg)))
	runIn(t, repo, exitOK, "fix", "--fail-on", "none", "-c", cfg, repo)
	after := readTree(t, repo)
	for name, data := range after {
		changed := !bytes.Equal(data, before[name])
		switch {
		case strings.HasPrefix(name, "plain/") && changed:
			t.Errorf("fix changed %s, of the application without an engine", name)
		case name == "argo/lws.yaml" && !changed:
			t.Errorf("fix did not order %s", name)
		}
	}
	// fn places items by their path annotations: the same split.
	items, err := (&kio.ByteReader{Reader: strings.NewReader(fnOut)}).Read()
	if err != nil {
		t.Fatal(err)
	}
	ordered := map[string]bool{}
	for _, it := range items {
		path, _, _ := kioutil.GetFileAnnotations(it)
		if _, ok := it.GetAnnotations()["argocd.argoproj.io/sync-wave"]; ok {
			ordered[path+" "+it.GetKind()] = true
		}
	}
	for k := range ordered {
		if strings.HasPrefix(k, "plain/") {
			t.Errorf("fn added a sync-wave in the application without an engine: %s", k)
		}
	}
	if !ordered["argo/lws.yaml LeaderWorkerSet"] {
		t.Errorf("fn did not order the Argo CD application's LWS (sync-waves on %v)", ordered)
	}
}
