// Package chartfetch pulls Helm chart archives from chart repositories into
// a local cache, for `lint --fetch-charts` (issue 34, item 2). It is the one
// part of shipshape that reaches the network, and only when the user asks:
// the engine calls it only through a Fetcher the command line made, and the
// KRM function never makes one.
//
// Two kinds of source, as Flux's source-controller and Argo CD's repo server
// read them:
//   - an HTTP(S) chart repository: GET <url>/index.yaml, the entry of the
//     chart whose version is the one asked for (the exact string first, else
//     the highest version a semver constraint admits, as source-controller's
//     ChartRepository.GetChartVersion picks), then its urls[0] (relative to
//     the repository's URL when relative), checked against the entry's
//     sha256 digest when the index gives one;
//   - an OCI registry: the manifest of <repository>:<tag> (or @<digest>),
//     whose config must be a Helm chart's, then its chart layer, each blob
//     verified against its descriptor's digest and size, and a digest the
//     source pins is the digest fetched (registry.go: the distribution
//     API's few GETs and the anonymous bearer-token flow).
//
// What is fetched is never run: a chart's hooks and plugins are templates
// to the renderer like any other. No credentials are sent (the caller
// refuses a source that names some). Every request has a timeout, every
// download a size cap (MaxChartSize, MaxIndexSize); archives are written
// to the cache atomically and their digest is checked again whenever they
// are read from it.
package chartfetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Size caps: a chart archive (charts are kilobytes to a few megabytes; the
// largest public ones stay well under this), a repository index (Bitnami's
// is tens of megabytes), an OCI manifest.
const (
	MaxChartSize    = 20 << 20
	MaxIndexSize    = 64 << 20
	maxManifestSize = 4 << 20
)

// RequestTimeout bounds each request, body included.
const RequestTimeout = 60 * time.Second

// Request names one chart in one repository.
type Request struct {
	// IndexURL is an HTTP(S) chart repository (its index.yaml is below it).
	IndexURL string
	// OCIRepository is the chart's repository in an OCI registry,
	// "host[:port]/path/chart", without a scheme.
	OCIRepository string
	// Chart is the chart's name (an index entry; for OCI, for messages).
	Chart string
	// Version is an exact version, a semver constraint, or "" for the
	// latest stable version (for OCI: a tag, unless Semver).
	Version string
	// Semver says that Version is a constraint over an OCI repository's
	// tags (OCIRepository spec.ref.semver).
	Semver bool
	// Digest pins an OCI manifest ("sha256:…"): what is fetched is that
	// manifest, whatever the tag says.
	Digest string
	// PlainHTTP lets an OCI registry be reached over HTTP (the source says
	// insecure, or the registry is on a loopback address, which Docker
	// and Helm also reach over HTTP).
	PlainHTTP bool
}

// Where says where r's chart is fetched from, for messages.
func (r Request) Where() string {
	if r.IndexURL != "" {
		return strings.TrimSuffix(r.IndexURL, "/") + "/index.yaml"
	}
	switch {
	case r.Digest != "":
		return "oci://" + r.OCIRepository + "@" + r.Digest
	case r.Version != "" && !r.Semver:
		return "oci://" + r.OCIRepository + ":" + OCITag(r.Version)
	}
	return "oci://" + r.OCIRepository
}

// Archive is a chart archive in the cache.
type Archive struct {
	Path    string // the verified archive
	Digest  string // its sha256 ("sha256:<hex>")
	Chart   string
	Version string // the version fetched (a constraint resolved)
	From    string // the URL it was fetched from
}

// Fetcher fetches charts into Dir, and reads them back from it.
type Fetcher struct {
	Dir    string
	Client *http.Client

	mu      sync.Mutex
	indexes map[string]indexResult // this run's indexes, by URL
	done    map[string]fetchResult // this run's requests
}

type indexResult struct {
	idx *repoIndex
	err error
}

type fetchResult struct {
	a   Archive
	err error
}

// New is a Fetcher over the cache directory dir, with a timeout on every
// request.
func New(dir string) *Fetcher {
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConnsPerHost:   4,
	}
	return &Fetcher{Dir: dir, Client: &http.Client{Timeout: RequestTimeout, Transport: transport}}
}

// DefaultDir is the chart cache: $SHIPSHAPE_CACHE/charts, else the user's
// cache directory's shipshape/charts. SHIPSHAPE_CACHE=off turns the render
// cache off, not this one: fetching needs a place to keep what it fetched.
func DefaultDir() (string, error) {
	if d := os.Getenv("SHIPSHAPE_CACHE"); d != "" && d != "off" {
		return filepath.Join(d, "charts"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set --chart-cache or SHIPSHAPE_CACHE): %v", err)
	}
	return filepath.Join(d, "shipshape", "charts"), nil
}

