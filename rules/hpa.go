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
	ns string
	// The autoscaler's target (kind, name) and where its name is.
	target *hpaTarget
	// A scalable workload: kind and name.
	workload [2]string
	// A custom resource of an unknown kind, or a CRD.
	unknown string
}

type hpaTarget struct {
	name, kind, targetName string
	at                     analysis.Finding
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
	s := hpaTargetSummary{ns: obj.EffectiveNamespace()}
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
		s.target = &hpaTarget{name: obj.Name, kind: kind, targetName: name, at: p.Finding(nameNode, "spec.scaleTargetRef.name", nil, "")}
		return s, true
	case isScalable(obj.Group(), obj.Kind):
		s.workload = [2]string{obj.Kind, obj.Name}
		return s, true
	case mayMakePods(obj):
		s.unknown = obj.Kind
		return s, true
	}
	return s, false
}

func finishHPATarget(p *analysis.CrossPass, summaries []hpaTargetSummary) {
	type key struct{ ns, kind, name string }
	exists := map[key]bool{}
	has := map[appNS]bool{}               // application, namespace with a workload
	own := map[appNS][][2]string{}        // the workloads of an application in a namespace
	unknown := map[appNS]bool{}           // application, namespace with an unknown custom resource
	operator := map[analysis.AppID]bool{} // applications that define CRDs
	for i, s := range summaries {
		app := p.Application(i)
		switch {
		case s.workload[1] != "":
			exists[key{s.ns, s.workload[0], s.workload[1]}] = true
			has[appNS{app, s.ns}] = true
			own[appNS{app, s.ns}] = append(own[appNS{app, s.ns}], s.workload)
		case s.unknown == "CustomResourceDefinition":
			operator[app] = true
		case s.unknown != "":
			unknown[appNS{app, s.ns}] = true
		}
	}
	for i, s := range summaries {
		t, app := s.target, p.Application(i)
		if t == nil || exists[key{s.ns, t.kind, t.targetName}] || p.Unread(app) || !has[appNS{app, s.ns}] {
			continue
		}
		// A workload of the application the target was meant for.
		var meant [2]string
		for _, w := range own[appNS{app, s.ns}] {
			if w[1] == t.targetName || oneSlip(w[1], t.targetName) && len(t.targetName) >= 4 {
				meant = w
				break
			}
		}
		if meant[1] == "" && (operator[app] || unknown[appNS{app, s.ns}]) {
			continue
		}
		f := t.at
		f.Message = fmt.Sprintf("HorizontalPodAutoscaler %q scales %s/%s, which is not in namespace %s, so it scales nothing (its status says FailedGetScale)", t.name, t.kind, t.targetName, s.ns)
		if meant[1] != "" {
			f.Message += fmt.Sprintf("; its application has %s/%s there", meant[0], meant[1])
		}
		p.Report(f)
	}
}
