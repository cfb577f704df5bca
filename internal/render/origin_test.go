package render

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

var update = flag.Bool("update", false, "rewrite the golden files of internal/render/testdata")

// queries are the field paths asked of each golden tree's objects: root
// directory (relative to testdata) -> object label -> paths.
var queries = map[string]map[string][]string{
	"daemonset-replicas/overlay": {"DaemonSet/node-agent": {
		"spec.replicas", "spec.template.spec.containers[0].image", "spec.selector.matchLabels.app"}},
	"component/overlay": {"DaemonSet/node-agent": {
		"spec.progressDeadlineSeconds", "spec.template.metadata.labels.app"}},
	"inline-json6902/overlay": {"DaemonSet/node-agent": {
		"spec.strategy", "spec.strategy.type", "spec.strategy.rollingUpdate.maxUnavailable", "metadata.name"}},
	"relabel/overlay": {"Deployment/web": {
		"spec.template.metadata.labels.app", "spec.selector.matchLabels.app",
		"spec.template.spec.containers[0].ports[0].containerPort"}},
	"labels/app": {
		"Deployment/controller (namespace system)": {
			`spec.selector.matchLabels["app.kubernetes.io/name"]`, `spec.selector.matchLabels["control-plane"]`,
			`spec.template.metadata.labels["app.kubernetes.io/name"]`, `metadata.labels["control-plane"]`,
			"metadata.namespace", "metadata.annotations.team", "spec.template.spec.containers[0].image"},
		"Service/webhook (namespace system)": {
			`spec.selector["app.kubernetes.io/name"]`, `spec.selector["control-plane"]`, "spec.ports[0].targetPort"},
	},
	"name-prefix/app": {
		"Service/prod-external-db-v1":   {"metadata.name", "spec.ports[0].port"},
		"Endpoints/prod-external-db-v1": {"metadata.name", "subsets[0].addresses[0].ip"},
	},
	"transformer-configs/app": {"Deployment/web": {
		"metadata.labels.team", "spec.template.metadata.labels.team", "spec.minReadySeconds", "spec.revisionHistoryLimit"}},
	"shared-base/overlays/dev":     {"Deployment/api (namespace api-dev)": {"spec.template.spec.containers[0].imagePullPolicy", "spec.replicas"}},
	"shared-base/overlays/prod":    {"Deployment/api (namespace api-prod)": {"spec.template.spec.containers[0].imagePullPolicy", "spec.replicas"}},
	"shared-base/overlays/staging": {"Deployment/api (namespace api-staging)": {"spec.template.spec.containers[0].imagePullPolicy", "metadata.namespace"}},
	// helmCharts: what the chart renders is the chart's to place (helm),
	// what the overlay changes is the overlay's.
	"helmcharts/overlay": {"Deployment/prod-demo": {
		"spec.replicas", "spec.template.spec.containers[0].env[0].value", "metadata.labels.env", "metadata.name"}},
}

// TestLocateGolden renders every root under testdata and writes, for each
// root, its problem (refused, failed) or the location of each queried
// field; the result must equal testdata/locations.golden (reviewed by
// eye; rewrite with -update). Every exact location is also checked
// against the source: its Doc and Path lead back to a node at its
// Line:Column, holding the rendered value.
func TestLocateGolden(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(g)
	var b strings.Builder
	rel := func(p string) string {
		if s, err := filepath.Rel(dir, p); err == nil {
			return s
		}
		return p
	}
	asked := 0
	type asked1 struct {
		res *Result
		o   *Object
		q   string
		l   Location
	}
	var all []asked1
	results := r.RenderAll(context.Background(), g.Roots)
	for _, res := range results {
		root := rel(res.Root.Dir)
		if p := res.Problem; p != nil {
			what := "failed"
			if p.Refused {
				what = "refused"
			}
			msg := strings.ReplaceAll(p.Message, dir+"/", "")
			fmt.Fprintf(&b, "%s: %s at %s:%d:%d: %s\n", root, what, rel(p.File), p.Line, p.Column, msg)
			continue
		}
		fmt.Fprintf(&b, "%s: %d objects\n", root, len(res.Objects))
		for _, o := range res.Objects {
			for _, q := range queries[root][o.Label()] {
				asked++
				loc := r.Locate(res, o, MustParsePath(q))
				all = append(all, asked1{res, o, q, loc})
				fmt.Fprintf(&b, "  %s %s\n    -> %s\n", o.Label(), q, describe(loc, rel, dir))
				if loc.Exact {
					checkLocation(t, r, o, MustParsePath(q), loc)
				}
			}
		}
	}
	// kustomize's own origins (Trace) give the same locations.
	r.TraceAll(context.Background(), results)
	for _, a := range all {
		if l := r.Locate(a.res, a.o, MustParsePath(a.q)); describe(l, rel, dir) != describe(a.l, rel, dir) {
			t.Errorf("%s %s: traced origins give %s", a.o.Label(), a.q, describe(l, rel, dir))
		}
	}
	if want := countQueries(); asked != want {
		t.Errorf("asked %d queries, the table has %d: an object label or root changed", asked, want)
	}
	golden(t, filepath.Join("testdata", "locations.golden"), b.String())
}

