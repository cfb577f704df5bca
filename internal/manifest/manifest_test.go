package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		docs      int
		objects   []string // kind/name
		errors    []SyntaxError
		template  string
		partial   []bool
		firstLine int // line of the first object's node
		// inChart puts the file in a Helm chart's templates directory.
		inChart bool
	}{
		{name: "multi", src: "a: 1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: y\n", docs: 3, objects: []string{"ConfigMap/x", "Secret/y"}, firstLine: 3},
		{name: "list", src: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- {apiVersion: v1, kind: Secret, metadata: {name: b}}\n", docs: 1, objects: []string{"ConfigMap/a", "Secret/b"}, firstLine: 4},
		{name: "bom crlf", src: "\xef\xbb\xbfapiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: x\r\n", docs: 1, objects: []string{"ConfigMap/x"}, firstLine: 1},
		{name: "syntax error keeps others", src: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: [\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", docs: 2, objects: []string{"ConfigMap/a", "ConfigMap/c"}, errors: []SyntaxError{{Line: 6, Column: 1}}, firstLine: 1},
		// The key with no ': ' after it is the place, not where the
		// scanner gave up.
		{name: "key without a space after its colon", src: "name: flannel\ndescription:|  A simple way.\n  \nadopt-info: flannel\n", errors: []SyntaxError{{Line: 2, Column: 1}}},
		{name: "helm", src: "metadata:\n  name: {{ .Name }}\n", template: "Helm/Go"},
		{name: "helm in a plain scalar", src: "metadata:\n  name: web-{{ .Release.Name }}\n", inChart: true, template: "Helm/Go"},
		{name: "helm key", src: "metadata:\n  {{ .Key }}: web\n", template: "Helm/Go"},
		{name: "variable in a custom resource's key", src: "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n  annotations:\n    a/{{element.name}}: x\n", docs: 1, objects: []string{"ClusterPolicy/p"}, firstLine: 1},
		{name: "helm in a plain key", src: "metadata:\n  labels:\n    web-{{ .Key }}: web\n", template: "Helm/Go"},
		{name: "quoted key", src: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: q}\ndata:\n  \"{{ k }}\": v\n", docs: 1, objects: []string{"ConfigMap/q"}, firstLine: 1},
		// Alerting rules carry Prometheus templates in plain strings, and
		// are applied as written.
		{name: "alert template in a plain scalar", src: "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: alerts}\nspec:\n  groups:\n  - name: pods\n    rules:\n    - alert: PodDown\n      annotations:\n        description: Pod {{ $labels.namespace }}/{{ $labels.pod }} is down.\n", docs: 1, objects: []string{"PrometheusRule/alerts"}, firstLine: 1},
		{name: "helm, not YAML", src: "{{- if .Values.on }}\nmetadata:\n  name: web\n{{- end }}\n", template: "Helm/Go"},
		{name: "helm beside data braces", src: "metadata:\n  name: {{ .Name }}\n  annotations: {a: \"{{ x }}\"}\n", template: "Helm/Go"},
		// Release bundles (istio, knative) carry injection templates in
		// string values: valid manifests, linted.
		{name: "braces in block, quoted scalars and comments", src: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inject # {{ not a template }}\ndata:\n  t: |\n    {{ .Values.x }}\n  q: \"{{ .y }}\"\n  s: '{{ .z }}'\n", docs: 1, objects: []string{"ConfigMap/inject"}, firstLine: 1},
		// yaml.v3 drops the comments of a file that holds nothing else,
		// and those before a `---`: their `{{` are text all the same.
		{name: "braces in a file of comments", src: "# a: \"{{X}}\"\n# b: {{ .y }}\n"},
		{name: "braces in a comment before ---", src: "# {{ x }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", docs: 1, objects: []string{"ConfigMap/c"}, firstLine: 3},
		{name: "braces in a comment, not YAML", src: "# {{ x }}\nkind: [\n", errors: []SyntaxError{{Line: 3, Column: 1}}},
		{name: "helm beside a braces comment", src: "# {{ x }}\n---\nmetadata:\n  name: {{ .Name }}\n", template: "Helm/Go"},
		{name: "helm beside a # line of a block", src: "data:\n  s: |\n    # {{ x }}\n  name: {{ .N }}\n", template: "Helm/Go"},
		{name: "helm, not YAML, beside a braces comment", src: "# {{ x }}\n{{- if .Values.on }}\nmetadata:\n  name: web\n{{- end }}\n", template: "Helm/Go"},
		{name: "jinja", src: "{% raw %}\napiVersion: v1\nkind: ConfigMap\n{% endraw %}\n", template: "Jinja"},
		{name: "jinja with braces", src: "{% raw %}\napiVersion: v1\ndata:\n  k: '{{ .v }}'\n{% endraw %}\n", template: "Jinja"},
		{name: "freemarker", src: "<#if !config.openshift>\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${config.prefix}staging\n---\n</#if>\n", template: "FreeMarker"},
		{name: "freemarker in a mapping", src: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  annotations:\n<#if config.mail.active>\n    mail: ${config.mail.to}\n</#if>\n", template: "FreeMarker"},
		// A FreeMarker template held as data (a mail template in a
		// ConfigMap) is data.
		{name: "freemarker as data", src: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mail}\ndata:\n  body.ftl: |\n    <#if user??>Hello ${user}</#if>\n", docs: 1, objects: []string{"ConfigMap/mail"}, firstLine: 1},
		{name: "ytt", src: "#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\n", template: "ytt"},
		{name: "patch directive", src: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n      containers:\n      - name: x\n        $patch: delete\n", docs: 1, objects: []string{"Deployment/a"}, partial: []bool{true}, firstLine: 1},
		{name: "container without image", src: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: x, args: [y]}]\n", docs: 1, objects: []string{"Deployment/a"}, partial: []bool{true}, firstLine: 1},
		{name: "not kubernetes", src: "on: push\njobs: {}\n", docs: 1},
		// ${{ }} is GitHub Actions' and Azure Pipelines' expression
		// syntax, in keys too: YAML that is read as written.
		{name: "pipeline expressions", src: "stages:\n- ${{ each env in parameters.envs }}:\n  - stage: deploy_${{ env }}\n", docs: 1},
		{name: "pipeline expressions beside helm", src: "metadata:\n  {{ .Key }}: ${{ a }}\n", template: "Helm/Go"},
		// Braces inside a line's text (a Prometheus alert template) do
		// not make a file that is broken without them a template.
		{name: "syntax error beside alert templates", src: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  description: Pod {{ $labels.pod }} is down.\n runbook: x\n", errors: []SyntaxError{{Line: 6, Column: 2}}},
		{name: "helm that parses without its markers", src: "metadata:\n  name: {{ .Name }}\n  labels: {{ include \"l\" . | nindent 4 }}\nspec: {}\n", template: "Helm/Go"},
		{name: "helm actions on their own lines", src: "metadata:\n  name: a-{{ .Name }}\n {{- if .x }}\n  labels: {}\n{{- end }}\n x\n", template: "Helm/Go"},
		// kubectl reads each document alone: an anchor does not reach
		// the next (yaml.v3's stream decoder keeps it).
		{name: "alias across documents", src: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: &l {app: web}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels: *l\n", docs: 2, objects: []string{"ConfigMap/a"}, errors: []SyntaxError{{Line: 11, Column: 11}}, firstLine: 1},
		{name: "alias within its document", src: "a: 1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels: &l {app: web}\n  annotations: *l\n", docs: 2, objects: []string{"ConfigMap/b"}, firstLine: 3},
		{name: "scalar and sequence documents", src: "just text\n---\n- a\n- b\n", docs: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := "f.yaml"
			if tc.inChart {
				chart := t.TempDir()
				path = filepath.Join(chart, "templates", "sub", "f.yaml")
				if err := os.WriteFile(filepath.Join(chart, "Chart.yaml"), []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f := Parse(path, []byte(tc.src), Context{})
			if f.Template != tc.template {
				t.Fatalf("Template = %q, want %q", f.Template, tc.template)
			}
			if f.Docs != tc.docs {
				t.Errorf("Docs = %d, want %d", f.Docs, tc.docs)
			}
			var got []string
			for _, o := range f.Objects {
				got = append(got, o.Kind+"/"+o.Name)
			}
			if len(got) != len(tc.objects) {
				t.Fatalf("objects = %v, want %v", got, tc.objects)
			}
			for i := range got {
				if got[i] != tc.objects[i] {
					t.Errorf("object %d = %s, want %s", i, got[i], tc.objects[i])
				}
				if tc.partial != nil && f.Objects[i].Partial != tc.partial[i] {
					t.Errorf("object %d partial = %v", i, f.Objects[i].Partial)
				}
			}
			if len(f.Objects) > 0 && f.Objects[0].Node.Line != tc.firstLine {
				t.Errorf("first object at line %d, want %d", f.Objects[0].Node.Line, tc.firstLine)
			}
			if len(f.Errors) != len(tc.errors) {
				t.Fatalf("errors = %v, want %v", f.Errors, tc.errors)
			}
			for i, e := range tc.errors {
				if f.Errors[i].Line != e.Line || f.Errors[i].Column != e.Column {
					t.Errorf("error at %d:%d, want %d:%d (%s)", f.Errors[i].Line, f.Errors[i].Column, e.Line, e.Column, f.Errors[i].Message)
				}
			}
		})
	}
}

func TestParseLinesAfterError(t *testing.T) {
	src := "a: [\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: v\n"
	f := Parse("f.yaml", []byte(src), Context{})
	if len(f.Objects) != 1 {
		t.Fatalf("objects: %d", len(f.Objects))
	}
	if v := Path(f.Objects[0].Node, "data", "k"); v == nil || v.Line != 8 || v.Column != 6 {
		t.Errorf("position after an error: %+v", v)
	}
}

func TestCollect(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a.yaml", "b.yml", "c.txt", "sub/d.YAML", ".git/e.yaml", ".hidden/f.yaml", "dir with space/ü.yaml", ".travis.yml", "sub/.golangci.yaml"} {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte("a: b\n"), 0o644)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.yaml"), 0o644); err != nil {
		t.Logf("no FIFO: %v", err)
	}
	os.Symlink(root, filepath.Join(root, "sub", "loop"))                               // a directory: not followed
	os.Symlink(filepath.Join(root, "a.yaml"), filepath.Join(root, "sub", "link.yaml")) // a file: read
	os.Symlink("missing.yaml", filepath.Join(root, "sub", "dangling.yaml"))
	in, errs := Collect([]string{root})
	var got []string
	for _, i := range in {
		rel, _ := filepath.Rel(root, i.Path)
		got = append(got, rel)
	}
	sort.Strings(got)
	want := []string{"a.yaml", "b.yml", "dir with space/ü.yaml", "sub/d.YAML", "sub/link.yaml"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("got %v, want %v", got, want)
		}
	}
	if len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
	_, errs = Collect([]string{filepath.Join(root, "missing")})
	if len(errs) != 1 {
		t.Errorf("missing path: %v", errs)
	}
}

// TestCollectLinkedRoot: a directory named through a symbolic link is
// walked, under the name given (filepath.WalkDir alone sees only the link
// and finds nothing), even when it points at a hidden directory, as when
// that is named directly; links below it are still not followed.
func TestCollectLinkedRoot(t *testing.T) {
	top := t.TempDir()
	real := filepath.Join(top, ".real")
	os.MkdirAll(filepath.Join(real, "sub"), 0o755)
	os.WriteFile(filepath.Join(real, "sub", "a.yaml"), []byte("a: b\n"), 0o644)
	os.Symlink(top, filepath.Join(real, "up"))
	link := filepath.Join(top, "link")
	if err := os.Symlink(".real", link); err != nil {
		t.Fatal(err)
	}
	for _, named := range []string{link, top + "/./link"} {
		in, errs := Collect([]string{named})
		var got []string
		for _, i := range in {
			got = append(got, i.Path)
		}
		if want := []string{filepath.Join(link, "sub", "a.yaml")}; !slices.Equal(got, want) || len(errs) != 0 {
			t.Errorf("Collect(%s) = %v, %v; want %v", named, got, errs, want)
		}
	}
}

func TestKustomizations(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755) // a repository: its parents are looked at
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte(s), 0o644)
	}
	write("kustomization.yaml", "resources: [deploy.yaml]\ncommonLabels: {app: web}\npatches:\n- path: patches/p.yaml\npatchesStrategicMerge:\n- smp.yaml\n- |-\n  apiVersion: v1\n  kind: X\n")
	k := &Kustomizations{}
	if c := k.For(filepath.Join(root, "deploy.yaml")); c.Patch || c.SelectorLabels["app"] != "web" {
		t.Errorf("deploy.yaml: %+v", c)
	}
	if c := k.For(filepath.Join(root, "patches", "p.yaml")); !c.Patch || c.SelectorLabels != nil {
		t.Errorf("patches/p.yaml: %+v", c)
	}
	if c := k.For(filepath.Join(root, "smp.yaml")); !c.Patch {
		t.Errorf("smp.yaml: %+v", c)
	}
	if c := k.For(filepath.Join(root, "other.yaml")); c.Patch || c.SelectorLabels != nil {
		t.Errorf("other.yaml: %+v", c)
	}
}

