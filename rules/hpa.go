package rules

import (
	"fmt"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

var hpaNoTarget = Register(&analysis.Rule{
	ID:       "hpa-no-target",
	Severity: analysis.Warning,
	Summary:  "A HorizontalPodAutoscaler's scaleTargetRef names no workload in its namespace",
	Targets:  analysis.Objects,
	Cross:    analysis.Summaries(summarizeHPATarget, finishHPATarget),
	Scope:    analysis.Repository,
})

// hpaTargetSummary is an autoscaler's target, a scalable workload, or
// what may make workloads shipshape cannot see.
type hpaTargetSummary struct {
	NS string
	// The autoscaler's target (kind, name) and where its name is.
	Target *hpaTarget
	// A scalable workload: kind and name.
	Workload [2]string
	// A custom resource of an unknown kind, or a CRD.
	Unknown string
}

type hpaTarget struct {
	Name, Kind, TargetName string
	At                     analysis.Locator
}

// scalableKinds are the kinds whose objects shipshape sees, by group.
var scalableKinds = map[string][]string{
	"apps":                     {"Deployment", "StatefulSet", "ReplicaSet"},
	"extensions":               {"Deployment", "ReplicaSet"},
	"":                         {"ReplicationController"},
	"leaderworkerset.x-k8s.io": {"LeaderWorkerSet"},
	"argoproj.io":              {"Rollout"},
	"apps.openshift.io":        {"DeploymentConfig"},
}

func isScalable(group, kind string) bool {
	for _, k := range scalableKinds[group] {
		if k == kind {
			return true
		}
	}
	return false
}

func summarizeHPATarget(p *analysis.Pass) (hpaTargetSummary, bool) {
	obj := p.Object
	s := hpaTargetSummary{NS: obj.EffectiveNamespace()}
	switch {
	case isHPA(obj):
		ref := manifest.Path(obj.Node, "spec", "scaleTargetRef")
		kind := manifest.ScalarValue(manifest.MapGet(ref, "kind"))
		group := manifest.Resource{APIVersion: manifest.ScalarValue(manifest.MapGet(ref, "apiVersion"))}.Group()
		nameNode := manifest.MapGet(ref, "name")
		name := manifest.ScalarValue(nameNode)
		if nameNode == nil || name == "" || placeholder(name) || !isScalable(group, kind) {
			return s, false
		}
		s.Target = &hpaTarget{Name: obj.Name, Kind: kind, TargetName: name, At: p.Locate(nameNode, "spec.scaleTargetRef.name")}
		return s, true
	case isScalable(obj.Group(), obj.Kind):
		s.Workload = [2]string{obj.Kind, obj.Name}
		return s, true
	case mayMakePods(obj):
		s.Unknown = obj.Kind
		return s, true
	}
	return s, false
}

func finishHPATarget(p *analysis.CrossPass, summaries []hpaTargetSummary) {
	type key struct{ ns, kind, name string }
	exists := map[key]bool{}
	for _, s := range summaries {
		if s.Workload[1] != "" {
			exists[key{s.NS, s.Workload[0], s.Workload[1]}] = true
		}
	}
	// The rest is judged per application, one at a time: maps of one
	// application's namespaces, not of every application's.
	eachApplication(p, len(summaries), func(app analysis.AppID, lo, hi int) {
		finishHPAApp(p, app, summaries[lo:hi], func(ns, kind, name string) bool { return exists[key{ns, kind, name}] })
	})
}

// finishHPAApp judges the HPAs of one application, whose summaries are
// ss; exists says whether the tree defines a workload.
func finishHPAApp(p *analysis.CrossPass, app analysis.AppID, ss []hpaTargetSummary, exists func(ns, kind, name string) bool) {
	own := map[string][][2]string{} // namespace -> the application's workloads there
	unknown := map[string]bool{}    // namespaces with an unknown custom resource
	operator := false               // the application defines CRDs
	for _, s := range ss {
		switch {
		case s.Workload[1] != "":
			own[s.NS] = append(own[s.NS], s.Workload)
		case s.Unknown == "CustomResourceDefinition":
			operator = true
		case s.Unknown != "":
			unknown[s.NS] = true
		}
	}
	for _, s := range ss {
		t := s.Target
		if t == nil || exists(s.NS, t.Kind, t.TargetName) || p.Unread(app) || own[s.NS] == nil {
			continue
		}
		// A workload of the application the target was meant for.
		var meant [2]string
		for _, w := range own[s.NS] {
			if w[1] == t.TargetName || oneSlip(w[1], t.TargetName) && len(t.TargetName) >= 4 {
				meant = w
				break
			}
		}
		if meant[1] == "" && (operator || unknown[s.NS]) {
			continue
		}
		f := t.At.Finding()
		f.Message = fmt.Sprintf("HorizontalPodAutoscaler %q scales %s/%s, which is not in namespace %s, so it scales nothing (its status says FailedGetScale)", t.Name, t.Kind, t.TargetName, s.NS)
		if meant[1] != "" {
			f.Message += fmt.Sprintf("; its application has %s/%s there", meant[0], meant[1])
		}
		p.Report(f)
	}
}