func countQueries() int {
	n := 0
	for _, objs := range queries {
		for _, qs := range objs {
			n += len(qs)
		}
	}
	return n
}

// describe writes a Location for the golden file.
func describe(l Location, rel func(string) string, dir string) string {
	if l.Source == FromRendered {
		return fmt.Sprintf("only the rendered object of %s explains it: %s", rel(l.Root), strings.ReplaceAll(l.Why, dir+"/", ""))
	}
	exact := "exact"
	if !l.Exact {
		exact = "NOT exact"
	}
	where := fmt.Sprintf("doc %d %s", l.Doc, l.Path)
	if l.Block != nil {
		where = fmt.Sprintf("inline at %s, doc %d %s", l.BlockPath, l.Doc, l.Path)
	}
	if l.Field != "" && l.Source == FromKustomization {
		where = l.Path.String()
	}
	if l.Source == FromConfig {
		where = fmt.Sprintf("doc %d %s", l.Doc, l.Path)
	}
	if l.Block != nil && l.BlockDoc > 0 {
		where = fmt.Sprintf("inline at doc %d %s, doc %d %s", l.BlockDoc, l.BlockPath, l.Doc, l.Path)
	}
	why := strings.ReplaceAll(l.Why, dir+"/", "")
	return fmt.Sprintf("%s:%d:%d %s [%s] %s: %s", rel(l.File), l.Line, l.Column, l.Source, where, exact, why)
}

// checkLocation re-reads an exact location's source and follows its Doc
// and Path (through the inline block when there is one): the node found
// must stand at Line:Column and hold the rendered value.
func checkLocation(t *testing.T, r *Renderer, o *Object, p Path, l Location) {
	t.Helper()
	docs, err := manifest.DocumentRoots(mustRead(t, l.File))
	if err != nil {
		t.Fatalf("%s: %v", l.File, err)
	}
	var key, val = Path(nil).Get(nil)
	switch {
	case l.Source == FromKustomization:
		key, val = l.Path.Get(docs[0])
	case l.Block != nil:
		k := &Kustomization{File: l.File, Src: mustRead(t, l.File)}
		_, block := l.BlockPath.Get(docs[l.BlockDoc])
		if block == nil {
			t.Errorf("%s %s: no inline block at %s in doc %d of %s", o.Label(), p, l.BlockPath, l.BlockDoc, l.File)
			return
		}
		inner, exact := inlineDocs(k.Src, block)
		if !exact {
			t.Errorf("%s %s: exact location in an inline block that is not exact", o.Label(), p)
			return
		}
		key, val = l.Path.Get(inner[l.Doc])
	default:
		key, val = l.Path.Get(docs[l.Doc])
	}
	n := key
	if n == nil {
		n = val
	}
	if n == nil {
		t.Errorf("%s %s: %s has no %s in doc %d", o.Label(), p, l.File, l.Path, l.Doc)
		return
	}
	if n.Line != l.Line || n.Column != l.Column {
		t.Errorf("%s %s: %s at %d:%d, the location says %d:%d", o.Label(), p, l.Path, n.Line, n.Column, l.Line, l.Column)
	}
	_, rv := p.Get(o.Node)
	opPath := l.Source == FromJSONPatch && len(l.Path) == 2 && l.Path[1].Key == "path"
	if !contains(rv, val) && l.Source != FromKustomization && !opPath {
		t.Errorf("%s %s: the source value at %s is not the rendered one", o.Label(), p, l.Path)
	}
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it, then review it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update and review the diff):\n--- got\n%s", file, got)
	}
}
