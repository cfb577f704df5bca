package analysis

import "github.com/shipshape-dev/shipshape/internal/english"

// Unrendered says what kind of application a finding reports as not
// rendered: objects a cluster runs that no rule has seen. The summary
// counts them by kind, so that a run never says "no problems" about what
// it did not look at.
type Unrendered int

const (
	// NotUnrendered: the finding is not about an application left
	// unrendered (every finding but those below).
	NotUnrendered Unrendered = iota
	// HelmRelease: a Flux HelmRelease, or an Argo CD Application whose
	// source is a Helm chart.
	HelmRelease
	// HelmCharts: a kustomize root that inflates Helm charts (helmCharts).
	HelmCharts
	// RemoteBase: a kustomize root that lists a remote resource, base or
	// component.
	RemoteBase
	// Function: a kustomize root that runs an exec or container KRM
	// function.
	Function
	// GeneratedApps: an Argo CD ApplicationSet, whose Applications its
	// generators make in the cluster.
	GeneratedApps
	// ToolSource: an Argo CD Application rendered by a tool shipshape does
	// not run (jsonnet, a config management plugin).
	ToolSource
	// OutsideScope: a kustomize root that lists an entry outside the
	// repository (or the paths given).
	OutsideScope
	// OverBudget: a kustomize root whose render would pass its budget.
	OverBudget
	// ChartDependency: a dependency a chart of the repository lists and
	// does not vendor; the chart is rendered without it.
	ChartDependency
	// Substitution: a Flux Kustomization's post-build substitution whose
	// variables come from a ConfigMap or Secret not in the files linted
	// (made in the cluster, or encrypted): what it applies is judged
	// without the substitution.
	Substitution
	// ArgoVariant: an Argo CD Application's kustomize options that name
	// what only the cluster knows (a revision); the root is rendered
	// without them.
	ArgoVariant
)

// Plural names n applications of kind u for the summary line ("2 Helm
// releases").
func (u Unrendered) Plural(n int) string {
	one, many := u.names()
	return english.Count(n, one, many)
}

// Key is u's name in JSON output.
func (u Unrendered) Key() string {
	return [...]string{"", "helmRelease", "helmCharts", "remoteBase", "function", "applicationSet", "toolSource", "outsideScope", "overBudget", "chartDependency", "fluxSubstitution", "argoVariant"}[u]
}

func (u Unrendered) names() (one, many string) {
	switch u {
	case HelmRelease:
		return "Helm release", "Helm releases"
	case HelmCharts:
		return "kustomize root with helmCharts", "kustomize roots with helmCharts"
	case RemoteBase:
		return "remote base", "remote bases"
	case Function:
		return "KRM function", "KRM functions"
	case GeneratedApps:
		return "ApplicationSet", "ApplicationSets"
	case ToolSource:
		return "jsonnet or plugin source", "jsonnet or plugin sources"
	case OutsideScope:
		return "root reading outside the repository", "roots reading outside the repository"
	case OverBudget:
		return "root over its render budget", "roots over their render budget"
	case ChartDependency:
		return "chart dependency not vendored", "chart dependencies not vendored"
	case Substitution:
		return "Flux substitution", "Flux substitutions"
	case ArgoVariant:
		return "Application's kustomize options", "Applications' kustomize options"
	}
	return "application", "applications"
}
