package manifest

import (
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
)

// incomplete recognises objects that cannot be whole, so that they are
// judged like patches even when the kustomization that uses them is not
// in view (a file passed alone, or a repository's overlay directory):
// reporting "missing selector" on a strategic-merge patch is noise.
//   - a workload container without an image (the API requires one; a
//     patch names the container and overrides a field or two);
//   - a workload with neither a selector nor template labels (or only
//     empty ones: `matchLabels: {}`, `labels: {}`);
//   - a workload whose pod template has no containers (the API requires
//     one; a patch sets a field or two of the pod spec: affinity,
//     tolerations);
//   - a Service with neither ports nor a selector.
func incomplete(kind string, n *yaml.Node) bool {
	spec := MapGet(n, "spec")
	switch kind {
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet":
		tmpl := MapGet(spec, "template")
		if unset(MapGet(spec, "selector")) && unset(MapGet(MapGet(tmpl, "metadata"), "labels")) {
			return true
		}
		containers := MapGet(MapGet(tmpl, "spec"), "containers")
		return containers == nil || containerWithoutImage(containers)
	case "Service":
		return spec == nil || MapGet(spec, "ports") == nil && MapGet(spec, "selector") == nil &&
			ScalarValue(MapGet(spec, "type")) != "ExternalName"
	}
	return false
}

// unset reports whether n sets nothing: absent, null, or mappings and
// lists with nothing in them (`selector: {matchLabels: {}}`, `labels: {}`).
func unset(n *yaml.Node) bool {
	switch {
	case IsNull(n):
		return true
	case n.Kind == yaml.SequenceNode:
		return len(n.Content) == 0
	case n.Kind != yaml.MappingNode:
		return false
	}
	for i := 1; i < len(n.Content); i += 2 {
		if !unset(n.Content[i]) {
			return false
		}
	}
	return true
}

func containerWithoutImage(cs *yaml.Node) bool {
	if cs == nil || cs.Kind != yaml.SequenceNode {
		return false
	}
	for _, c := range cs.Content {
		if c.Kind == yaml.MappingNode && MapGet(c, "image") == nil {
			return true
		}
	}
	return false
}

// assertionName matches the files of kuttl and chainsaw end-to-end tests
// that state what the cluster should (assert) or should not (errors) hold
// after a step: 00-assert.yaml, 01-errors.yaml, 02-assert-collector.yaml,
// assert-verify-traces.yaml.
var assertionName = lazyregexp.New(`^([0-9]+-)?(assert|errors?)([-.][^/]*)?\.ya?ml$`)

// testAssertion reports whether path is such a file: its objects are the
// fields a test compares with the cluster, never applied (a Service there
// has no selector because the operator under test makes it).
func testAssertion(path string) bool {
	return assertionName.MatchString(filepath.Base(path))
}
