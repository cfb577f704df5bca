package helmrender

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
	"go.yaml.in/yaml/v3"
)

// The comparison runs the real helm, built from its Go module at the version
// this package links (`helm version` of a module build says only "v3.22", so
// the cache directory names the patch release). The package itself never
// starts a process.

// helmTemplate runs `helm template` with a private home, so that no user
// configuration (repositories, plugins) takes part.
func helmTemplate(t *testing.T, helm string, args ...string) (string, error) {
	t.Helper()
	return runHelm(t, helm, append([]string{"template"}, args...)...)
}

// runHelm runs a helm command with a private home (see helmTemplate).
func runHelm(t *testing.T, helm string, args ...string) (string, error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(helm, args...)
	cmd.Env = []string{"HOME=" + home, "HELM_CACHE_HOME=" + filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(home, "config"), "HELM_DATA_HOME=" + filepath.Join(home, "data"),
		"KUBECONFIG=" + filepath.Join(home, "no-kubeconfig"), "PATH=/usr/bin:/bin"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// canonical is a document as data, re-encoded: key order and styles aside.
func canonical(t *testing.T, n *yaml.Node) string {
	t.Helper()
	var v interface{}
	if err := n.Decode(&v); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// helmDocuments parses helm template's output ("---\n# Source: name\n...")
// into "name\n<canonical document>" entries, in helm's order.
func helmDocuments(t *testing.T, out string) []string {
	t.Helper()
	var docs []string
	for _, chunk := range strings.Split("\n"+out, "\n---\n") {
		source, body, ok := strings.Cut(strings.TrimLeft(chunk, "\n"), "\n")
		if !ok || !strings.HasPrefix(source, "# Source: ") {
			if strings.TrimSpace(chunk) != "" {
				t.Fatalf("helm output chunk without a source: %q", chunk)
			}
			continue
		}
		// The split took the line break before "---": helm template
		// prints each document followed by one, which a block scalar at
		// the document's end keeps (lws's ConfigMap).
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(strings.TrimSuffix(body, "\n")+"\n"), &doc); err != nil {
			t.Fatalf("helm output %s: %v", source, err)
		}
		if len(doc.Content) == 0 {
			continue // comments only: no object
		}
		docs = append(docs, strings.TrimPrefix(source, "# Source: ")+"\n"+canonical(t, &doc))
	}
	return docs
}

func ourDocuments(t *testing.T, res *Result) []string {
	t.Helper()
	var docs []string
	for _, o := range res.Objects {
		docs = append(docs, o.Template+"\n"+canonical(t, o.Node))
	}
	return docs
}

func sorted(docs []string) []string {
	out := append([]string(nil), docs...)
	sort.Strings(out)
	return out
}

func TestRenderEqualsHelmTemplate(t *testing.T) {
	helm := testtree.Helm(t)
	type chartCase struct {
		name        string
		dir         string
		valuesFiles []string
		includeCRDs bool
		// random masks what a template draws at random (randAlphaNum):
		// it differs between any two renderings, Helm's included.
		random *regexp.Regexp
	}
	umbrella := umbrellaChart(t)
	override := filepath.Join(t.TempDir(), "override.yaml")
	if err := os.WriteFile(override, []byte("web:\n  image:\n    tag: \"3.0\"\n  port: 9090\nconfig:\n  greeting: yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	featuresOverride := filepath.Join(t.TempDir(), "features-override.yaml")
	if err := os.WriteFile(featuresOverride, []byte(featuresOverrideValues), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []chartCase{
		{name: "umbrella", dir: umbrella, valuesFiles: []string{override}},
		{name: "yaml11", dir: filepath.Join(testdataHelm(t), "yaml11")},
		// subchart globals, an alias, tags and a condition, import-values
		// (both forms), tpl, include in a loop, .Files, .Capabilities
		// (Helm's whole API-version list), .Subcharts, lookup, null deleting
		// a subchart's default, a parent's define winning over a subchart's
		{name: "features", dir: filepath.Join(testdataHelm(t), "features")},
		{name: "features-overridden", dir: filepath.Join(testdataHelm(t), "features"), valuesFiles: []string{featuresOverride}},
		{name: "hooks", dir: filepath.Join(testdataHelm(t), "hooks")},
	}
	if fc := fleetCorpusOrEmpty(); fc != "" {
		podinfo := filepath.Join(fc, "stefanprodan+podinfo", "charts", "podinfo")
		lws := filepath.Join(fc, "kubernetes-sigs+lws", "charts", "lws")
		argo := filepath.Join(fc, "argoproj+argocd-example-apps")
		cases = append(cases,
			chartCase{name: "lws", dir: lws},
			chartCase{name: "lws-crds", dir: lws, includeCRDs: true},
			chartCase{name: "helm-guestbook", dir: filepath.Join(argo, "helm-guestbook")},
			chartCase{name: "blue-green", dir: filepath.Join(argo, "blue-green")},
			chartCase{name: "app-of-apps", dir: filepath.Join(argo, "apps")},
			// podinfo's test pods are named ...-test-{{ randAlphaNum 5 | lower }}
			chartCase{name: "podinfo-prod", dir: podinfo, valuesFiles: []string{filepath.Join(podinfo, "values-prod.yaml")},
				random: regexp.MustCompile(`(name: rel-podinfo-[a-z]+-test-)[a-z0-9]{5}\n`)},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"rel", c.dir, "--namespace", "ns", "--kube-version", DefaultKubernetesVersion}
			opts := Options{ChartDir: c.dir, ReleaseName: "rel", Namespace: "ns", IncludeCRDs: c.includeCRDs}
			for _, f := range c.valuesFiles {
				args = append(args, "-f", f)
				opts.Values = append(opts.Values, valuesFile(t, f))
			}
			if c.includeCRDs {
				args = append(args, "--include-crds")
			}
			out, err := helmTemplate(t, helm, args...)
			if err != nil {
				t.Fatal(err)
			}
			want := helmDocuments(t, out)
			got := ourDocuments(t, mustRender(t, opts))
			if c.random != nil {
				for _, docs := range [][]string{want, got} {
					for i := range docs {
						docs[i] = c.random.ReplaceAllString(docs[i], "${1}RANDOM\n")
					}
				}
			}
			if len(want) == 0 {
				t.Fatal("helm rendered nothing")
			}
			if g, w := sorted(got), sorted(want); strings.Join(g, "---\n") != strings.Join(w, "---\n") {
				t.Fatalf("rendered objects differ from helm template's\n--- ours (%d)\n%s\n--- helm (%d)\n%s",
					len(g), strings.Join(g, "---\n"), len(w), strings.Join(w, "---\n"))
			}
			if g, w := strings.Join(got, "---\n"), strings.Join(want, "---\n"); g != w {
				t.Errorf("same objects, not in helm template's order\n--- ours\n%s\n--- helm\n%s", g, w)
			}
		})
	}
}

// helm template refuses a chart whose dependency is not vendored; the
// engine (and so this package) renders the parent alone, and says so.
func TestHelmTemplateRefusesWhatWeReportAsAProblem(t *testing.T) {
	helm := testtree.Helm(t)
	dir := filepath.Join(testdataHelm(t), "missing-dep")
	_, err := helmTemplate(t, helm, "rel", dir)
	if err == nil || !strings.Contains(err.Error(), "missing in charts/ directory: redis") {
		t.Errorf("helm template on a missing dependency: %v", err)
	}
	if res := mustRender(t, Options{ChartDir: dir}); len(res.Problems) != 1 {
		t.Errorf("problems %+v", res.Problems)
	}
}

// featuresOverrideValues overrides testdata/helm/features as a user's values
// file: enables the conditioned dependency, deletes a subchart default with
// null, replaces a tpl string and a global.
const featuresOverrideValues = `global:
  registry: override.example
conditioned:
  enabled: true
sub2:
  dropme: null
greeting: "{{ .Chart.Name }}/{{ .Values.imported.mine }}"
`

// A required value that is missing fails the rendering with the chart's
// message at the template line, as helm template says it.
func TestRequiredFailsAsHelmTemplateDoes(t *testing.T) {
	helm := testtree.Helm(t)
	dir := filepath.Join(testdataHelm(t), "required")
	_, helmErr := helmTemplate(t, helm, "rel", dir)
	if helmErr == nil {
		t.Fatal("helm template rendered a chart whose required value is missing")
	}
	_, err := Render(Options{ChartDir: dir, ReleaseName: "rel"})
	var te *TemplateError
	if !errors.As(err, &te) {
		t.Fatalf("want a TemplateError, got %v", err)
	}
	// helm prints "Error: execution error at (required/templates/ingress.yaml:6:12): ..."
	if !strings.Contains(helmErr.Error(), "Error: "+te.Message+"\n") {
		t.Errorf("message %q is not helm template's:\n%v", te.Message, helmErr)
	}
	if !strings.Contains(te.Message, "set ingress.host: the host this chart serves") ||
		te.Pos.File != filepath.Join(dir, "templates", "ingress.yaml") || te.Pos.Line != 6 || te.Pos.Column != 12 {
		t.Errorf("error at %v: %q", te.Pos, te.Message)
	}
	// With the value given, both render.
	vals := filepath.Join(t.TempDir(), "v.yaml")
	if err := os.WriteFile(vals, []byte("ingress:\n  host: example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := helmTemplate(t, helm, "rel", dir, "-f", vals); err != nil {
		t.Fatal(err)
	}
	mustRender(t, Options{ChartDir: dir, ReleaseName: "rel", Values: []ValuesSource{valuesFile(t, vals)}})
}

// Values that break a values.schema.json (the chart's or a subchart's):
// helm template refuses them, Render returns a SchemaError placed at the
// values line; values that keep to it render in both.
func TestSchemaRefusedAsHelmTemplateRefuses(t *testing.T) {
	helm := testtree.Helm(t)
	dir := filepath.Join(testdataHelm(t), "schema")
	if _, err := helmTemplate(t, helm, "rel", dir); err != nil {
		t.Fatalf("helm template refuses the chart's defaults: %v", err)
	}
	mustRender(t, Options{ChartDir: dir, ReleaseName: "rel"})
	for _, tc := range []struct {
		name, values, helmSays, chart, path string
		line                                int
	}{
		{"type", "image:\n  tag: 1.10\n", "at '/image/tag': got number, want string", "schema", "image tag", 2},
		{"minimum", "replicas: 0\n", "at '/replicas': minimum: got 0, want 1", "schema", "replicas", 1},
		{"additional", "image:\n  tga: x\n", "additional properties 'tga' not allowed", "schema", "image tga", 2},
		{"subchart", "cache:\n  size: 9\n", "at '/size': maximum: got 9, want 8", "schema/cache", "cache size", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := filepath.Join(t.TempDir(), "v.yaml")
			if err := os.WriteFile(vals, []byte(tc.values), 0o644); err != nil {
				t.Fatal(err)
			}
			_, helmErr := helmTemplate(t, helm, "rel", dir, "-f", vals)
			if helmErr == nil || !strings.Contains(helmErr.Error(), tc.helmSays) {
				t.Fatalf("helm template: %v, want %q", helmErr, tc.helmSays)
			}
			_, err := Render(Options{ChartDir: dir, ReleaseName: "rel", Values: []ValuesSource{valuesFile(t, vals)}})
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("want a SchemaError, got %v", err)
			}
			if se.Chart != tc.chart || strings.Join(se.Path, " ") != tc.path || se.Pos.File != vals || se.Pos.Line != tc.line {
				t.Errorf("got chart %s path %v at %v (%s), want %s %s at %s:%d", se.Chart, se.Path, se.Pos, se.Message, tc.chart, tc.path, vals, tc.line)
			}
		})
	}
}

// A file:// dependency that is not vendored renders from its directory
// when MayLoad allows it, as helm template renders the chart after helm
// dependency build (which Argo CD and Flux run); without MayLoad, or
// refused, it stays a missing dependency.
func TestFileDependencyAsHelmDependencyBuild(t *testing.T) {
	helm := testtree.Helm(t)
	built := t.TempDir()
	testtree.Copy(t, filepath.Join(testdataHelm(t), "filedep"), built)
	app := filepath.Join(built, "app")
	if _, err := helmTemplate(t, helm, "rel", app); err == nil {
		t.Fatal("helm template renders the chart before helm dependency build")
	}
	if _, err := runHelm(t, helm, "dependency", "build", app); err != nil {
		t.Fatal(err)
	}
	out, err := helmTemplate(t, helm, "rel", app, "--namespace", "ns", "--kube-version", DefaultKubernetesVersion)
	if err != nil {
		t.Fatal(err)
	}
	want := helmDocuments(t, out)

	dir := filepath.Join(testdataHelm(t), "filedep", "app")
	var asked []string
	res := mustRender(t, Options{ChartDir: dir, MayLoad: func(d string) error { asked = append(asked, d); return nil }})
	if g, w := strings.Join(ourDocuments(t, res), "---\n"), strings.Join(want, "---\n"); g != w {
		t.Errorf("rendered objects differ from helm template's after helm dependency build\n--- ours\n%s\n--- helm\n%s", g, w)
	}
	lib := filepath.Join(testdataHelm(t), "filedep", "lib")
	if len(asked) != 1 || asked[0] != lib || len(res.Problems) != 0 {
		t.Errorf("asked %v, problems %+v", asked, res.Problems)
	}
	var fromLib bool
	for _, o := range res.Objects {
		fromLib = fromLib || o.Source.File == filepath.Join(lib, "templates", "deployment.yaml")
	}
	if !fromLib {
		t.Error("the dependency's objects are not placed in its own directory")
	}

	for name, mayLoad := range map[string]func(string) error{
		"no MayLoad": nil,
		"refused":    func(string) error { return errors.New("outside") },
	} {
		res := mustRender(t, Options{ChartDir: dir, MayLoad: mayLoad})
		if len(res.Problems) != 1 || res.Problems[0].Kind != MissingDependency || len(res.Objects) != 1 {
			t.Errorf("%s: problems %+v, %d objects", name, res.Problems, len(res.Objects))
		}
	}
}
