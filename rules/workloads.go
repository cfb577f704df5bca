package rules

import (
	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// podTemplate is a pod template found in an object, with its dotted path.
type podTemplate struct {
	Node *yaml.Node // the PodTemplateSpec mapping
	Path string
}

// podTemplatePaths lists where built-in kinds and known CRDs keep pod
// templates.
var podTemplatePaths = map[string][][]string{
	"Deployment":            {{"spec", "template"}},
	"ReplicaSet":            {{"spec", "template"}},
	"StatefulSet":           {{"spec", "template"}},
	"DaemonSet":             {{"spec", "template"}},
	"ReplicationController": {{"spec", "template"}},
	"Job":                   {{"spec", "template"}},
	"PodTemplate":           {{"template"}},
	"CronJob":               {{"spec", "jobTemplate", "spec", "template"}},
	"LeaderWorkerSet": {
		{"spec", "leaderWorkerTemplate", "leaderTemplate"},
		{"spec", "leaderWorkerTemplate", "workerTemplate"},
	},
}

// PodTemplates returns the pod templates of obj.
func podTemplates(obj *manifest.Object) []podTemplate {
	var out []podTemplate
	for _, keys := range podTemplatePaths[obj.Kind] {
		if n := manifest.Path(obj.Node, keys...); n != nil && n.Kind == yaml.MappingNode {
			p := keys[0]
			for _, k := range keys[1:] {
				p += "." + k
			}
			out = append(out, podTemplate{n, p})
		}
	}
	return out
}

// isLWS reports a LeaderWorkerSet of any version.
func isLWS(obj *manifest.Object) bool {
	return obj.Kind == "LeaderWorkerSet" && obj.Group() == "leaderworkerset.x-k8s.io"
}
