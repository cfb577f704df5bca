package rules

// LeaderWorkerSet rules: names, Services that collide with the controller's,
// recreation that races the old StatefulSets, and (lws_order.go) ordering
// against the objects the pods use.

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/transformers"
)

// lwsVersion parses lws.version ("v0.7.1", "0.8.0", "v0.8.0-rc.1") into
// major, minor, patch.
func lwsVersion(s string) (v [3]int, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if s == "" || len(parts) > 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// before reports whether v is older than major.minor.
func before(v [3]int, major, minor int) bool {
	return v[0] < major || v[0] == major && v[1] < minor
}

// lwsObjectName is how messages name an LWS: "ns/name", or "name".
func lwsObjectName(obj *manifest.Object) string {
	if obj.Namespace == "" {
		return obj.Name
	}
	return obj.Namespace + "/" + obj.Name
}

var lwsInvalidName = Register(&analysis.Rule{
	ID:       "lws-invalid-name",
	Severity: analysis.Error,
	Summary:  "A LeaderWorkerSet's name is not a DNS-1035 label",
	Targets:  analysis.Objects,
	Check: func(p *analysis.Pass) {
		obj := p.Object
		if !isLWS(obj) || obj.Name == "" || strings.Contains(obj.Name, "${") {
			return
		}
		if why := notDNS1035(obj.Name); why != "" {
			p.Report(nameNode(obj), "metadata.name", nil,
				"LeaderWorkerSet name %s is not a DNS-1035 label (%s): the controller names its headless Service after it, and the LWS webhook rejects it",
				manifest.Excerpt(obj.Name), why)
		}
	},
})

// dns1035Chars reports whether s has only lowercase letters, digits and
// '-' (a loop, not a regexp compiled while every run starts).
func dns1035Chars(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// notDNS1035 says why s is not a DNS-1035 label, or "" when it is one.
func notDNS1035(s string) string {
	switch {
	case len(s) > 63:
		return fmt.Sprintf("%d characters, at most 63", len(s))
	case !dns1035Chars(s):
		for _, r := range s {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return fmt.Sprintf("%q is not allowed, only lowercase letters, digits and '-'", r)
			}
		}
	case s[0] < 'a' || s[0] > 'z':
		return "it must start with a lowercase letter"
	case s[len(s)-1] == '-':
		return "it must end with a letter or digit"
	}
	return ""
}

var lwsServiceShadow = Register(&analysis.Rule{
	ID:       "lws-service-shadow",
	Severity: analysis.Warning,
	Summary:  "A Service has the name of the headless Service a LeaderWorkerSet's controller creates",
	Targets:  analysis.Objects,
	Cross:    analysis.Summaries(summarizeShadow, finishShadow),
})

// shadowSummary is an LWS's name and subdomain policy, or a Service's name
// with the finding to report if it shadows one.
type shadowSummary struct {
	NS, Name string
	Lws      bool
	Policy   string
	At       analysis.Locator
}

func summarizeShadow(p *analysis.Pass) (shadowSummary, bool) {
	obj := p.Object
	ns := obj.EffectiveNamespace()
	switch {
	case isLWS(obj) && obj.Name != "":
		policy := manifest.ScalarValue(manifest.Path(obj.Node, "spec", "networkConfig", "subdomainPolicy"))
		return shadowSummary{NS: ns, Name: obj.Name, Lws: true, Policy: policy}, true
	case isService(obj) && obj.Name != "":
		return shadowSummary{NS: ns, Name: obj.Name, At: p.Locate(nameNode(obj), "metadata.name")}, true
	}
	return shadowSummary{}, false
}

// groupIndexSuffix reports whether s is "-" and a group index, as the
// controller suffixes a UniquePerReplica Service name (`^-[0-9]+$`).
func groupIndexSuffix(s string) bool {
	digits, ok := strings.CutPrefix(s, "-")
	if !ok || digits == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

func finishShadow(p *analysis.CrossPass, summaries []shadowSummary) {
	lws := map[string][]shadowSummary{}
	for _, l := range summaries {
		if l.Lws {
			lws[l.NS] = append(lws[l.NS], l)
		}
	}
	for _, s := range summaries {
		if s.Lws {
			continue
		}
		for _, l := range lws[s.NS] {
			var what string
			switch {
			case l.Policy != "UniquePerReplica" && s.Name == l.Name:
				what = fmt.Sprintf("for LeaderWorkerSet %q (subdomainPolicy Shared)", l.Name)
			case l.Policy == "UniquePerReplica" && strings.HasPrefix(s.Name, l.Name) && groupIndexSuffix(s.Name[len(l.Name):]):
				what = fmt.Sprintf("for replica %s of LeaderWorkerSet %q (subdomainPolicy UniquePerReplica)", s.Name[len(l.Name)+1:], l.Name)
			default:
				continue
			}
			f := s.At.Finding()
			f.Message = fmt.Sprintf("Service %q has the name of the headless Service the LWS controller creates %s: the controller uses this one instead, so the pods lose their DNS names unless it is headless and selects them all, and it is not deleted with the LWS; rename it", s.Name, what)
			p.Report(f)
			break
		}
	}
}

var lwsUnsafeRecreate = Register(&analysis.Rule{
	ID:       "lws-unsafe-recreate",
	Severity: analysis.Warning,
	Summary:  "A LeaderWorkerSet is recreated by a GitOps tool while its old StatefulSets still exist",
	Targets:  analysis.Objects,
	Settings: []analysis.Setting{{
		Name:    "lws.version",
		Default: "unset (any release)",
		Doc:     "the LeaderWorkerSet release that runs (v0.8.1): the message says what that release does on a recreate (kubernetes-sigs/lws#732) and how to recreate it safely",
	}},
	Check: checkUnsafeRecreate,
})

func checkUnsafeRecreate(p *analysis.Pass) {
	obj := p.Object
	if !isLWS(obj) {
		return
	}
	ann := manifest.Path(obj.Node, "metadata", "annotations")
	name := lwsObjectName(obj)
	at := func(key string) (*yaml.Node, string) {
		_, v := manifest.MapEntry(ann, key)
		return v, manifest.FieldPath{}.Key("metadata").Key("annotations").Key(key).String()
	}
	var opts []string
	if v, _ := at(transformers.ArgoSyncOptions); v != nil {
		for _, o := range strings.Split(v.Value, ",") {
			opts = append(opts, strings.TrimSpace(o))
		}
	}
	has := func(o string) bool {
		for _, x := range opts {
			if x == o {
				return true
			}
		}
		return false
	}
	switch {
	case has("Force=true") && has("Replace=true"):
		n, path := at(transformers.ArgoSyncOptions)
		recreateFinding(p, n, path, "Force=true,Replace=true", "sync-options Force=true,Replace=true make Argo CD delete LeaderWorkerSet %q in the background and create it again at once, while its old StatefulSets still exist", name)
	case has("Force=true"):
		n, path := at(transformers.ArgoSyncOptions)
		p.Report(n, path, nil,
			"sync-options Force=true without Replace=true never recreates LeaderWorkerSet %q: Argo CD falls back to delete and create only when the API answers 422 Invalid, and the LWS webhook answers 403; to recreate it, %s", name, safeRecreate(p.Config.LWS.Version))
	}
	if v, path := at(transformers.FluxForce); v != nil && strings.EqualFold(v.Value, "enabled") {
		recreateFinding(p, v, path, "the annotation", "kustomize.toolkit.fluxcd.io/force: enabled makes Flux delete LeaderWorkerSet %q in the background and apply it again at once, while its old StatefulSets still exist (Flux does not even wait for the LWS)", name)
	}
	if v, path := at(transformers.KappUpdateStrategy); v != nil {
		switch v.Value {
		case "always-replace":
			recreateFinding(p, v, path, "the annotation", "kapp.k14s.io/update-strategy: always-replace makes kapp delete LeaderWorkerSet %q in the background and create it again at once, while its old StatefulSets still exist", name)
		case "fallback-on-replace":
			p.Report(v, path, nil,
				"kapp.k14s.io/update-strategy: fallback-on-replace never recreates LeaderWorkerSet %q: kapp replaces only when the API answers an update with 422 Invalid, and the LWS webhook answers 403; to recreate it, %s", name, safeRecreate(p.Config.LWS.Version))
		}
	}
}

// recreateFinding reports a recreate that races the old StatefulSets, with what the
// configured LWS version means for it and the safe manual path.
func recreateFinding(p *analysis.Pass, n *yaml.Node, path, what, format string, args ...any) {
	version := p.Config.LWS.Version
	msg := fmt.Sprintf(format, args...) + ": " + lws732Window(version)
	msg += "; remove " + what + " and recreate the LWS by hand when needed: " + safeRecreate(version)
	p.Report(n, path, nil, "%s", msg)
}

// lws732Window says what the LWS controller does when a new LWS meets the
// old leader StatefulSet still terminating (kubernetes-sigs/lws#732), for
// the configured LWS version: the old-pods window of a background recreate.
// lws-unsafe-recreate and change-recreates say it alike.
func lws732Window(version string) string {
	v, known := lwsVersion(version)
	switch {
	case !known:
		return "the controller may build the new LWS's ControllerRevision from the terminating leader StatefulSet (kubernetes-sigs/lws#732; fixed in v0.8.0 except for a window that background deletion leaves, wide open below it: set lws.version)"
	case before(v, 0, 8):
		return fmt.Sprintf("LWS %s builds the new LWS's ControllerRevision from the terminating leader StatefulSet (kubernetes-sigs/lws#732, fixed in v0.8.0)", version)
	}
	return fmt.Sprintf("LWS %s waits while the old leader StatefulSet terminates (kubernetes-sigs/lws#732), but background deletion still leaves a window", version)
}

func safeRecreate(version string) string {
	if v, ok := lwsVersion(version); ok && before(v, 0, 7) {
		return fmt.Sprintf("LWS %s does not support foreground deletion (v0.7.0 does): delete the LWS, wait until its StatefulSets are gone, then apply it", version)
	}
	return "kubectl replace --force --cascade=foreground -f FILE (LWS >= v0.7.0), which waits until the StatefulSets are gone"
}
