package chartfetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"go.yaml.in/yaml/v3"
)

// repoIndex is the part of a chart repository's index.yaml read here.
type repoIndex struct {
	APIVersion string                  `yaml:"apiVersion"`
	Entries    map[string][]chartEntry `yaml:"entries"`
}

type chartEntry struct {
	Name    string   `yaml:"name"`
	Version string   `yaml:"version"`
	URLs    []string `yaml:"urls"`
	Digest  string   `yaml:"digest"`
	Created string   `yaml:"created"`
}

// fetchFromIndex fetches r's chart from an HTTP(S) chart repository.
func (f *Fetcher) fetchFromIndex(ctx context.Context, r Request) (Archive, error) {
	if exactVersion(r.Version) {
		if a, ok := f.cachedRef(r); ok {
			return a, nil // an exact version is fetched once
		}
	}
	idx, err := f.index(ctx, r.IndexURL)
	if err != nil {
		// A constraint is resolved again on every run; when the
		// repository cannot be reached, what it resolved to last stands.
		if a, ok := f.cachedRef(r); ok {
			return a, nil
		}
		return Archive{}, err
	}
	entry, err := idx.chartVersion(r.Chart, r.Version)
	if err != nil {
		return Archive{}, err
	}
	exact := r
	exact.Version = entry.Version
	if a, ok := f.cachedRef(exact); ok {
		return a, f.remember(r, a)
	}
	if len(entry.URLs) == 0 {
		return Archive{}, fmt.Errorf("the index names no URL for version %s", entry.Version)
	}
	from, err := resolveReferenceURL(r.IndexURL, entry.URLs[0])
	if err != nil {
		return Archive{}, err
	}
	data, err := f.get(ctx, from, MaxChartSize)
	if err != nil {
		return Archive{}, err
	}
	if entry.Digest != "" {
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, strings.TrimPrefix(entry.Digest, "sha256:")) {
			return Archive{}, fmt.Errorf("%s: digest mismatch: the index says sha256:%s, the archive is sha256:%s: not used", from, strings.TrimPrefix(entry.Digest, "sha256:"), got)
		}
	}
	digest, path, err := f.storeBlob(data)
	if err != nil {
		return Archive{}, err
	}
	a := Archive{Path: path, Digest: digest, Chart: r.Chart, Version: entry.Version, From: from}
	if err := f.remember(exact, a); err != nil {
		return Archive{}, err
	}
	return a, f.remember(r, a)
}

// index is the repository's index, fetched once per run.
func (f *Fetcher) index(ctx context.Context, repoURL string) (*repoIndex, error) {
	f.mu.Lock()
	if res, ok := f.indexes[repoURL]; ok {
		f.mu.Unlock()
		return res.idx, res.err
	}
	f.mu.Unlock()
	idx, err := f.readIndex(ctx, repoURL)
	f.mu.Lock()
	if f.indexes == nil {
		f.indexes = map[string]indexResult{}
	}
	f.indexes[repoURL] = indexResult{idx, err}
	f.mu.Unlock()
	return idx, err
}

func (f *Fetcher) readIndex(ctx context.Context, repoURL string) (*repoIndex, error) {
	u, err := url.Parse(repoURL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL", repoURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/index.yaml"
	u.RawPath = ""
	data, err := f.get(ctx, u.String(), MaxIndexSize)
	if err != nil {
		return nil, err
	}
	var idx repoIndex
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("%s is not a chart repository index: %v", u, err)
	}
	if idx.APIVersion == "" || idx.Entries == nil {
		return nil, fmt.Errorf("%s is not a chart repository index (no apiVersion or entries)", u)
	}
	return &idx, nil
}

// chartVersion picks the entry as source-controller does
// (ChartRepository.GetChartVersion): the version string equal to ver
// first; else the highest version the constraint ver admits ("" and "*":
// the latest stable), versions that do not parse skipped, equal versions
// ordered by their creation time.
func (idx *repoIndex) chartVersion(name, ver string) (chartEntry, error) {
	entries, ok := idx.Entries[name]
	if !ok || len(entries) == 0 {
		return chartEntry{}, fmt.Errorf("the index has no chart %q", name)
	}
	if ver != "" {
		for _, e := range entries {
			if e.Version == ver {
				return e, nil
			}
		}
	}
	if ver == "" {
		ver = "*"
	}
	constraint, err := semver.NewConstraint(ver)
	if err != nil {
		return chartEntry{}, fmt.Errorf("version %q is neither in the index nor a semver constraint: %v", ver, err)
	}
	type candidate struct {
		v *semver.Version
		e chartEntry
	}
	var matched []candidate
	for _, e := range entries {
		v, err := parseVersion(e.Version)
		if err != nil || !constraint.Check(v) {
			continue
		}
		matched = append(matched, candidate{v, e})
	}
	if len(matched) == 0 {
		return chartEntry{}, fmt.Errorf("no %q chart with version matching %q in the index", name, ver)
	}
	sort.SliceStable(matched, func(i, j int) bool {
		if !matched[i].v.Equal(matched[j].v) {
			return matched[i].v.GreaterThan(matched[j].v)
		}
		return created(matched[i].e).After(created(matched[j].e))
	})
	return matched[0].e, nil
}

func created(e chartEntry) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, e.Created)
	return t
}

// parseVersion is fluxcd/pkg/version's ParseVersion: a strict semantic
// version, a leading "v" allowed.
func parseVersion(s string) (*semver.Version, error) {
	return semver.StrictNewVersion(strings.TrimPrefix(s, "v"))
}

// exactVersion: a version that names one release, not a constraint.
func exactVersion(v string) bool {
	_, err := parseVersion(v)
	return err == nil
}

// resolveReferenceURL is Helm's repo.ResolveReferenceURL: a relative
// archive URL is relative to the repository's URL taken as a directory.
func resolveReferenceURL(baseURL, ref string) (string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("archive URL %q: %v", ref, err)
	}
	if r.IsAbs() {
		if r.Scheme != "http" && r.Scheme != "https" {
			return "", fmt.Errorf("archive URL %q is not http(s)", ref)
		}
		return ref, nil
	}
	base, err := url.Parse(baseURL)
	if err != nil {
		return "", err
	}
	base.RawPath = strings.TrimSuffix(base.RawPath, "/") + "/"
	base.Path = strings.TrimSuffix(base.Path, "/") + "/"
	resolved := base.ResolveReference(r)
	resolved.RawQuery = base.RawQuery
	return resolved.String(), nil
}
