package rules

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

var backendNoService = Register(&analysis.Rule{
	ID:       "backend-no-service",
	Severity: analysis.Warning,
	Summary:  "An Ingress or Gateway API route sends traffic to a Service, or a Service port, that does not exist",
	Targets:  analysis.Objects,
	Cross:    analysis.Summaries(summarizeBackends, finishBackends),
	Scope:    analysis.Repository,
})

// backendSummary is a route's backends or a Service's ports.
type backendSummary struct {
	NS       string
	Backends []backendRef
	Svc      *serviceReferent
}

// serviceReferent is what a backend may name of a Service.
type serviceReferent struct {
	Name         string
	ExternalName bool
	Ports        []string // numbers and names, as written
	Unreadable   bool     // a port that is not a plain scalar
}

// backendRef is one backend of a route.
type backendRef struct {
	NS, Name, Port string
	Route          string // Ingress/web
	NameAt, PortAt analysis.Locator
	PortAbsent     bool
}

func summarizeBackends(p *analysis.Pass) (backendSummary, bool) {
	obj := p.Object
	s := backendSummary{NS: obj.EffectiveNamespace()}
	switch {
	case isService(obj):
		spec := manifest.MapGet(obj.Node, "spec")
		r := &serviceReferent{Name: obj.Name, ExternalName: isExternalName(spec)}
		for _, port := range items(manifest.MapGet(spec, "ports")) {
			for _, k := range []string{"port", "name"} {
				if n := manifest.MapGet(port, k); n != nil {
					r.Unreadable = r.Unreadable || n.Kind != yaml.ScalarNode || placeholder(n.Value)
					r.Ports = append(r.Ports, n.Value)
				}
			}
		}
		s.Svc = r
		return s, true
	case obj.Kind == "Ingress" && (obj.Group() == "networking.k8s.io" || obj.Group() == "extensions"):
		s.Backends = ingressBackends(p)
		return s, len(s.Backends) > 0
	case (obj.Kind == "HTTPRoute" || obj.Kind == "GRPCRoute") && obj.Group() == "gateway.networking.k8s.io":
		s.Backends = routeBackends(p)
		return s, len(s.Backends) > 0
	}
	return s, false
}

// ingressBackends reads the Service backends of an Ingress, of the v1 API
// (service.name, service.port.number|name) or the beta ones (serviceName,
// servicePort).
func ingressBackends(p *analysis.Pass) []backendRef {
	obj := p.Object
	spec := manifest.MapGet(obj.Node, "spec")
	var out []backendRef
	add := func(b *yaml.Node) {
		var name, port *yaml.Node
		if svc := manifest.MapGet(b, "service"); svc != nil {
			name = manifest.MapGet(svc, "name")
			pm := manifest.MapGet(svc, "port")
			if port = manifest.MapGet(pm, "number"); port == nil {
				port = manifest.MapGet(pm, "name")
			}
		} else {
			name, port = manifest.MapGet(b, "serviceName"), manifest.MapGet(b, "servicePort")
		}
		if ref, ok := newBackendRef(p, obj.EffectiveNamespace(), name, port); ok {
			out = append(out, ref)
		}
	}
	for _, k := range []string{"defaultBackend", "backend"} {
		if b := manifest.MapGet(spec, k); b != nil {
			add(b)
		}
	}
	for _, rule := range items(manifest.MapGet(spec, "rules")) {
		for _, path := range items(manifest.Path(rule, "http", "paths")) {
			add(manifest.MapGet(path, "backend"))
		}
	}
	return out
}

// routeBackends reads the Service backendRefs of an HTTPRoute or GRPCRoute.
func routeBackends(p *analysis.Pass) []backendRef {
	obj := p.Object
	var out []backendRef
	for _, rule := range items(manifest.Path(obj.Node, "spec", "rules")) {
		for _, ref := range items(manifest.MapGet(rule, "backendRefs")) {
			group, kind := manifest.MapGet(ref, "group"), manifest.MapGet(ref, "kind")
			if group != nil && group.Value != "" || kind != nil && kind.Value != "Service" {
				continue // not a Service
			}
			ns := obj.EffectiveNamespace()
			if n := manifest.ScalarValue(manifest.MapGet(ref, "namespace")); n != "" {
				ns = n
			}
			if b, ok := newBackendRef(p, ns, manifest.MapGet(ref, "name"), manifest.MapGet(ref, "port")); ok {
				out = append(out, b)
			}
		}
	}
	return out
}

