//go:build helm

// Package helmrender renders a Helm chart directory in-process with Helm's own
// template engine (helm.sh/helm/v3/pkg/engine), the way `helm template` does,
// and says where each rendered value came from.
//
// Nothing here reaches out: no helm process, no network (the engine's `lookup`
// returns an empty map without a cluster client), no DNS (`getHostByName`
// returns "" unless DNS is enabled, and it never is here).
//
// Values are read by Helm itself (chartutil.ReadValues: sigs.k8s.io/yaml, i.e.
// YAML 1.1 through go-yaml v2, so `yes` is true and `1.10` is the number 1.1)
// and coalesced by Helm itself (chartutil.CoalesceValues, with dependency
// conditions, tags and import-values applied by ProcessDependenciesWithMerge),
// so the values a template sees are exactly Helm's. Positions come from a
// separate index of the same sources read as yaml.v3 nodes (origins.go): it
// only supplies file:line:column for a values path, never a value.
package helmrender
