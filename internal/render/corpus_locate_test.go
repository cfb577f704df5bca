package render

import (
	"context"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/corpus"
)

// TestCorpusLocate locates, for every object of every corpus root that
// renders, its name, namespace, labels, selector, template labels,
// replicas and container images: nothing may panic, every exact location
// must lead back to the rendered value (checkLocation), the locations
// from derived origins must equal those from kustomize's own (Trace), and
// the sources found are tallied in the log. Under -race it samples every
// corpus.Stride()-th root.
func TestCorpusLocate(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: it builds every corpus root twice (about two minutes on 2 shared cores)")
	}
	dir := corpus.KustomizeDir(t)
	tally := map[string]int{}
	disagree := 0
	for _, tree := range corpusTrees(t, dir) {
		g, err := Discover([]string{tree})
		if err != nil {
			t.Fatal(err)
		}
		var roots []*Kustomization
		for i, r := range g.Roots {
			if i%corpus.Stride() == 0 {
				roots = append(roots, r)
			}
		}
		r := NewRenderer(g)
		results := r.RenderAll(context.Background(), roots)
		// Derived origins first, then kustomize's own (Trace): the
		// locations must agree.
		type query struct {
			res *Result
			o   *Object
			p   Path
			l   Location
		}
		var qs []query
		for _, res := range results {
			if res.Problem != nil {
				continue
			}
			for _, o := range res.Objects {
				for _, p := range fieldsToLocate(o) {
					l := r.Locate(res, o, p)
					key := l.Source.String()
					if l.Exact {
						key += " exact"
						checkLocation(t, r, o, p, l)
					}
					tally[key]++
					qs = append(qs, query{res, o, p, l})
				}
			}
		}
		r.TraceAll(context.Background(), results)
		for _, q := range qs {
			l := r.Locate(q.res, q.o, q.p)
			if l.Source != q.l.Source || l.File != q.l.File || l.Line != q.l.Line || l.Column != q.l.Column || l.Exact != q.l.Exact {
				disagree++
				if disagree <= 10 {
					t.Errorf("%s %s %s: derived %v, kustomize's origins give %v", q.res.Root.Dir, q.o.Label(), q.p, q.l, l)
				}
			}
		}
	}
	if disagree > 0 {
		t.Errorf("%d locations differ between derived and traced origins", disagree)
	}
	var keys []string
	for k, n := range tally {
		keys = append(keys, k+": "+itoa(n))
	}
	sort.Strings(keys)
	t.Logf("locations: %s", strings.Join(keys, ", "))
	for _, want := range []string{"base exact", "kustomization exact", "patch exact"} {
		if tally[want] == 0 {
			t.Errorf("no %q location over the corpus", want)
		}
	}
}

func itoa(n int) string {
	b, _ := yaml.Marshal(n)
	return strings.TrimSpace(string(b))
}

// fieldsToLocate lists the paths of o a rule is likely to point at.
func fieldsToLocate(o *Object) []Path {
	ps := []Path{MustParsePath("metadata.name")}
	if o.Namespace != "" {
		ps = append(ps, MustParsePath("metadata.namespace"))
	}
	keysOf := func(prefix string) {
		p := MustParsePath(prefix)
		if _, m := p.Get(o.Node); m != nil && m.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(m.Content); i += 2 {
				ps = append(ps, p.Key(m.Content[i].Value))
			}
		}
	}
	keysOf("metadata.labels")
	keysOf("spec.selector.matchLabels")
	keysOf("spec.template.metadata.labels")
	if _, v := MustParsePath("spec.replicas").Get(o.Node); v != nil {
		ps = append(ps, MustParsePath("spec.replicas"))
	}
	cs := MustParsePath("spec.template.spec.containers")
	if _, v := cs.Get(o.Node); v != nil && v.Kind == yaml.SequenceNode {
		for i := range v.Content {
			ps = append(ps, cs.Idx(i).Key("image"))
		}
	}
	return ps
}