// TestKustomizationsListed: a directory a walk listed without a
// kustomization file is not read; one it listed with one, or did not
// list, is.
func TestKustomizationsListed(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, "patches"), 0o755)
	os.WriteFile(filepath.Join(root, "kustomization.yaml"), []byte("patches:\n- path: patches/p.yaml\n"), 0o644)
	patch := filepath.Join(root, "patches", "p.yaml")
	for _, tc := range []struct {
		name      string
		has, seen bool
		patch     bool
	}{
		{"listed with a kustomization", true, true, true},
		{"not listed", false, false, true},
		{"listed without one", false, true, false}, // the listing is believed
	} {
		listed := func(dir string) (bool, bool) {
			if dir == root {
				return tc.has, tc.seen
			}
			return false, true
		}
		if c := (&Kustomizations{}).ForListed(patch, listed); c.Patch != tc.patch {
			t.Errorf("%s: Patch %v, want %v", tc.name, c.Patch, tc.patch)
		}
	}
}

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	os.WriteFile(file, []byte("a: b\n"), 0o644)
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	for _, tc := range []struct {
		path  string
		limit int64
		want  string // the bytes, or the error's text
	}{
		{file, 100, "a: b\n"},
		{file, 5, "a: b\n"},
		{file, 4, "file is 5 bytes, over the 4-byte limit (--max-file-size)"},
		{fifo, 100, "not a regular file (skipped)"}, // refused, not waited on
		{dir, 100, "not a regular file (skipped)"},
		{filepath.Join(dir, "missing.yaml"), 100, "open " + filepath.Join(dir, "missing.yaml") + ": no such file or directory"},
	} {
		data, err := ReadRegular(tc.path, tc.limit)
		got := string(data)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("ReadRegular(%s, %d) = %q, want %q", filepath.Base(tc.path), tc.limit, got, tc.want)
		}
	}
}

