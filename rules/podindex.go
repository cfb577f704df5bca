package rules

import (
	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/selector"
)

// appOwner is a controller (Deployment/web) of an application.
type appOwner struct {
	app   analysis.AppID
	owner string
}

// podIndex is the pod templates of one namespace, found by label: a
// Service is tried against the few templates that have one of its
// entries, not against every template of the namespace in the
// repository (thousands, in a large one).
type podIndex struct {
	all     []*pods
	app     map[*pods]analysis.AppID // the application of each
	owners  map[appOwner]bool        // application and owner
	byLabel map[[2]string][]*pods    // fixed labels: key, value
	byKey   map[string][]*pods       // labels with a value per pod, or one of a set
}

func newPodIndex() *podIndex {
	return &podIndex{app: map[*pods]analysis.AppID{}, owners: map[appOwner]bool{}, byLabel: map[[2]string][]*pods{}, byKey: map[string][]*pods{}}
}

func (ix *podIndex) add(p *pods, app analysis.AppID) {
	ix.all = append(ix.all, p)
	ix.app[p] = app
	ix.owners[appOwner{app, p.Owner}] = true
	for _, l := range p.Fixed {
		k, v := l.Key, l.Value
		if placeholder(v) {
			ix.byKey[k] = append(ix.byKey[k], p) // any value, see has
		} else {
			ix.byLabel[[2]string{k, v}] = append(ix.byLabel[[2]string{k, v}], p)
		}
	}
	for k := range p.Varying {
		ix.byKey[k] = append(ix.byKey[k], p)
	}
	for k := range p.OneOf {
		ix.byKey[k] = append(ix.byKey[k], p)
	}
}

// anyHas reports whether some template carries k=v.
func (ix *podIndex) anyHas(k, v string) bool {
	if len(ix.byLabel[[2]string{k, v}]) > 0 {
		return true
	}
	for _, t := range ix.byKey[k] {
		if t.has(k, v) {
			return true
		}
	}
	return false
}

// carried reports whether some template carries every entry of sel. A
// template that carries k=v has it fixed, or has k with a value per pod:
// those of the entry with the fewest such templates are tried.
func (ix *podIndex) carried(sel selector.Set, app analysis.AppID) bool {
	var fixed, other []*pods
	first := true
	for k, v := range sel.All() {
		f, o := ix.byLabel[[2]string{k, v}], ix.byKey[k]
		if first || len(f)+len(o) < len(fixed)+len(other) {
			fixed, other, first = f, o, false
		}
	}
	for _, list := range [][]*pods{fixed, other} {
		for _, t := range list {
			if t.carries(sel) && !ix.copyElsewhere(t, app) {
				return true
			}
		}
	}
	return false
}

// copyElsewhere reports whether t is another application's copy of a
// controller app has too (Deployment/web of overlays/dev, for a Service
// of overlays/ha): app is applied with its own copy, which may carry
// other labels.
func (ix *podIndex) copyElsewhere(t *pods, app analysis.AppID) bool {
	return ix.app[t] != app && ix.owners[appOwner{app, t.Owner}]
}

// misspelt reports whether a template carries all of sel but one entry,
// which it carries with a key or a value one typing slip away
// (control-plane=controller-manger): a Service an operator's bundle
// misspelt selects none of the operator's own pods, whatever pods the
// operator makes at run time carry (they do not carry near-misses of its
// labels).
func (ix *podIndex) misspelt(sel selector.Set) bool {
	// Of two entries or more, such a template carries one: it is among
	// those that carry some entry.
	candidates := ix.all
	if len(sel) > 1 {
		candidates = nil
		for k, v := range sel.All() {
			candidates = append(candidates, ix.byLabel[[2]string{k, v}]...)
		}
	}
	for _, t := range candidates {
		if t.lacking(sel) == 1 && t.slipsOnly(sel) {
			return true
		}
	}
	return false
}

// slipsOnly reports whether p's pods carry every entry of sel, or one a
// typing slip away (see nearly), and lack one at least.
func (p *pods) slipsOnly(sel selector.Set) bool {
	slipped := false
	for k, v := range sel.All() {
		if p.has(k, v) {
			continue
		}
		if !p.nearly(k, v) {
			return false
		}
		slipped = true
	}
	return slipped
}

// nearly reports whether p's pods carry k with a value one slip from v,
// or v under a key one slip from k; words shorter than four letters are
// too short to tell a slip from another word.
func (p *pods) nearly(k, v string) bool {
	if have, ok := p.Fixed.Get(k); ok && len(v) >= 4 && oneSlip(have, v) {
		return true
	}
	if len(k) < 4 {
		return false
	}
	for _, l := range p.Fixed {
		if l.Value == v && oneSlip(l.Key, k) {
			return true
		}
	}
	return false
}

// oneSlip reports whether a and b differ by one inserted, deleted or
// replaced byte, or two adjacent bytes swapped.
func oneSlip(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	switch len(b) - len(a) {
	case 0:
		return a[i+1:] == b[i+1:] || i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	case 1:
		return a[i:] == b[i+1:]
	}
	return false
}