func newBackendRef(p *analysis.Pass, ns string, name, port *yaml.Node) (backendRef, bool) {
	if name == nil || name.Kind != yaml.ScalarNode || name.Value == "" || placeholder(name.Value) {
		return backendRef{}, false
	}
	path, _, _ := manifest.PathTo(p.Object.Node, name)
	b := backendRef{NS: ns, Name: name.Value, Route: p.Object.Kind + "/" + p.Object.Name, NameAt: p.Locate(name, path.String())}
	if port == nil || port.Kind != yaml.ScalarNode || placeholder(port.Value) {
		b.PortAbsent = true
		return b, true
	}
	pp, _, _ := manifest.PathTo(p.Object.Node, port)
	b.Port, b.PortAt = port.Value, p.Locate(port, pp.String())
	return b, true
}

func finishBackends(p *analysis.CrossPass, summaries []backendSummary) {
	services := map[nsName][]*serviceReferent{} // namespace, name
	own := map[appNS][]string{}                 // the Services of an application in a namespace
	for i, s := range summaries {
		if s.Svc != nil {
			app := p.Application(i)
			services[nsName{s.NS, s.Svc.Name}] = append(services[nsName{s.NS, s.Svc.Name}], s.Svc)
			own[appNS{app, s.NS}] = append(own[appNS{app, s.NS}], s.Svc.Name)
		}
	}
	for i, s := range summaries {
		app := p.Application(i)
		if len(s.Backends) == 0 || p.Unread(app) {
			continue
		}
		for _, b := range s.Backends {
			if f, ok := judgeBackend(b, services[nsName{b.NS, b.Name}], own[appNS{app, b.NS}]); ok {
				p.Report(f)
			}
		}
	}
}

// judgeBackend returns the finding for b, given the Services of its name
// in its namespace and those of the route's application there (own).
func judgeBackend(b backendRef, svcs []*serviceReferent, own []string) (analysis.Finding, bool) {
	if len(svcs) == 0 {
		// A Service of another install (a Helm release, the cluster's
		// dashboard) may have any name: only one the application evidently
		// meant is a mistake.
		meant := meantService(b.Name, own)
		if meant == "" {
			return analysis.Finding{}, false
		}
		f := b.NameAt.Finding()
		f.Message = fmt.Sprintf("%s sends traffic to Service %q, which is not in namespace %s, so the route serves nothing (503); its application has Service %q there", b.Route, b.Name, b.NS, meant)
		return f, true
	}
	if b.PortAbsent {
		return analysis.Finding{}, false
	}
	var ports []string
	for _, svc := range svcs {
		if svc.ExternalName || svc.Unreadable || slices.Contains(svc.Ports, b.Port) {
			return analysis.Finding{}, false
		}
		ports = append(ports, svc.Ports...)
	}
	slices.Sort(ports)
	ports = slices.Compact(ports)
	f := b.PortAt.Finding()
	have := "no ports"
	if len(ports) > 0 {
		have = "only " + strings.Join(ports, ", ")
	}
	f.Message = fmt.Sprintf("%s sends traffic to port %s of Service %q in namespace %s, which has %s, so the route serves nothing (503)", b.Route, b.Port, b.Name, b.NS, have)
	return f, true
}

// meantService returns the Service of own that name was evidently meant
// for: one typing slip away, or name behind a prefix joined by a dash (a
// kustomize namePrefix, which kustomize does not
// carry to a Gateway API backendRef: kubernetes-sigs/kustomize#5208 was
// closed unmerged), or "".
func meantService(name string, own []string) string {
	for _, svc := range own {
		if len(name) >= 4 && oneSlip(svc, name) || strings.HasSuffix(svc, "-"+name) {
			return svc
		}
	}
	return ""
}
