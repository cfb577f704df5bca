package rules

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/refused"
)

var refusedUpdate = Register(&analysis.Rule{
	ID:       "refused-update",
	Severity: analysis.Error,
	Summary:  "The change updates a field the API server refuses to update",
	Doc: `Judged under ` + "`shipshape lint --base REF`" + ` only: each object the change applies is
compared with the same object (group, kind, namespace, name) at the base revision,
rendered by the same application. A change of a field the API server will not update
("field is immutable") fails after merge, however the manifests look on their own:
a Deployment's ` + "`spec.selector`" + ` widened by an overlay's new ` + "`commonLabels`" + `, a
StatefulSet's ` + "`volumeClaimTemplates`" + ` resized, a migration Job's image bumped, a Service's
` + "`clusterIP`" + ` changed, a RoleBinding's ` + "`roleRef`" + `, a PVC's ` + "`spec`" + `, an immutable ConfigMap's data,
a LeaderWorkerSet's ` + "`subGroupPolicy`" + `.

The finding sits at the line of head that made the change (the selector entry, the
overlay's ` + "`commonLabels`" + ` line, the patch), names the base value and where it was
written (short commit, file:line), the server's function whose rule it mirrors
(` + "`ValidateDeploymentUpdate`" + `, ` + "`ValidateStatefulSetUpdate`" + `, ` + "`ValidateJobSpecUpdate`" + `, ...; the
table is in docs/base.md), and what this application's engine does about it:

| Engine | On a refused update |
| --- | --- |
| kubectl, server-side apply | the apply fails (422 Invalid) |
| Argo CD | the sync fails and is retried; only ` + "`syncOptions: [Replace=true, Force=true]`" + ` recreates the object (deleted in the background, created again) |
| Flux | the dry-run fails, the Kustomization and its dependants stall; ` + "`force: true`" + ` recreates the object |
| kapp | the update fails unless the resource asks for ` + "`fallback-on-replace`" + ` or ` + "`always-replace`" + ` |

To make such a change, create the object under a new name (and delete the old one in
a later change), or delete it before the sync if losing it is acceptable. The fix,
offered when the value is a string written in a file (not computed by kustomize),
restores the base value; an entry the change added is removed.

Fields the server fills in are compared after its defaults: a default written out on
one side is no change, and a ` + "`clusterIP`" + ` left out keeps the allocated one.`,
	Bad: `# at the base revision: selector {app: web}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
      tier: front # added by the change
  template:
    metadata:
      labels:
        app: web
        tier: front
    spec:
      containers:
        - name: web
          image: nginx:1.27
`,
	Good: `# at the base revision: selector {app: web}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
        tier: front # a template label may change
    spec:
      containers:
        - name: web
          image: nginx:1.27
`,
	Fixable: true,
	Change:  checkRefusedUpdate,
})

func checkRefusedUpdate(p *analysis.ChangePass) {
	for _, head := range p.Head {
		base := p.BaseOf(head)
		if base == nil || !refused.Checked(head.Resource) {
			continue
		}
		for _, r := range refused.Check(base, head) {
			reportRefusal(p, base, head, r)
		}
	}
}

// reportRefusal reports one refused field at head's node for it (the
// nearest one head has, when the change removed the field).
func reportRefusal(p *analysis.ChangePass, base, head *manifest.Object, r refused.Refusal) {
	n, headAt := nodeAt(head.Node, r.Path)
	baseNode, baseAt := nodeAt(base.Node, r.Path)
	headNode := n
	if headAt < len(r.Path) {
		headNode = nil // the change removed the field: reported at its parent
	}
	if baseAt < len(r.Path) {
		baseNode = nil
	}
	at := p.BaseRevision
	if src := p.BaseSource(base, r.Path); src != "" {
		at += " " + src
	}
	was := shownValue(baseNode) + " (" + at + ")"
	verdict := "the API server refuses the update"
	if r.Stage == refused.ByController {
		verdict = "the update is accepted, then its controller is refused when it applies the change, which never rolls out"
	}
	p.Report(head, n, r.Path.String(), restoreFix(r.Path, headNode, baseNode),
		"%s changes from %s to %s: %s (%s; mirrors %s); %s",
		r.Path, was, shownValue(headNode), verdict, r.Reason, r.Mirrors, engineOnRefusal(p.Applier, r.Stage))
}

