package helmrender

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/shipshape-dev/shipshape/internal/kubeversion"
)

// What templates see as .Capabilities. Helm's own type (chartutil) builds its
// API-version list from client-go's scheme, which registers every built-in
// API type at init (docs/helm.md, Weight); the list here is static, the one
// Helm v3.22.0's DefaultVersionSet holds, and TestRenderEqualsHelmTemplate
// checks it against `helm template` (testdata/helm/capabilities prints it).

// Capabilities has the fields and methods templates use on Helm's.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion BuildInfo
}

// KubeVersion is the target cluster version, as .Capabilities.KubeVersion.
type KubeVersion struct {
	Version string // "v1.34.0"
	Major   string // "1"
	Minor   string // "34"
}

// String and GitVersion are methods on the pointer, as on Helm's type, so a
// template can call them on the addressable field.
func (kv *KubeVersion) String() string     { return kv.Version }
func (kv *KubeVersion) GitVersion() string { return kv.Version }

// VersionSet is the list of API versions; Has is what templates call.
type VersionSet []string

// Has says whether apiVersion ("apps/v1", or "apps/v1/Deployment" given with
// --api-versions) is in the set.
func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

// BuildInfo is .Capabilities.HelmVersion: what a Helm v3.22 built from its
// module says of itself.
type BuildInfo struct {
	Version      string `json:"version,omitempty"`
	GitCommit    string `json:"git_commit,omitempty"`
	GitTreeState string `json:"git_tree_state,omitempty"`
	GoVersion    string `json:"go_version,omitempty"`
}

const helmVersion = "v3.22"

// builtinAPIVersions is Helm v3.22.0's DefaultVersionSet (client-go v0.35's
// scheme plus apiextensions v1 and v1beta1), in its order.
var builtinAPIVersions = []string{
	"v1",
	"admissionregistration.k8s.io/v1",
	"admissionregistration.k8s.io/v1alpha1",
	"admissionregistration.k8s.io/v1beta1",
	"internal.apiserver.k8s.io/v1alpha1",
	"apps/v1",
	"apps/v1beta1",
	"apps/v1beta2",
	"authentication.k8s.io/v1",
	"authentication.k8s.io/v1alpha1",
	"authentication.k8s.io/v1beta1",
	"authorization.k8s.io/v1",
	"authorization.k8s.io/v1beta1",
	"autoscaling/v1",
	"autoscaling/v2",
	"batch/v1",
	"batch/v1beta1",
	"certificates.k8s.io/v1",
	"certificates.k8s.io/v1beta1",
	"certificates.k8s.io/v1alpha1",
	"coordination.k8s.io/v1alpha2",
	"coordination.k8s.io/v1beta1",
	"coordination.k8s.io/v1",
	"discovery.k8s.io/v1",
	"discovery.k8s.io/v1beta1",
	"events.k8s.io/v1",
	"events.k8s.io/v1beta1",
	"extensions/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1",
	"flowcontrol.apiserver.k8s.io/v1beta1",
	"flowcontrol.apiserver.k8s.io/v1beta2",
	"flowcontrol.apiserver.k8s.io/v1beta3",
	"lifecycle.k8s.io/v1alpha1",
	"networking.k8s.io/v1",
	"networking.k8s.io/v1beta1",
	"node.k8s.io/v1",
	"node.k8s.io/v1alpha1",
	"node.k8s.io/v1beta1",
	"policy/v1",
	"policy/v1beta1",
	"rbac.authorization.k8s.io/v1",
	"rbac.authorization.k8s.io/v1beta1",
	"rbac.authorization.k8s.io/v1alpha1",
	"resource.k8s.io/v1",
	"resource.k8s.io/v1beta2",
	"resource.k8s.io/v1beta1",
	"resource.k8s.io/v1alpha3",
	"scheduling.k8s.io/v1alpha3",
	"scheduling.k8s.io/v1beta1",
	"scheduling.k8s.io/v1",
	"storage.k8s.io/v1beta1",
	"storage.k8s.io/v1",
	"storage.k8s.io/v1alpha1",
	"storagemigration.k8s.io/v1",
	"storagemigration.k8s.io/v1beta1",
	"apiextensions.k8s.io/v1beta1",
	"apiextensions.k8s.io/v1",
}

// parseKubeVersion reads "v1.34.0", "1.34" or "1.34.1" as Helm's
// ParseKubeVersion does (Kubernetes' generic version syntax).
func parseKubeVersion(v string) (KubeVersion, error) {
	numbers, err := kubeversion.ParseGeneric(v)
	if err != nil {
		return KubeVersion{}, err
	}
	text := make([]string, len(numbers))
	for i, n := range numbers {
		text[i] = strconv.FormatUint(uint64(n), 10)
	}
	return KubeVersion{
		Version: "v" + strings.Join(text, "."),
		Major:   text[0],
		Minor:   text[1],
	}, nil
}

// capabilities is the default capability set with the target version and the
// extra API versions, as `helm template --kube-version --api-versions`.
func capabilities(opts Options) (*Capabilities, error) {
	v := opts.KubernetesVersion
	if v == "" {
		v = DefaultKubernetesVersion
	}
	kv, err := parseKubeVersion(v)
	if err != nil {
		return nil, fmt.Errorf("kubernetesVersion %q: %w", v, err)
	}
	versions := append(append(VersionSet(nil), builtinAPIVersions...), opts.APIVersions...)
	return &Capabilities{
		KubeVersion: kv,
		APIVersions: versions,
		HelmVersion: BuildInfo{Version: helmVersion, GoVersion: runtime.Version()},
	}, nil
}

// compatibleRange says whether version ver satisfies the semver constraint,
// as Helm checks a chart's kubeVersion and a dependency's version range; an
// unreadable constraint or version admits nothing.
func compatibleRange(constraint, ver string) bool {
	sv, err := semver.NewVersion(ver)
	if err != nil {
		return false
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return false
	}
	return c.Check(sv)
}
