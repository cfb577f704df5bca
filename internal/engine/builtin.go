package engine

import (
	"sort"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

// Rules the engine itself reports about inputs it cannot lint. They have
// no Check; they are rules so that they can be listed, documented,
// configured and disabled like any other rule.
const (
	SyntaxID        = "yaml-syntax"
	TemplateID      = "template-skipped"
	InputErrorID    = "read-error"
	InternalErrorID = "internal-error"
)

var builtin = []*analysis.Rule{
	{
		ID:       SyntaxID,
		Severity: analysis.Error,
		Summary:  "The file is not valid YAML",
		Docs: analysis.StaticDocs(analysis.Documentation{
			Doc: `The YAML parser stopped at this position. kubectl, kustomize and every GitOps
tool will refuse the file too. The other documents of the file are still linted:
shipshape re-reads the file document by document after an error.`,
			Bad:  "metadata:\n  name: web\n  labels: {app: web\n",
			Good: "metadata:\n  name: web\n  labels: {app: web}\n",
		}),
	},
	{
		ID:       TemplateID,
		Severity: analysis.Info,
		Summary:  "A Helm or ytt template was skipped",
		Docs: analysis.StaticDocs(analysis.Documentation{
			Doc: `Go templates (Helm) and ytt templates are not the YAML they render to, and
shipshape does not guess what they render to. A file is a Go template when ` + "`{{`" + `
opens YAML structure (` + "`name: {{ .Name }}`" + `, a key), when it has ` + "`{{`" + ` and does not
parse as YAML (unless it does not parse either with each ` + "`{{ }}`" + ` inside a line's text made
plain text: then it is broken YAML, a ` + "`yaml-syntax`" + ` error), or when it sits in a Helm chart's ` + "`templates/`" + ` directory (beside a
Chart.yaml) with ` + "`{{`" + ` in a plain value. A valid manifest whose ` + "`{{`" + ` are all inside
string values or comments is linted: the injection templates of istio's and
knative's release bundles, the ` + "`{{ $labels.pod }}`" + ` of kube-prometheus's alerting
rules. A file with ytt's ` + "`#@`" + ` annotations is a ytt template, and one that does not parse
as YAML and holds Jinja's ` + "`{% %}`" + ` (documentation snippets, Ansible) a Jinja template. A kustomize root one of
whose kustomizations sets template markers (` + "`namespace: \"{{ .Release.Namespace }}\"`" + `,
commonLabels) renders the source of a chart another tool makes: it gets this finding
at the marker, is not rendered, and the files only it reads are not judged. Lint the rendered
output instead: ` + "`helm template . | shipshape lint -`" + `,
` + "`ytt -f . | shipshape lint -`" + `.`,
			Bad:  "metadata:\n  name: {{ .Release.Name }}\n",
			Good: "# rendered: helm template . | shipshape lint -\nmetadata:\n  name: web\n",
		}),
	},
	{
		ID:       RenderSkippedID,
		Severity: analysis.Warning,
		Summary:  "A kustomize root is not rendered: it needs the network or a process",
		Docs: analysis.StaticDocs(analysis.Documentation{
			Doc: `shipshape renders every kustomize root in-process and judges the objects it
makes, but it never reaches out: a root whose kustomizations list a remote
resource, base or component (` + "`https://…`" + `, ` + "`github.com/…?ref=`" + `), Helm charts
that kustomize would pull (a ` + "`helmCharts`" + ` entry with ` + "`repo:`" + ` whose chart is not
under its chart home; local charts are rendered in-process), or exec and container
KRM functions is not rendered, nor is a
kustomization that Rancher Fleet applies over a Helm chart (a fleet.yaml that sets
` + "`helm`" + ` and names its directory as ` + "`kustomize.dir`" + `). The finding points at the entry
that needs them; the root's local files are then judged as written, as plain
manifests, but for the kustomizations it lists that build on their own, which are
rendered as roots of their own. Render such a root where the network is allowed
and lint the output (` + "`kustomize build --enable-helm DIR | shipshape lint -`" + `).`,
			Bad:  "resources:\n  - https://github.com/example/app//deploy?ref=v1.0.0\n",
			Good: "resources:\n  - ../base\n",
		}),
	},
	{
		ID:       RenderErrorID,
		Severity: analysis.Error,
		Summary:  "kustomize cannot build a root",
		Docs: analysis.StaticDocs(analysis.Documentation{
			Doc: `kustomize failed on this root (a file it lists is missing, a patch matches
nothing, a field is unknown): Argo CD, Flux and ` + "`kubectl apply -k`" + ` fail on it too. The
message is kustomize's own. The root's local files are judged as written, as
plain manifests, but for the kustomizations it lists that build on their own (an
operator's config/default, listed by a config/manifests that lists a file ` + "`make bundle`" + `
writes), which are rendered as roots of their own. shipshape renders as ` + "`kustomize build`" + ` does by default, with the load
restrictor ` + "`LoadRestrictionsRootOnly`" + `: a file outside the root's directory is refused.
Flux builds with ` + "`LoadRestrictionsNone`" + `; set ` + "`loadRestrictor: LoadRestrictionsNone`" + ` in
.shipshape.yaml to render so.`,
			Bad:  "resources:\n  - deployment.yaml # the file does not exist\n",
			Good: "resources:\n  - web.yaml\n",
		}),
	},
	{
		ID:       RenderBudgetID,
		Severity: analysis.Error,
		Summary:  "A kustomize root is not rendered: it would pass the render budget",
		Docs: analysis.StaticDocs(analysis.Documentation{
			Doc: `kustomize's library, which shipshape renders with in-process, bounds neither
its time nor its memory, and cannot be stopped: an alias bomb of 600 bytes makes it
copy a billion nodes, a mapping of a million keys keeps it busy for hours (its time
grows with the square of a mapping's keys), a 60 MB file takes 9 GB. So each root has
a budget (60 s and 4 GiB by default; ` + "`--render-time`" + `, ` + "`--render-memory`" + `, or
` + "`renderBudget: {time: 60s, memory: 4Gi}`" + ` in .shipshape.yaml). A root is not
rendered when a file it reads holds an alias that expands past the guard kubectl's
decoder applies (kubectl refuses it: "document contains excessive aliasing") or one
inside the node it names (at that alias), when its files predict more time than the
budget (at the widest mapping) or more memory (at the largest file), or when it is
still rendering when its time is up (at its kustomization; the build is abandoned).
The root's local files are then judged as written. The message says which budget
was met and how to raise it.`,
			Bad:  "data:\n  a: &a [x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n  # ... eight more levels: 10^9 nodes\n",
			Good: "data:\n  a: x\n",
		}),
	},
	{
		ID:       BaseNotRenderedID,
		Severity: analysis.Info,
		Summary:  "Under lint --base, a changed kustomize root does not render at the base revision: its change is not judged",
		Docs: analysis.StaticDocs(analysis.Documentation{
			Doc: `` + "`lint --base REF`" + ` renders each kustomize root the change touches again at REF and
compares its objects with head's. When the root does not render at REF (kustomize
failed there, or it listed a remote base then), what the cluster holds is not known,
so the change rules do not judge this root rather than take every object as new.
The finding, at the root's kustomization, says why the base did not render. Head is
judged as usual.`,
			Bad:  "# at the base revision\nresources:\n  - deployment.yaml # missing at the base\n",
			Good: "# at the base revision\nresources:\n  - web.yaml\n",
		}),
	},
	{
		ID:       InputErrorID,
		Severity: analysis.Error,
		Summary:  "A file could not be read",
		Docs: analysis.StaticDocs(analysis.Documentation{
			Doc: `The file could not be read (permissions, size limit, not a regular file, or it
vanished during the run). Other files are still linted.`,
		}),
	},
	{
		ID:       InternalErrorID,
		Severity: analysis.Error,
		Summary:  "shipshape failed on this file",
		Docs: analysis.StaticDocs(analysis.Documentation{
			Doc: `shipshape hit a bug while processing this file. The file was not fixed and
may not be fully linted; the other files of the run were processed normally.
Please report it with the file (or a reduced version of it).`,
		}),
	},
}

// WithBuiltin returns rs and the engine's own rules, sorted by ID: the
// list `shipshape rules`, the docs and the SARIF metadata show.
func WithBuiltin(rs []*analysis.Rule) []*analysis.Rule {
	out := append(append([]*analysis.Rule(nil), builtin...), rs...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