// nodeAt walks path from n as far as it goes: the node reached and how
// many elements of path were walked.
func nodeAt(n *yaml.Node, path manifest.FieldPath) (*yaml.Node, int) {
	for i, el := range path {
		var next *yaml.Node
		switch {
		case el.Index < 0:
			next = manifest.MapGet(n, el.Key)
		case n != nil && n.Kind == yaml.SequenceNode && el.Index < len(n.Content):
			next = n.Content[el.Index]
		}
		if next == nil {
			return n, i
		}
		n = next
	}
	return n, len(path)
}

// restoreFix puts the base value back where it is safe: a string the
// base had (written again as a string), or an entry the change added
// (removed). The engine carries it to the file that wrote the value, and
// offers none when kustomize computed it.
func restoreFix(path manifest.FieldPath, headNode, baseNode *yaml.Node) *analysis.Fix {
	if headNode == nil || len(path) == 0 || path[len(path)-1].Index >= 0 {
		return nil
	}
	switch {
	case baseNode == nil:
		return &analysis.Fix{Message: "remove " + path.String() + ", which the change added", Edits: []analysis.Edit{{Op: analysis.Delete, Path: path}}}
	case baseNode.Kind == yaml.ScalarNode && baseNode.Tag == "!!str" && headNode.Kind == yaml.ScalarNode && headNode.Tag == "!!str":
		return &analysis.Fix{Message: fmt.Sprintf("restore the base value %q", baseNode.Value), Edits: []analysis.Edit{analysis.SetEntry(path, baseNode.Value)}}
	}
	return nil
}

// shownValue is a short rendering of a value for a message.
func shownValue(n *yaml.Node) string {
	if n == nil || manifest.IsNull(n) {
		return "absent"
	}
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q", n.Value)
	}
	out, err := yaml.Marshal(flowCopy(n))
	if err != nil {
		return "a " + map[yaml.Kind]string{yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}[n.Kind]
	}
	s := strings.TrimSpace(string(out))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// flowCopy is n written in flow style, without its comments (n itself is
// never modified: every rule reads the same tree).
func flowCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		c.Style = yaml.FlowStyle
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, k := range n.Content {
			c.Content[i] = flowCopy(k)
		}
	}
	return &c
}

// engineOnRefusal says what the application's engine does with the
// refused update.
func engineOnRefusal(ap analysis.Applier, stage refused.Stage) string {
	if stage == refused.ByController {
		return "every engine reports the apply as successful while the change never rolls out"
	}
	from := ""
	if !ap.Known && ap.Engine != analysis.EngineUnknown {
		from = " (the engine named by the configuration; no setting of it found in the repository)"
	}
	switch ap.Engine {
	case analysis.EngineKubectl:
		return "kubectl apply fails (422 Invalid)" + from
	case analysis.EngineArgoCD:
		if ap.Recreate {
			return "Argo CD's sync fails, then Replace=true,Force=true deletes the object (in the background) and creates it again" + from
		}
		return "Argo CD's sync fails and is retried; it recreates the object only with syncOptions Replace=true,Force=true" + from
	case analysis.EngineFlux:
		if ap.Recreate {
			return "Flux's dry-run fails, then force: true deletes the object (in the background) and applies it again at once" + from
		}
		return "Flux's dry-run fails and the Kustomization and its dependants stall; it recreates the object only with force: true" + from
	case analysis.EngineKapp:
		return "kapp's update fails unless the resource asks for fallback-on-replace or always-replace" + from
	}
	return "kubectl and server-side apply fail (422 Invalid), Argo CD's sync fails and is retried, Flux's dry-run fails"
}
