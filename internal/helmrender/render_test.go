package helmrender

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// rel is a position with the file relative to base, for comparison.
func rel(t *testing.T, base string, p Position) string {
	t.Helper()
	if p.Archive != "" {
		a, err := filepath.Rel(base, p.Archive)
		if err != nil {
			t.Fatal(err)
		}
		p.Archive = filepath.ToSlash(a)
	} else if p.File != "" {
		f, err := filepath.Rel(base, p.File)
		if err != nil {
			t.Fatal(err)
		}
		p.File = filepath.ToSlash(f)
	}
	return p.String()
}

func TestUmbrellaRendersVendoredSubchartsAsHelmDoes(t *testing.T) {
	dir := umbrellaChart(t)
	res := mustRender(t, Options{ChartDir: dir})
	if len(res.Problems) != 0 {
		t.Errorf("problems: %+v", res.Problems)
	}
	var got []string
	for _, o := range res.Objects {
		got = append(got, o.Template+" "+field(o.Node, "kind")+" "+rel(t, dir, o.Source))
	}
	// helm template's order: by kind in Helm's install order
	want := []string{
		"umbrella/templates/configmap.yaml ConfigMap templates/configmap.yaml",
		"umbrella/charts/web/templates/deployment.yaml Service charts/web/templates/deployment.yaml",
		"umbrella/charts/web/templates/deployment.yaml Deployment charts/web/templates/deployment.yaml",
		// the subchart vendored as an archive, under its alias "jobs"
		"umbrella/charts/jobs/templates/cronjob.yaml CronJob charts/archived-0.1.0.tgz!archived/templates/cronjob.yaml",
	} // NOTES.txt and _helpers.tpl are no objects
	if !reflect.DeepEqual(got, want) {
		t.Errorf("objects:\n got %q\nwant %q", got, want)
	}

	cm := find(t, res, "umbrella/templates/configmap.yaml", "ConfigMap")
	for path, want := range map[string]string{
		"metadata.name":      "rel-config",
		"metadata.namespace": "ns",
		"data.kube":          DefaultKubernetesVersion, // .Capabilities.KubeVersion
		"data.lookedUp":      "0",                      // lookup without a cluster: an empty map
		"data.level":         "DEBUG",
	} {
		if got := field(cm.Node, path); got != want {
			t.Errorf("ConfigMap %s = %q, want %q", path, got, want)
		}
	}
	cron := find(t, res, "umbrella/charts/jobs/templates/cronjob.yaml", "CronJob")
	if got := field(cron.Node, "metadata.name"); got != "rel-jobs" {
		t.Errorf("the alias is the subchart's name: %q", got)
	}
}

func TestValueOrigins(t *testing.T) {
	dir := umbrellaChart(t)
	res := mustRender(t, Options{ChartDir: dir})
	type want struct {
		obj, kind, field, values string
		whole                    bool
		origin                   string
	}
	for _, w := range []want{
		// the parent's values.yaml overrides the subchart's, under its key
		{"umbrella/charts/web/templates/deployment.yaml", "Deployment", "spec.replicas", "web.replicas", true, "values.yaml:4:13"},
		// two values in one scalar, each from its own file
		{"umbrella/charts/web/templates/deployment.yaml", "Deployment", "spec.template.spec.containers.0.image", "web.image.repository", false, "charts/web/values.yaml:3:15"},
		{"umbrella/charts/web/templates/deployment.yaml", "Deployment", "spec.template.spec.containers.0.image", "web.image.tag", false, "values.yaml:6:10"},
		{"umbrella/charts/web/templates/deployment.yaml", "Deployment", "spec.template.spec.containers.0.ports.0.containerPort", "web.port", true, "charts/web/values.yaml:5:7"},
		// Helm copies global into each subchart: the line is the parent's
		{"umbrella/charts/web/templates/deployment.yaml", "Deployment", "metadata.labels.team", "web.global.team", true, "values.yaml:2:9"},
		{"umbrella/templates/configmap.yaml", "ConfigMap", "metadata.labels.team", "global.team", true, "values.yaml:2:9"},
		// through `quote`, and inside a longer string
		{"umbrella/templates/configmap.yaml", "ConfigMap", "data.greeting", "config.greeting", true, "values.yaml:10:13"},
		{"umbrella/templates/configmap.yaml", "ConfigMap", "data.banner", "config.greeting", false, "values.yaml:10:13"},
		// a values file inside an archive; the parent's override of an aliased subchart
		{"umbrella/charts/jobs/templates/cronjob.yaml", "CronJob", "spec.jobTemplate.spec.template.spec.containers.0.image", "jobs.image", true, "charts/archived-0.1.0.tgz!archived/values.yaml:2:8"},
		{"umbrella/charts/jobs/templates/cronjob.yaml", "CronJob", "spec.schedule", "jobs.schedule", true, "values.yaml:8:13"},
	} {
		o := find(t, res, w.obj, w.kind)
		u, ok := uses(o, w.field)[w.values]
		if !ok {
			t.Errorf("%s %s: no use of %s among %+v", w.kind, w.field, w.values, uses(o, w.field))
			continue
		}
		if u.Whole != w.whole || rel(t, dir, u.Origin) != w.origin {
			t.Errorf("%s %s <- %s: whole %v at %s, want whole %v at %s", w.kind, w.field, w.values, u.Whole, rel(t, dir, u.Origin), w.whole, w.origin)
		}
	}
	// Values a template transformed are not claimed: `upper`, `add`.
	cm := find(t, res, "umbrella/templates/configmap.yaml", "ConfigMap")
	if u := uses(cm, "data.level"); len(u) != 0 {
		t.Errorf("data.level is upper(value), claimed %+v", u)
	}
	svc := find(t, res, "umbrella/charts/web/templates/deployment.yaml", "Service")
	if len(svc.Values) != 0 {
		t.Errorf("the Service's targetPort is `add .Values.port 0`, claimed %+v", svc.Values)
	}
}