// TestReadRegularGrows: a file longer than stat said (procfs says 0) is
// read whole, and still held to the limit.
func TestReadRegularGrows(t *testing.T) {
	const path = "/proc/self/status"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s: %v", path, err)
	}
	data, err := ReadRegular(path, 1<<20)
	if err != nil || !bytes.Contains(data, []byte("\nPid:")) {
		t.Errorf("ReadRegular(%s) = %d bytes, %v", path, len(data), err)
	}
	if _, err := ReadRegular(path, 10); err == nil || err.Error() != "input is over the 10-byte limit (--max-file-size)" {
		t.Errorf("over the limit: %v", err)
	}
}

func TestImpliedKustomization(t *testing.T) {
	tests := []struct {
		name, file, src string
		want            string // apiVersion kind, "" for no object
	}{
		{"neither", "kustomization.yaml", "resources: [a.yaml]\n", "kustomize.config.k8s.io/v1beta1 Kustomization"},
		{"kind only", "kustomization.yml", "kind: Kustomization\nresources: [a.yaml]\n", "kustomize.config.k8s.io/v1beta1 Kustomization"},
		{"apiVersion only", "Kustomization", "apiVersion: kustomize.config.k8s.io/v1beta1\n", "kustomize.config.k8s.io/v1beta1 Kustomization"},
		{"component kind only", "kustomization.yaml", "kind: Component\n", "kustomize.config.k8s.io/v1alpha1 Component"},
		{"both: not implied", "kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n", ""},
		{"another group", "kustomization.yaml", "apiVersion: kustomize.toolkit.fluxcd.io/v1\n", ""},
		{"another kind", "kustomization.yaml", "kind: ConfigMap\n", ""},
		{"another file", "resources.yaml", "resources: [a.yaml]\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := Parse(filepath.Join("app", tc.file), []byte(tc.src), Context{})
			got := ""
			for _, o := range f.Objects {
				if o.Implied {
					got = o.APIVersion + " " + o.Kind
				}
			}
			if got != tc.want {
				t.Errorf("implied = %q, want %q", got, tc.want)
			}
		})
	}
}
