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
	At                     analysis.Finding
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
		s.Target = &hpaTarget{Name: obj.Name, Kind: kind, TargetName: name, At: p.Finding(nameNode, "spec.scaleTargetRef.name", nil, "")}
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
	has := map[appNS]bool{}               // application, namespace with a workload
	own := map[appNS][][2]string{}        // the workloads of an application in a namespace
	unknown := map[appNS]bool{}           // application, namespace with an unknown custom resource
	operator := map[analysis.AppID]bool{} // applications that define CRDs
	for i, s := range summaries {
		app := p.Application(i)
		switch {
		case s.Workload[1] != "":
			exists[key{s.NS, s.Workload[0], s.Workload[1]}] = true
			has[appNS{app, s.NS}] = true
			own[appNS{app, s.NS}] = append(own[appNS{app, s.NS}], s.Workload)
		case s.Unknown == "CustomResourceDefinition":
			operator[app] = true
		case s.Unknown != "":
			unknown[appNS{app, s.NS}] = true
		}
	}
	for i, s := range summaries {
		t, app := s.Target, p.Application(i)
		if t == nil || exists[key{s.NS, t.Kind, t.TargetName}] || p.Unread(app) || !has[appNS{app, s.NS}] {
			continue
		}
		// A workload of the application the target was meant for.
		var meant [2]string
		for _, w := range own[appNS{app, s.NS}] {
			if w[1] == t.TargetName || oneSlip(w[1], t.TargetName) && len(t.TargetName) >= 4 {
				meant = w
				break
			}
		}
		if meant[1] == "" && (operator[app] || unknown[appNS{app, s.NS}]) {
			continue
		}
		f := t.At
		f.Message = fmt.Sprintf("HorizontalPodAutoscaler %q scales %s/%s, which is not in namespace %s, so it scales nothing (its status says FailedGetScale)", t.Name, t.Kind, t.TargetName, s.NS)
		if meant[1] != "" {
			f.Message += fmt.Sprintf("; its application has %s/%s there", meant[0], meant[1])
		}
		p.Report(f)
	}
}