// userValues reads a HelmRelease-shaped file and returns its spec.values.
func userValues(t *testing.T, dir, name, text string) ValuesSource {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	return ValuesSource{File: p, Node: mapValue(mapValue(&doc, "spec"), "values")}
}

func TestUserValuesWinInOrderAndKeepTheirLines(t *testing.T) {
	dir := umbrellaChart(t)
	first := userValues(t, t.TempDir(), "first.yaml", `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
spec:
  values:
    web:
      image:
        tag: "3.0"
    config:
      greeting: hi
`)
	second := userValues(t, t.TempDir(), "second.yaml", `spec:
  values:
    config:
      greeting: bonjour
`)
	res := mustRender(t, Options{ChartDir: dir, Values: []ValuesSource{first, second}})
	deploy := find(t, res, "umbrella/charts/web/templates/deployment.yaml", "Deployment")
	if got := field(deploy.Node, "spec.template.spec.containers.0.image"); got != "registry.example.com/web:3.0" {
		t.Errorf("image %q", got)
	}
	if u := uses(deploy, "spec.template.spec.containers.0.image")["web.image.tag"]; u.Origin.String() != first.File+":7:14" {
		t.Errorf("tag origin %v, want %s:7:14", u.Origin, first.File)
	}
	cm := find(t, res, "umbrella/templates/configmap.yaml", "ConfigMap")
	if got := field(cm.Node, "data.greeting"); got != "bonjour" {
		t.Errorf("greeting %q: the later source wins", got)
	}
	if u := uses(cm, "data.greeting")["config.greeting"]; u.Origin.String() != second.File+":4:17" {
		t.Errorf("greeting origin %v, want %s:4:17", u.Origin, second.File)
	}
}

func TestMissingDependencyIsAProblemAtItsChartYamlLine(t *testing.T) {
	dir := filepath.Join(testdataHelm(t), "missing-dep")
	res := mustRender(t, Options{ChartDir: dir})
	if len(res.Objects) != 1 {
		t.Errorf("the parent still renders alone: %d objects", len(res.Objects))
	}
	if len(res.Problems) != 1 {
		t.Fatalf("problems: %+v", res.Problems)
	}
	p := res.Problems[0]
	if p.Kind != MissingDependency || rel(t, dir, p.Pos) != "Chart.yaml:5:11" || !strings.Contains(p.Message, `"redis"`) {
		t.Errorf("problem %v %s %q", p.Kind, rel(t, dir, p.Pos), p.Message)
	}
}