// Fetch is r's chart archive: from the cache when an earlier run fetched
// that exact version (or resolved that constraint, and the repository
// cannot be reached now), else fetched. Safe for concurrent use; each
// request is made once per Fetcher.
func (f *Fetcher) Fetch(ctx context.Context, r Request) (Archive, error) {
	key := refKey(r)
	f.mu.Lock()
	if res, ok := f.done[key]; ok {
		f.mu.Unlock()
		return res.a, res.err
	}
	f.mu.Unlock()
	var a Archive
	var err error
	if r.IndexURL != "" {
		a, err = f.fetchFromIndex(ctx, r)
	} else {
		a, err = f.fetchOCI(ctx, r)
	}
	if err != nil {
		err = fmt.Errorf("chart %s %s not fetched from %s: %w", r.Chart, versionText(r), r.Where(), err)
	}
	f.mu.Lock()
	if f.done == nil {
		f.done = map[string]fetchResult{}
	}
	f.done[key] = fetchResult{a, err}
	f.mu.Unlock()
	return a, err
}

func versionText(r Request) string {
	switch {
	case r.Digest != "":
		return r.Digest
	case r.Version == "":
		return "(latest)"
	}
	return r.Version
}

// refKey names a request in the cache's refs/: what it resolved to last.
func refKey(r Request) string {
	parts := []string{"index", r.IndexURL, r.Chart, r.Version}
	if r.IndexURL == "" {
		parts = []string{"oci", r.OCIRepository, r.Version, r.Digest, fmt.Sprint(r.Semver)}
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

// cachedRef is what an earlier run recorded for r, its archive verified.
func (f *Fetcher) cachedRef(r Request) (Archive, bool) {
	data, err := os.ReadFile(filepath.Join(f.Dir, "refs", refKey(r)))
	if err != nil {
		return Archive{}, false
	}
	fields := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(fields) != 4 {
		return Archive{}, false
	}
	path, ok := f.verifiedBlob(fields[0])
	if !ok {
		return Archive{}, false
	}
	return Archive{Path: path, Digest: fields[0], Chart: fields[1], Version: fields[2], From: fields[3]}, true
}

// remember records what r resolved to, for the runs that follow.
func (f *Fetcher) remember(r Request, a Archive) error {
	text := strings.Join([]string{a.Digest, a.Chart, a.Version, a.From}, "\n") + "\n"
	return writeAtomic(filepath.Join(f.Dir, "refs", refKey(r)), strings.NewReader(text))
}

// blobPath is where the archive of sha256 hex digest sum is kept.
func (f *Fetcher) blobPath(sum string) string {
	return filepath.Join(f.Dir, "blobs", "sha256", sum+".tgz")
}

// verifiedBlob is the blob of "sha256:<hex>" when its bytes still have
// that digest (a damaged or altered entry is not used).
func (f *Fetcher) verifiedBlob(digest string) (string, bool) {
	sum, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(sum) != 64 {
		return "", false
	}
	p := f.blobPath(sum)
	file, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer file.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(file, MaxChartSize+1)); err != nil {
		return "", false
	}
	return p, hex.EncodeToString(h.Sum(nil)) == sum
}

// storeBlob writes data to the cache under its digest and returns the
// digest and path.
func (f *Fetcher) storeBlob(data []byte) (string, string, error) {
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	p := f.blobPath(hexSum)
	if err := writeAtomic(p, bytes.NewReader(data)); err != nil {
		return "", "", err
	}
	return "sha256:" + hexSum, p, nil
}

// writeAtomic writes r to path through a temporary file in the same
// directory and a rename, so that a reader never sees half a file.
func writeAtomic(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cache: %v", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("cache: %v", err)
	}
	_, err = io.Copy(tmp, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cache: %v", err)
	}
	return nil
}

// get is the body of a GET of url, at most limit bytes.
func (f *Fetcher) get(ctx context.Context, url string, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "shipshape")
	resp, err := f.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return nil, fmt.Errorf("GET %s: %s (the repository asks for credentials, which shipshape does not send)", url, resp.Status)
		}
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", url, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("GET %s: larger than %d MB: not read", url, limit>>20)
	}
	return data, nil
}

// errNotFound: the repository has no such chart or version.
var errNotFound = errors.New("not found")
