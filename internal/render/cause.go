package render

import (
	"fmt"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

// kustomize's errors wrap the cause in the path it took to get there
// ("accumulating resources: accumulation err='accumulating resources from
// '../base': ...': recursed accumulation of path ...: lstat ...: no such
// file or directory"), four levels deep on real trees. Each pattern below
// finds one cause in that chain and says it in a few words.
var (
	missingPath  = lazyregexp.New(`lstat (\S+?): no such file or directory`)
	unmarshal    = lazyregexp.New(`cannot unmarshal (\w+) into Go struct field [A-Za-z]+\.(\S+) of type (\S+)`)
	patchOp      = lazyregexp.New(`(\w+) operation does not apply: doc is missing (?:path|key): "?([^"\s:]*)`)
	noMatch      = lazyregexp.New(`no (?:resource matches strategic merge patch|matches for Id) "?([^"\s;:]+)`)
	cycle        = lazyregexp.New(`cycle detected: [^:;'"]+'[^']*'[^:;'"]+'[^']*'`)
	unmappedVarC = lazyregexp.New(`var '\{(\S+) [^']*' cannot be mapped to a field in the set of known resources`)
	unsupported  = lazyregexp.New(`json: unsupported value: \S+`)
)

// causeOf is p in one line that leads with its cause: the kustomization
// entry it stopped at, as written, with its line, and what is wrong with
// it ("resources entry `../crds` (line 7): no such file or directory").
// The entry is left out when p is not at one (a field kustomize could not
// decode, a var), the cause when no pattern knows the message: then the
// end of kustomize's chain stands in for it. Paths stay absolute, as in
// p.Message, for the caller to show relative.
func causeOf(root *Kustomization, p *Problem) string {
	entry := ""
	if ref := refAt(root, p); ref != nil {
		entry = fmt.Sprintf("%s entry `%s` (line %d): ", ref.Field, ref.Value, ref.Node.Line)
		if m := missingPath.FindStringSubmatch(p.Message); m != nil && ref.Path != "" && m[1] != ref.Path {
			return entry + m[1] + ": no such file or directory"
		}
	}
	return entry + reasonOf(p.Message)
}

// reasonOf is what is wrong, from the innermost part of kustomize's chain.
func reasonOf(msg string) string {
	switch {
	case strings.Contains(msg, outsideRoot):
		// The load restrictor refused it: say who does so (Problem.Hint
		// has it at length).
		return "outside the root's directory, which kustomize build and Argo CD refuse"
	case missingPath.MatchString(msg):
		return "no such file or directory"
	case strings.Contains(msg, "unable to parse SM or JSON patch"):
		return "kustomize cannot parse it as a strategic-merge or JSON patch"
	}
	if m := unmarshal.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s is a %s, kustomize wants a %s", m[2], m[1], m[3])
	}
	if m := patchOp.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("the patch's %s operation needs %s, which the object lacks", m[1], m[2])
	}
	if m := noMatch.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("the patch matches no object (%s)", m[1])
	}
	if m := unmappedVarC.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("var %s matches no field of the objects", m[1])
	}
	for _, re := range []*lazyregexp.Regexp{cycle, unsupported} {
		if s := re.FindString(msg); s != "" {
			return s
		}
	}
	return chainEnd(msg)
}

// chainEnd is the last links of kustomize's chain, ": "-separated, at
// least a few words long: the innermost error, without the path to it.
func chainEnd(msg string) string {
	const enough = 40
	parts := strings.Split(msg, ": ")
	end := parts[len(parts)-1]
	for i := len(parts) - 2; i >= 0 && len(end) < enough; i-- {
		end = parts[i] + ": " + end
	}
	return end
}

// refAt is the entry of a kustomization root reaches that p is placed
// at; nil when p is at none.
func refAt(root *Kustomization, p *Problem) *Ref {
	var at *Ref
	walkGraph(root, func(k *Kustomization) {
		if at != nil || k.File != p.File {
			return
		}
		for _, r := range k.Refs {
			if r.Node != nil && r.Node.Line == p.Line && r.Node.Column == p.Column {
				at = r
				return
			}
		}
	})
	return at
}
