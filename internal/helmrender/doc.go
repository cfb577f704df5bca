// Package helmrender renders a Helm chart directory in-process, the way
// `helm template` (Helm v3.22) does, and says where each rendered value came
// from.
//
// The engine is shipshape's own, on text/template, sprig and Helm's light
// chart loader (helm.sh/helm/v3/pkg/chart/loader), written to Helm's
// behaviour: Helm's pkg/engine imports pkg/chartutil, which links client-go's
// scheme of every built-in API type and a JSON-schema validator, and would
// cost every run of shipshape ~17 ms of start-up and 40 MB of binary
// (docs/helm.md, Weight). TestRenderEqualsHelmTemplate holds the output to
// the real `helm template`'s on the same charts.
//
// Nothing here reaches out: no helm process, no network (`lookup` returns an
// empty map), no DNS (`getHostByName` returns "").
//
// Values are read as Helm reads them (sigs.k8s.io/yaml: YAML 1.1 through
// go-yaml v2, so `yes` is true and `1.10` is the number 1.1) and coalesced as
// Helm coalesces them (values.go, dependencies.go: conditions, tags,
// import-values, globals, null deleting a default). Positions come from a
// separate index of the same sources read as yaml.v3 nodes (origins.go): it
// only supplies file:line:column for a values path, never a value.
package helmrender
