package chartfetch

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Helm's OCI media types (helm.sh/helm/v3/pkg/registry).
const (
	helmConfigMediaType       = "application/vnd.cncf.helm.config.v1+json"
	helmChartLayerMediaType   = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
	legacyChartLayerMediaType = "application/tar+gzip"
)

// OCITag is the tag of a chart version: Helm writes a version's "+" as
// "_", which tags may not hold.
func OCITag(version string) string { return strings.ReplaceAll(version, "+", "_") }

// Loopback says whether an OCI repository's registry is on a loopback
// address, which Docker, Helm and oras reach over plain HTTP.
func Loopback(repository string) bool {
	host, _, _ := strings.Cut(repository, "/")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// fetchOCI fetches r's chart from an OCI registry.
func (f *Fetcher) fetchOCI(ctx context.Context, r Request) (Archive, error) {
	pinned := r.Digest != "" || !r.Semver && exactVersion(r.Version)
	if pinned {
		if a, ok := f.cachedRef(r); ok {
			return a, nil // a digest, or a chart version's tag, is fetched once
		}
	}
	if r.Digest != "" && !validSHA256Digest(r.Digest) {
		return Archive{}, fmt.Errorf("%q is not a sha256 digest", r.Digest)
	}
	repo, err := newRegistryClient(f.Client, r.OCIRepository, r.PlainHTTP)
	if err != nil {
		return Archive{}, err
	}
	a, err := f.pullOCI(ctx, repo, r)
	if err != nil && !pinned {
		// A semver range or a moving tag is resolved again on every run;
		// when the registry cannot be reached, what it resolved to last
		// stands.
		if cached, ok := f.cachedRef(r); ok {
			return cached, nil
		}
	}
	return a, err
}

func (f *Fetcher) pullOCI(ctx context.Context, repo *registryClient, r Request) (Archive, error) {
	ref, version := r.Digest, r.Version
	switch {
	case r.Digest != "":
	case r.Semver:
		tag, err := highestTag(ctx, repo, r.Version)
		if err != nil {
			return Archive{}, err
		}
		exact := Request{OCIRepository: r.OCIRepository, Chart: r.Chart, Version: strings.ReplaceAll(tag, "_", "+"), PlainHTTP: r.PlainHTTP}
		if a, ok := f.cachedRef(exact); ok {
			return a, f.remember(r, a)
		}
		ref, version = tag, exact.Version
	case r.Version == "":
		ref, version = "latest", "latest" // OCIRepository's default tag
	default:
		ref = OCITag(r.Version)
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	manifestBytes, manifestDigest, err := repo.manifest(ctx, ref)
	if err != nil {
		return Archive{}, describeOCIError(err)
	}
	if r.Digest != "" && manifestDigest != r.Digest {
		return Archive{}, fmt.Errorf("digest mismatch: the source pins %s, the registry gave %s", r.Digest, manifestDigest)
	}
	var manifest imageManifest
	if err := json.Unmarshal(manifestBytes, &manifest); err != nil {
		return Archive{}, fmt.Errorf("%s: not an OCI manifest: %v", ref, err)
	}
	if manifest.Config.MediaType != helmConfigMediaType {
		return Archive{}, fmt.Errorf("%s is not a Helm chart (config media type %q, want %q)", ref, manifest.Config.MediaType, helmConfigMediaType)
	}
	layer, ok := chartLayer(manifest)
	if !ok {
		return Archive{}, fmt.Errorf("%s has no chart layer (%s)", ref, helmChartLayerMediaType)
	}
	if layer.Size > MaxChartSize {
		return Archive{}, fmt.Errorf("%s: the chart layer is %d bytes, over the cap of %d MB: not fetched", ref, layer.Size, MaxChartSize>>20)
	}
	data, err := repo.blob(ctx, layer) // verified against the layer's digest and size
	if err != nil {
		return Archive{}, describeOCIError(err)
	}
	digest, path, err := f.storeBlob(data)
	if err != nil {
		return Archive{}, err
	}
	a := Archive{Path: path, Digest: digest, Chart: r.Chart, Version: version, From: "oci://" + r.OCIRepository + "@" + manifestDigest}
	if r.Semver {
		if err := f.remember(Request{OCIRepository: r.OCIRepository, Chart: r.Chart, Version: version, PlainHTTP: r.PlainHTTP}, a); err != nil {
			return Archive{}, err
		}
	}
	return a, f.remember(r, a)
}

// chartLayer is the manifest's one chart layer.
func chartLayer(m imageManifest) (descriptor, bool) {
	for _, l := range m.Layers {
		if l.MediaType == helmChartLayerMediaType || l.MediaType == legacyChartLayerMediaType {
			return l, true
		}
	}
	return descriptor{}, false
}

// highestTag is the tag of the highest version the constraint admits, as
// source-controller picks it for an OCIRepository's spec.ref.semver
// (tags that are not versions skipped; "_" read as "+", as Helm writes it).
func highestTag(ctx context.Context, repo *registryClient, constraint string) (string, error) {
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return "", fmt.Errorf("semver %q: %v", constraint, err)
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	type candidate struct {
		v   *semver.Version
		tag string
	}
	var matched []candidate
	err = repo.tags(ctx, func(tags []string) {
		for _, tag := range tags {
			v, err := semver.NewVersion(strings.ReplaceAll(tag, "_", "+"))
			if err == nil && c.Check(v) {
				matched = append(matched, candidate{v, tag})
			}
		}
	})
	if err != nil {
		return "", describeOCIError(err)
	}
	if len(matched) == 0 {
		return "", fmt.Errorf("no tag matches semver %q", constraint)
	}
	sort.SliceStable(matched, func(i, j int) bool { return matched[i].v.GreaterThan(matched[j].v) })
	return matched[0].tag, nil
}

// describeOCIError says that a registry asking for credentials is not
// given any.
func describeOCIError(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "401") || strings.Contains(msg, "403") || strings.Contains(msg, "unauthorized") {
		return fmt.Errorf("%v (the registry asks for credentials, which shipshape does not send)", err)
	}
	return err
}
