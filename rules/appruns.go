package rules

import "github.com/shipshape-dev/shipshape/internal/analysis"

// eachApplication calls each for every application of a Repository
// rule's n summaries, in the order Finish gets them (see analysis.Cross:
// grouped by application, in the order of their first summaries), with
// the bounds of its run [lo, hi). A rule that judges applications one at
// a time then keeps no map of every application's summaries: over a
// large tree that map was most of Finish's own memory.
func eachApplication(p *analysis.CrossPass, n int, each func(app analysis.AppID, lo, hi int)) {
	for lo := 0; lo < n; {
		app := p.Application(lo)
		hi := lo + 1
		for hi < n && p.Application(hi) == app {
			hi++
		}
		each(app, lo, hi)
		lo = hi
	}
}