// Helm reads values files as YAML 1.1 (sigs.k8s.io/yaml over go-yaml v2):
// checked with Helm's own loader, and through a rendering.
func TestValuesFilesAreYAML11ToHelm(t *testing.T) {
	dir := filepath.Join(testdataHelm(t), "yaml11")
	chrt, err := loader.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	image := chrt.Values["image"].(map[string]interface{})
	for name, c := range map[string]struct{ got, want interface{} }{
		"tag: 1.10":      {image["tag"], 1.1},
		"debug: yes":     {chrt.Values["debug"], true},
		`quoted: "yes"`:  {chrt.Values["quoted"], "yes"},
		"fileMode: 0755": {chrt.Values["fileMode"], float64(0o755)},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("Helm reads %s as %#v, want %#v", name, c.got, c.want)
		}
	}

	res := mustRender(t, Options{ChartDir: dir})
	d := find(t, res, "yaml11/templates/deployment.yaml", "Deployment")
	for path, want := range map[string]string{
		"spec.template.spec.containers.0.image": "nginx:1.1",
		"metadata.annotations.debug":            "true",
		"metadata.annotations.fileMode":         "493",
	} {
		if got := field(d.Node, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	u := uses(d, "spec.template.spec.containers.0.image")["image.tag"]
	if u.Value != 1.1 || rel(t, dir, u.Origin) != "values.yaml:3:8" || u.Whole {
		t.Errorf("image.tag use %+v at %s", u, rel(t, dir, u.Origin))
	}
	if u := uses(d, "metadata.annotations.debug")["debug"]; u.Value != true || rel(t, dir, u.Origin) != "values.yaml:4:8" {
		t.Errorf("debug use %+v", u)
	}
}

func TestKubernetesVersionIsTheTargetsAndChartsCheckIt(t *testing.T) {
	dir := umbrellaChart(t)
	res := mustRender(t, Options{ChartDir: dir, KubernetesVersion: "1.30.2"})
	if got := field(find(t, res, "umbrella/templates/configmap.yaml", "ConfigMap").Node, "data.kube"); got != "v1.30.2" {
		t.Errorf(".Capabilities.KubeVersion.Version = %q", got)
	}
	_, err := Render(Options{ChartDir: dir, ReleaseName: "rel", KubernetesVersion: "v1.20.0"})
	if err == nil || !strings.Contains(err.Error(), "incompatible with Kubernetes v1.20.0") || !strings.Contains(err.Error(), filepath.Join(dir, "Chart.yaml")) {
		t.Errorf("kubeVersion >=1.23 on v1.20: %v", err)
	}
	if _, err := Render(Options{ChartDir: dir, KubernetesVersion: "latest"}); err == nil {
		t.Error("a kubernetesVersion that is no version is accepted")
	}
}

func TestTemplateErrorsCarryFileAndLine(t *testing.T) {
	for name, c := range map[string]struct{ template, want string }{
		"required": {"a: 1\nb: {{ required \"set b\" .Values.b }}\n", "templates/cm.yaml:2:6"},
		// "unclosed action started at c/templates/cm.yaml:3": where it starts
		"parse": {"a: 1\n\nb: {{ .Values.b \n", "templates/cm.yaml:3"},
		// Helm's message for a failure inside a helper keeps only the line
		// of the include (cleanupExecError drops the helper's)
		"include":  {"a: {{ include \"h\" . }}\n", "templates/cm.yaml:1:6"},
		"function": {"a: {{ nosuchfunction 1 }}\n", "templates/cm.yaml:1"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeChart(t, map[string]string{
				"Chart.yaml":        "apiVersion: v2\nname: broken\nversion: 0.1.0\n",
				"templates/cm.yaml": c.template,
				"templates/_h.tpl":  "{{- define \"h\" -}}\n{{ required \"set x\" .Values.x }}\n{{- end -}}\n",
			})
			_, err := Render(Options{ChartDir: dir, ReleaseName: "rel"})
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is no TemplateError", err)
			}
			if got := rel(t, dir, te.Pos); got != c.want {
				t.Errorf("at %s, want %s (%s)", got, c.want, te.Message)
			}
		})
	}
}

