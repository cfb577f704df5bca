package rules

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

var daemonSetReplicas = Register(&analysis.Rule{
	ID:       "daemonset-replicas",
	Severity: analysis.Error,
	Summary:  "A DaemonSet sets spec.replicas",
	Targets:  analysis.Objects | analysis.Patches,
	Fixable:  true,
	// A patch whose own kind is DaemonSet is judged too: where its root
	// renders, the rendered DaemonSet is (patches are only read as
	// sources there); where it does not (a remote base), the patch is all
	// there is to judge, and the field is wrong whatever it patches.
	Check: func(p *analysis.Pass) {
		if !isDaemonSet(p.Object) {
			return
		}
		spec := manifest.MapGet(p.Object.Node, "spec")
		if k, _ := manifest.MapEntry(spec, "replicas"); k != nil {
			p.Report(k, "spec.replicas", p.Delete(k),
				"DaemonSet has no spec.replicas (it runs one pod per eligible node); kubectl rejects the field: remove it")
		}
	},
})

var daemonSetDeploymentField = Register(&analysis.Rule{
	ID:       "daemonset-deployment-field",
	Severity: analysis.Error,
	Summary:  "A DaemonSet has Deployment-only fields (strategy, progressDeadlineSeconds, paused)",
	Targets:  analysis.Objects | analysis.Patches,
	Fixable:  true,
	// A patch whose own kind is DaemonSet too: see daemonset-replicas.
	Check: func(p *analysis.Pass) {
		if !isDaemonSet(p.Object) {
			return
		}
		spec := manifest.MapGet(p.Object.Node, "spec")
		for _, name := range []string{"progressDeadlineSeconds", "paused"} {
			if k, _ := manifest.MapEntry(spec, name); k != nil {
				p.Report(k, "spec."+name, p.Delete(k),
					"DaemonSet has no spec.%s (a Deployment-only field); kubectl rejects it: remove it", name)
			}
		}
		if k, v := manifest.MapEntry(spec, "strategy"); k != nil {
			fix, why := strategyFix(p, spec, k, v)
			msg := "DaemonSet has no spec.strategy (Deployment-only); the DaemonSet field is spec.updateStrategy"
			if why != "" {
				msg += ": " + why
			}
			p.Report(k, "spec.strategy", fix, "%s", msg)
		}
	},
})

var daemonSetMaxSurge = Register(&analysis.Rule{
	ID:       "daemonset-max-surge",
	Severity: analysis.Error,
	Summary:  "A DaemonSet's rolling update sets maxSurge beside a non-zero maxUnavailable",
	Targets:  analysis.Objects,
	Fixable:  true,
	Check: func(p *analysis.Pass) {
		if !isDaemonSet(p.Object) {
			return
		}
		if surge, unavailable := surgeRejected(manifest.Path(p.Object.Node, "spec", "updateStrategy", "rollingUpdate")); surge != nil {
			p.Report(surge, "spec.updateStrategy.rollingUpdate.maxSurge", p.Delete(surge),
				"DaemonSet takes a non-zero maxSurge only with maxUnavailable 0 (%s); the API server rejects the object: remove maxSurge", unavailable)
		}
	},
})

// strategyFix turns a Deployment strategy into the DaemonSet equivalent
// where there is one; otherwise it says why not.
func strategyFix(p *analysis.Pass, spec, key, val *yaml.Node) (*analysis.Fix, string) {
	if val.Kind == yaml.MappingNode && len(val.Content) == 0 || manifest.IsNull(val) {
		return p.Delete(key), "remove the empty strategy"
	}
	if val.Kind != yaml.MappingNode {
		return nil, "not fixable: strategy is not a mapping"
	}
	if k, _ := manifest.MapEntry(spec, "updateStrategy"); k != nil {
		return nil, "not fixable: spec.updateStrategy is also set; merge them by hand"
	}
	switch t := manifest.ScalarValue(manifest.MapGet(val, "type")); t {
	case "", "RollingUpdate":
		for i := 0; i+1 < len(val.Content); i += 2 {
			if k := val.Content[i].Value; k != "type" && k != "rollingUpdate" {
				return nil, "not fixable: strategy has a field DaemonSets lack (" + k + ")"
			}
		}
		fix := p.Rename(key, "updateStrategy", "rename strategy to updateStrategy")
		if surge, unavailable := surgeRejected(manifest.MapGet(val, "rollingUpdate")); surge != nil {
			drop := p.Delete(surge)
			if fix == nil || drop == nil {
				return nil, "not fixable: maxSurge is set beside a non-zero maxUnavailable, which a DaemonSet rejects"
			}
			fix.Message += " without maxSurge"
			fix.Edits = append(fix.Edits, drop.Edits...)
			return fix, "rename it to updateStrategy and remove maxSurge (a DaemonSet takes a non-zero maxSurge only with maxUnavailable 0; " + unavailable + ")"
		}
		return fix, "rename it to updateStrategy"
	case "Recreate":
		return nil, "not fixable: type Recreate has no DaemonSet equivalent (use RollingUpdate or OnDelete in updateStrategy)"
	default:
		return nil, "not fixable: unknown strategy type " + t
	}
}

// surgeRejected is the maxSurge key of a DaemonSet's rollingUpdate that
// the API server rejects: non-zero beside a maxUnavailable that is not 0
// (an absent one defaults to 1), and what that maxUnavailable is; nil when
// there is none.
func surgeRejected(rollingUpdate *yaml.Node) (*yaml.Node, string) {
	surge, v := manifest.MapEntry(rollingUpdate, "maxSurge")
	if surge == nil || zeroIntOrPercent(v) {
		return nil, ""
	}
	_, u := manifest.MapEntry(rollingUpdate, "maxUnavailable")
	switch {
	case u == nil || manifest.IsNull(u):
		return surge, "it defaults to 1"
	case zeroIntOrPercent(u):
		return nil, ""
	}
	return surge, "it is " + manifest.ScalarValue(u)
}

// zeroIntOrPercent reports an int-or-string value of 0 or "0%", or null
// (unset: 0 for maxSurge).
func zeroIntOrPercent(n *yaml.Node) bool {
	if manifest.IsNull(n) {
		return true
	}
	if n.Kind != yaml.ScalarNode {
		return false
	}
	v := strings.TrimSuffix(n.Value, "%")
	i, err := strconv.Atoi(v)
	return err == nil && i == 0
}
