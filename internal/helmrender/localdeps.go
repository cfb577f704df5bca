package helmrender

import (
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// A dependency listed with `repository: file://DIR` needs no network:
// `helm dependency build` (which Argo CD and Flux run before rendering)
// packages DIR, relative to the chart, into charts/. One that is not
// vendored is loaded from DIR instead, when Options.MayLoad allows it (the
// engine's scope), so its objects are judged and no problem is reported.
// As `helm dependency build` does, only the chart's own file://
// dependencies are added: DIR's charts/ is taken as it is.

// localDependency is a chart loaded from a file:// dependency's directory.
type localDependency struct {
	chart *chart.Chart
	dir   string
}

// addLocalDependencies loads c's file:// dependencies that charts/ does not
// hold and adds them to c; dir is c's directory on disk.
func addLocalDependencies(c *chart.Chart, dir string, mayLoad func(dir string) error) []localDependency {
	if mayLoad == nil {
		return nil
	}
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	var added []localDependency
	for _, dep := range c.Metadata.Dependencies {
		if dep == nil || have[dep.Name] || !strings.HasPrefix(dep.Repository, "file://") {
			continue
		}
		p := strings.TrimPrefix(dep.Repository, "file://")
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if mayLoad(p) != nil {
			continue
		}
		sub, err := loader.LoadDir(p)
		if err != nil || sub.Name() != dep.Name || !compatibleRange(dep.Version, sub.Metadata.Version) {
			continue // helm dependency build refuses it: reported as not vendored
		}
		c.AddDependency(sub)
		have[dep.Name] = true
		added = append(added, localDependency{chart: sub, dir: p})
	}
	return added
}