// A value that picks a branch is not claimed where the branch differs, and
// two leaves with the same value are told apart.
func TestOriginsOnlyWhereExact(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"values.yaml": "mode: fast\nsame1: x\nsame2: x\nreplicas: 2\nenabled: true\n",
		"templates/branch.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: branch
data:
{{- if eq .Values.mode "fast" }}
  speed: {{ .Values.mode }}
{{- end }}
  which: {{ .Values.same2 }}
`,
		"templates/gate.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: gate
data:
{{- if .Values.enabled }}
  on: {{ .Values.enabled | quote }}
{{- end }}
  which: {{ .Values.same2 }}
  count: {{ .Values.replicas | quote }}
  bigger: {{ if gt (int .Values.replicas) 1 }}"yes"{{ else }}"no"{{ end }}
`,
	})
	res := mustRender(t, Options{ChartDir: dir})
	claims := func(o Object) []string {
		var out []string
		for _, u := range o.Values {
			out = append(out, strings.Join(u.Field, ".")+"<-"+strings.Join(u.ValuesPath, ".")+"@"+rel(t, dir, u.Origin))
		}
		return out
	}
	// With markers, eq .Values.mode "fast" is false in the first two
	// passes: the document loses data.speed and has another shape. The third
	// marks only what those passes saw printed (same2), not mode: the branch
	// is taken as in the real rendering, data.which is claimed, and
	// data.speed, whose value was not marked, is not.
	branch := find(t, res, "c/templates/branch.yaml", "ConfigMap")
	if field(branch.Node, "data.speed") != "fast" {
		t.Fatalf("rendered %s", branch.Text)
	}
	if got, want := claims(branch), []string{"data.which<-same2@values.yaml:3:8"}; !reflect.DeepEqual(got, want) {
		t.Errorf("branch claims %q, want %q", got, want)
	}
	// A true bool is marked (a marker is as truthy as true): the gate keeps
	// its shape. int of a marker is 0, so data.bigger changes value but not
	// shape, and holds no marker: not claimed.
	gate := find(t, res, "c/templates/gate.yaml", "ConfigMap")
	want := []string{"data.on<-enabled@values.yaml:5:10", "data.which<-same2@values.yaml:3:8", "data.count<-replicas@values.yaml:4:11"}
	if got := claims(gate); !reflect.DeepEqual(got, want) {
		t.Errorf("gate claims %q, want %q", got, want)
	}
}

func TestAPIVersionsAreAddedToHelmsBuiltInSet(t *testing.T) {
	dir := writeChart(t, map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: caps
data:
  builtin: {{ .Capabilities.APIVersions.Has "apps/v1" | quote }}
  resource: {{ .Capabilities.APIVersions.Has "apps/v1/Deployment" | quote }}
  monitoring: {{ .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" | quote }}
`,
	})
	for _, c := range []struct {
		extra []string
		want  string
	}{{nil, "false"}, {[]string{"monitoring.coreos.com/v1"}, "true"}} {
		cm := find(t, mustRender(t, Options{ChartDir: dir, APIVersions: c.extra}), "c/templates/cm.yaml", "ConfigMap")
		// Helm's built-in set lists group versions; "group/version/Kind"
		// entries come only from a cluster's discovery, as in helm template.
		if field(cm.Node, "data.builtin") != "true" || field(cm.Node, "data.resource") != "false" || field(cm.Node, "data.monitoring") != c.want {
			t.Errorf("with %q: %s", c.extra, cm.Text)
		}
	}
}

func TestValuesSourceThatIsNoMappingNamesItsFile(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("- a\n- b\n"), &doc); err != nil {
		t.Fatal(err)
	}
	_, err := Render(Options{ChartDir: umbrellaChart(t), ReleaseName: "rel", Values: []ValuesSource{{File: "hr.yaml", Node: &doc}}})
	if err == nil || !strings.HasPrefix(err.Error(), "hr.yaml: values: line 1: values must be a mapping") {
		t.Errorf("error %v", err)
	}
}

// Renderings may run at once (the engine renders applications in parallel):
// under -race this checks that they share nothing they write.
func TestConcurrentRenderings(t *testing.T) {
	dir := umbrellaChart(t)
	done := make(chan string, 4)
	for i := 0; i < 4; i++ {
		go func(i int) {
			res, err := Render(Options{ChartDir: dir, ReleaseName: "rel", APIVersions: []string{"x.example.com/v" + string(rune('1'+i))}})
			if err != nil {
				done <- err.Error()
				return
			}
			done <- strings.Join([]string{res.Chart, strings.Repeat("o", len(res.Objects))}, " ")
		}(i)
	}
	for i := 0; i < 4; i++ {
		if got := <-done; got != "umbrella oooo" {
			t.Errorf("rendering %d: %s", i, got)
		}
	}
}
