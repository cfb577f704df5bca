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
	Fixable:  true,
	Targets:  analysis.Changes,
	Change:   checkRefusedUpdate,
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
	n, headAt := walkPath(head.Node, r.Path)
	baseNode, baseAt := walkPath(base.Node, r.Path)
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
