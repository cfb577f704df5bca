package render

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

func TestFluxComponents(t *testing.T) {
	const component = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [cm.yaml]\n"
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\n"
	ks := func(path string, components ...string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: x, namespace: flux-system}\nspec:\n  path: " + path +
			"\n  sourceRef: {kind: GitRepository, name: flux-system}\n  components: [" + strings.Join(components, ", ") + "]\n"
	}
	// patches renames the ConfigMaps to name, as a spec.patches entry.
	patches := func(name string) string {
		return "  patches:\n  - target: {kind: ConfigMap}\n    patch: |\n      - {op: replace, path: /metadata/name, value: " + name + "}\n"
	}
	tests := []struct {
		name  string
		files map[string]string
		// want is the ConfigMaps the root app renders, "" when
		// AddFluxSettings leaves it as written.
		want string
		// notApplied: no Flux Kustomization applies app (FluxApplies).
		notApplied bool
	}{
		{
			name:  "applied with no components",
			files: map[string]string{"flux/app.yaml": strings.Replace(ks("./app"), "  components: []\n", "", 1)},
		},
		{
			name:  "added",
			files: map[string]string{"flux/app.yaml": ks("./app", "../comp/a")},
			want:  "app,comp-a",
		},
		{
			name: "added to the components it lists",
			files: map[string]string{
				"app/kustomization.yaml": "resources: [cm.yaml]\ncomponents:\n- ../comp/b\n",
				"flux/app.yaml":          ks("./app", "../comp/a"),
			},
			want: "app,comp-a,comp-b", // kustomize's legacy order
		},
		{
			name: "components: null",
			files: map[string]string{
				"app/kustomization.yaml": "resources: [cm.yaml]\ncomponents:\n",
				"flux/app.yaml":          ks("./app", "../comp/a"),
			},
			want: "app,comp-a",
		},
		{
			name: "two Kustomizations agreeing",
			files: map[string]string{
				"flux/app.yaml": ks("./app", "../comp/a") + "---\n" + ks("./app", "../comp/a"),
			},
			want: "app,comp-a",
		},
		{
			name: "two Kustomizations disagreeing",
			files: map[string]string{
				"flux/app.yaml":   ks("./app", "../comp/a"),
				"flux/other.yaml": ks("./app", "../comp/b"),
			},
		},
		{
			name:  "a missing component fails Flux's build",
			files: map[string]string{"flux/app.yaml": ks("./app", "../comp/a", "../comp/none")},
		},
		{
			name:  "ignoreMissingComponents",
			files: map[string]string{"flux/app.yaml": ks("./app", "../comp/a", "../comp/none") + "  ignoreMissingComponents: true\n"},
			want:  "app,comp-a",
		},
		{
			name:  "a remote component",
			files: map[string]string{"flux/app.yaml": ks("./app", "https://github.com/x/y//comp")},
		},
		{
			name:  "a Kustomization, not a Component",
			files: map[string]string{"flux/app.yaml": ks("./app", "../base")},
		},
		{
			name: "a path to a base, not a root",
			files: map[string]string{
				"top/kustomization.yaml": "resources: [../app]\n",
				"flux/app.yaml":          ks("./app", "../comp/a"),
			},
			notApplied: true,
		},
		{
			name:       "a path to nothing",
			files:      map[string]string{"flux/app.yaml": ks("./elsewhere", "../comp/a")},
			notApplied: true,
		},
		{
			name:  "targetNamespace",
			files: map[string]string{"flux/app.yaml": strings.Replace(ks("./app"), "  components: []\n", "  targetNamespace: prod\n", 1)},
			want:  "prod/app",
		},
		{
			name: "targetNamespace over the kustomization's namespace, with components",
			files: map[string]string{
				"app/kustomization.yaml": "resources: [cm.yaml]\nnamespace: dev\n",
				"flux/app.yaml":          ks("./app", "../comp/a") + "  targetNamespace: prod\n",
			},
			want: "prod/app,prod/comp-a",
		},
		{
			name: "two Kustomizations disagreeing on targetNamespace",
			files: map[string]string{
				"flux/app.yaml":   strings.Replace(ks("./app"), "  components: []\n", "  targetNamespace: prod\n", 1),
				"flux/other.yaml": strings.Replace(ks("./app"), "  components: []\n", "  targetNamespace: dev\n", 1),
			},
		},
		{
			name:  "patches",
			files: map[string]string{"flux/app.yaml": ks("./app") + patches("patched")},
			want:  "patched",
		},
		{
			name: "patches after the kustomization's own",
			files: map[string]string{
				"app/kustomization.yaml": "resources: [cm.yaml]\npatches:\n- target: {kind: ConfigMap}\n  patch: |\n    - {op: replace, path: /metadata/name, value: own}\n",
				"flux/app.yaml":          ks("./app") + patches("patched"),
			},
			want: "patched", // not "own": Flux appends its patches
		},
		{
			name: "two Kustomizations agreeing on patches",
			files: map[string]string{
				"flux/app.yaml": ks("./app") + patches("patched") + "---\n" + ks("./app") + patches("patched"),
			},
			want: "patched",
		},
		{
			name: "two Kustomizations disagreeing on patches",
			files: map[string]string{
				"flux/app.yaml":   ks("./app") + patches("patched"),
				"flux/other.yaml": ks("./app") + patches("other"),
			},
		},
		{
			name:       "another kind",
			files:      map[string]string{"flux/app.yaml": strings.Replace(ks("./app", "../comp/a"), "kustomize.toolkit.fluxcd.io", "example.com", 1)},
			notApplied: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				".git/HEAD":                   "x",
				"app/kustomization.yaml":      "resources: [cm.yaml]\n",
				"app/cm.yaml":                 strings.Replace(cm, "%s", "app", 1),
				"comp/a/kustomization.yaml":   component,
				"comp/a/cm.yaml":              strings.Replace(cm, "%s", "comp-a", 1),
				"comp/b/kustomization.yaml":   component,
				"comp/b/cm.yaml":              strings.Replace(cm, "%s", "comp-b", 1),
				"base/kustomization.yaml":     "resources: [cm.yaml]\n",
				"base/cm.yaml":                strings.Replace(cm, "%s", "base", 1),
				"unrelated/kustomization.yml": "resources: []\n",
			}
			for k, v := range tt.files {
				files[k] = v
			}
			testtree.Write(t, dir, files)
			g, err := Discover([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			var yamls []string
			for name := range files {
				if strings.HasPrefix(name, "flux/") {
					yamls = append(yamls, filepath.Join(dir, name))
				}
			}
			slices.Sort(yamls)
			read := func(p string) []byte { data, _ := os.ReadFile(p); return data }
			found := map[string][]byte{}
			for _, f := range yamls {
				if data := read(f); MentionsFlux(data) {
					found[f] = data
				}
			}
			applies := g.FluxApplies(found)
			changed := g.AddFluxSettings(applies, read)
			app := g.ByDir[g.Real(filepath.Join(dir, "app"))]
			if _, ok := applies[app]; ok == tt.notApplied || len(applies) > 1 {
				t.Errorf("applies %v: app applied %v, want %v", applies, ok, !tt.notApplied)
			}
			if tt.want == "" {
				if len(changed) != 0 {
					t.Fatalf("changed %v, want nothing", changed)
				}
				return
			}
			data, ok := changed[app.File]
			if !ok || len(changed) != 1 {
				t.Fatalf("changed %v, want %s", changed, app.File)
			}
			r := NewRenderer(g)
			r.Override(app.File, data)
			res := r.Render(app)
			if res.Problem != nil {
				t.Fatalf("render: %v\n%s", res.Problem, data)
			}
			var names []string
			for _, o := range res.Objects {
				names = append(names, strings.TrimPrefix(o.Namespace+"/"+o.Name, "/"))
			}
			if got := strings.Join(names, ","); got != tt.want {
				t.Errorf("rendered %s, want %s", got, tt.want)
			}
			// The graph knows them: their files are the root's.
			for _, c := range strings.Split(tt.want, ",")[1:] {
				_, c, _ = strings.Cut(c, "comp-")
				f := g.Real(filepath.Join(dir, "comp", c, "cm.yaml"))
				if !slices.Contains(g.Reaches(app), f) {
					t.Errorf("%s does not reach %s", app.Dir, f)
				}
			}
		})
	}
}
