package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/kubeversion"
)

// KubernetesVersion is the target cluster version of the config
// (spec.kubernetesVersion), checked as it is read so that a bad one is
// reported at its line.
type KubernetesVersion string

// UnmarshalYAML reads a version and refuses one Helm would not parse.
func (v *KubernetesVersion) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: spec.kubernetesVersion: want a version such as v1.34.0", n.Line)
	}
	if err := CheckKubernetesVersion(n.Value); err != nil {
		return fmt.Errorf("line %d: spec.kubernetesVersion: %v", n.Line, err)
	}
	*v = KubernetesVersion(n.Value)
	return nil
}

// CheckKubernetesVersion accepts what Helm's ParseKubeVersion accepts
// (`helm template --kube-version`: Kubernetes' generic version syntax,
// "v1.34.0", "1.34", "1.35.1"), which is how internal/helmrender reads it.
func CheckKubernetesVersion(v string) error {
	if _, err := kubeversion.ParseGeneric(v); err != nil {
		return fmt.Errorf("%q is not a Kubernetes version (want e.g. v1.34.0): %v", v, err)
	}
	return nil
}
