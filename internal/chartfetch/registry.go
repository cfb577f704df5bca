package chartfetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// The part of the OCI distribution API a chart pull needs, written here
// rather than taken from oras-go, whose package initialisation (and
// go-digest's) cost every run of the binary about a millisecond, fetching
// or not. Nothing here does work at package init.

// Manifest media types asked for: OCI's, which Helm pushes, and Docker's
// schema 2, which older registries serve for the same JSON shape.
const (
	ociManifestMediaType    = "application/vnd.oci.image.manifest.v1+json"
	dockerManifestMediaType = "application/vnd.docker.distribution.manifest.v2+json"
	manifestAccept          = ociManifestMediaType + ", " + dockerManifestMediaType
)

// Caps on what is read besides charts and manifests: a token response,
// a page of tags, the number of pages.
const (
	maxTokenSize   = 1 << 20
	maxTagPageSize = 4 << 20
	maxTagPages    = 1000
)

// descriptor is an OCI content descriptor: what a manifest says of a blob.
type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// imageManifest is an OCI image manifest (or Docker schema 2), the fields
// a chart pull reads.
type imageManifest struct {
	MediaType string       `json:"mediaType"`
	Config    descriptor   `json:"config"`
	Layers    []descriptor `json:"layers"`
}

// registryClient pulls from one repository of one registry, anonymously:
// a registry that answers 401 with a Bearer challenge gets the token dance
// with no credential, as `helm pull` without a login does.
type registryClient struct {
	client *http.Client
	base   string // scheme://host, no trailing slash
	repo   string // the repository's path in the registry
	token  string // the anonymous bearer token, once a challenge was met
}

// newRegistryClient is a client for repository, "host[:port]/path".
func newRegistryClient(client *http.Client, repository string, plainHTTP bool) (*registryClient, error) {
	host, repo, ok := strings.Cut(repository, "/")
	if !ok || host == "" || repo == "" {
		return nil, fmt.Errorf("%q is not an OCI repository: want host/path", repository)
	}
	if !validRepositoryPath(repo) {
		return nil, fmt.Errorf("%q is not an OCI repository: %q is not a repository path (lowercase letters, digits, separators . _ - /)", repository, repo)
	}
	if strings.ContainsAny(host, "/?#@ ") {
		return nil, fmt.Errorf("%q is not an OCI repository: bad host %q", repository, host)
	}
	scheme := "https"
	if plainHTTP {
		scheme = "http"
	}
	return &registryClient{client: client, base: scheme + "://" + host, repo: repo}, nil
}

// validRepositoryPath says whether p is a distribution-spec repository
// name: path components of [a-z0-9] joined by ".", "_", "__", "-" runs.
func validRepositoryPath(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if part == "" || !isLowerAlnum(part[0]) || !isLowerAlnum(part[len(part)-1]) {
			return false
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !isLowerAlnum(c) && c != '.' && c != '_' && c != '-' {
				return false
			}
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// validTag says whether t is a tag: [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}.
func validTag(t string) bool {
	if t == "" || len(t) > 128 || t[0] == '.' || t[0] == '-' {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !isLowerAlnum(c) && !('A' <= c && c <= 'Z') && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// validSHA256Digest says whether d is "sha256:" and 64 lowercase hex
// digits, the one algorithm this client verifies.
func validSHA256Digest(d string) bool {
	sum, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(sum) != 64 {
		return false
	}
	for i := 0; i < len(sum); i++ {
		if c := sum[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func sha256Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// manifest fetches the manifest ref (a tag or a digest) and returns its
// bytes and their digest, checked against the registry's
// Docker-Content-Digest header when it sends one, and against ref when ref
// is a digest.
func (c *registryClient) manifest(ctx context.Context, ref string) ([]byte, string, error) {
	if !validTag(ref) && !validSHA256Digest(ref) {
		return nil, "", fmt.Errorf("%q is neither a tag nor a sha256 digest", ref)
	}
	u := c.base + "/v2/" + c.repo + "/manifests/" + ref
	resp, err := c.get(ctx, u, manifestAccept)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	data, err := readCapped(resp, u, maxManifestSize)
	if err != nil {
		return nil, "", err
	}
	got := sha256Digest(data)
	if said := resp.Header.Get("Docker-Content-Digest"); strings.HasPrefix(said, "sha256:") && said != got {
		return nil, "", fmt.Errorf("GET %s: digest mismatch: the registry says %s, the manifest's bytes are %s", u, said, got)
	}
	if strings.HasPrefix(ref, "sha256:") && ref != got {
		return nil, "", fmt.Errorf("GET %s: digest mismatch: asked for %s, the manifest's bytes are %s", u, ref, got)
	}
	return data, got, nil
}

// blob fetches the blob d describes (redirects followed, as registries
// send blobs to storage elsewhere), verified against its size and digest.
func (c *registryClient) blob(ctx context.Context, d descriptor) ([]byte, error) {
	if !validSHA256Digest(d.Digest) {
		return nil, fmt.Errorf("blob digest %q: not a sha256 digest", d.Digest)
	}
	if d.Size < 0 {
		return nil, fmt.Errorf("blob %s: negative size %d", d.Digest, d.Size)
	}
	u := c.base + "/v2/" + c.repo + "/blobs/" + d.Digest
	resp, err := c.get(ctx, u, "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, d.Size+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", u, err)
	}
	if int64(len(data)) != d.Size {
		return nil, fmt.Errorf("GET %s: size mismatch: the manifest says %d bytes, the registry sent %s", u, d.Size, sentSize(len(data), d.Size))
	}
	if got := sha256Digest(data); got != d.Digest {
		return nil, fmt.Errorf("GET %s: digest mismatch: the blob's bytes are %s", u, got)
	}
	return data, nil
}

func sentSize(n int, want int64) string {
	if int64(n) > want {
		return "more"
	}
	return fmt.Sprint(n)
}

// tags calls each with every page of the repository's tags, following the
// Link headers of a paginated list.
func (c *registryClient) tags(ctx context.Context, each func([]string)) error {
	u := c.base + "/v2/" + c.repo + "/tags/list"
	seen := map[string]bool{}
	for page := 0; u != ""; page++ {
		if page == maxTagPages || seen[u] {
			return fmt.Errorf("GET %s: the tag list does not end (%d pages)", u, page)
		}
		seen[u] = true
		resp, err := c.get(ctx, u, "application/json")
		if err != nil {
			return err
		}
		data, err := readCapped(resp, u, maxTagPageSize)
		link := resp.Header.Get("Link")
		resp.Body.Close()
		if err != nil {
			return err
		}
		var list struct {
			Tags []string `json:"tags"`
		}
		if err := json.Unmarshal(data, &list); err != nil {
			return fmt.Errorf("GET %s: not a tag list: %v", u, err)
		}
		each(list.Tags)
		if u, err = c.nextPage(resp.Request.URL, link); err != nil {
			return err
		}
	}
	return nil
}

// nextPage is the URL of the Link header's rel="next", resolved against
// the page's URL, or "" on the last page. It must stay on the registry:
// the bearer token goes with it.
func (c *registryClient) nextPage(page *url.URL, link string) (string, error) {
	for _, l := range strings.Split(link, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(l), ";")
		target = strings.TrimSpace(target)
		if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") || !relNext(params) {
			continue
		}
		next, err := page.Parse(target[1 : len(target)-1])
		if err != nil {
			return "", fmt.Errorf("GET %s: bad Link header %q: %v", page, link, err)
		}
		if next.Scheme+"://"+next.Host != c.base {
			return "", fmt.Errorf("GET %s: the next page of tags is on another host (%s)", page, next.Host)
		}
		return next.String(), nil
	}
	return "", nil
}

func relNext(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(k, "rel") && strings.Trim(v, `"`) == "next" {
			return true
		}
	}
	return false
}

// readCapped reads resp's body, an error when it is over limit bytes.
func readCapped(resp *http.Response, u string, limit int64) ([]byte, error) {
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("GET %s: %d bytes, larger than %d MB: not read", u, resp.ContentLength, limit>>20)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", u, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("GET %s: larger than %d MB: not read", u, limit>>20)
	}
	return data, nil
}

// get GETs u, answering one Bearer challenge with an anonymous token; the
// response is 200, else an error naming the URL and the status (a 404
// wraps errNotFound).
func (c *registryClient) get(ctx context.Context, u, accept string) (*http.Response, error) {
	resp, err := c.send(ctx, u, accept)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized {
		challenge := resp.Header.Get("WWW-Authenticate")
		drain(resp)
		if err := c.fetchToken(ctx, challenge); err != nil {
			return nil, fmt.Errorf("GET %s: 401 Unauthorized: %v", u, err)
		}
		if resp, err = c.send(ctx, u, accept); err != nil {
			return nil, err
		}
	}
	if resp.StatusCode == http.StatusOK {
		return resp, nil
	}
	defer drain(resp)
	msg := registryErrorMessage(resp.Body)
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("GET %s: %s%s: %w", u, resp.Status, msg, errNotFound)
	}
	return nil, fmt.Errorf("GET %s: %s%s", u, resp.Status, msg)
}

func (c *registryClient) send(ctx context.Context, u, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "shipshape")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if c.token != "" {
		// net/http drops this header on a redirect to another host (a
		// blob's storage), which does not want it.
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return c.client.Do(req)
}

// drain reads a little of a body before closing it, so that the
// connection can be used again.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// registryErrorMessage is ": CODE: message" of a distribution-spec error
// body, or "" when the body is not one.
func registryErrorMessage(body io.Reader) string {
	var e struct {
		Errors []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	data, _ := io.ReadAll(io.LimitReader(body, 64<<10))
	if json.Unmarshal(data, &e) != nil || len(e.Errors) == 0 {
		return ""
	}
	return ": " + e.Errors[0].Code + ": " + e.Errors[0].Message
}

// fetchToken answers a Bearer challenge: GET its realm with its service
// and scope (the repository's pull scope when it names none), no
// credential, and keep the token or access_token the realm returns.
func (c *registryClient) fetchToken(ctx context.Context, challenge string) error {
	if c.token != "" {
		return errors.New("the registry refused the anonymous token (it asks for credentials, which shipshape does not send)")
	}
	params, ok := parseBearerChallenge(challenge)
	if !ok || params["realm"] == "" {
		return fmt.Errorf("no Bearer challenge with a realm (WWW-Authenticate: %q)", challenge)
	}
	realm, err := url.Parse(params["realm"])
	if err != nil || realm.Scheme != "https" && realm.Scheme != "http" || realm.Host == "" {
		return fmt.Errorf("the token realm %q is not an http(s) URL", params["realm"])
	}
	q := realm.Query()
	if s := params["service"]; s != "" {
		q.Set("service", s)
	}
	scope := params["scope"]
	if scope == "" {
		scope = "repository:" + c.repo + ":pull"
	}
	q.Set("scope", scope)
	realm.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, realm.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "shipshape")
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("anonymous token: %v", err)
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("anonymous token: GET %s: %s", realm, resp.Status)
	}
	data, err := readCapped(resp, realm.String(), maxTokenSize)
	if err != nil {
		return err
	}
	var tok struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(data, &tok); err != nil {
		return fmt.Errorf("anonymous token: GET %s: not a token response: %v", realm, err)
	}
	c.token = tok.Token
	if c.token == "" {
		c.token = tok.AccessToken
	}
	if c.token == "" {
		return fmt.Errorf("anonymous token: GET %s: no token in the response", realm)
	}
	return nil
}

// parseBearerChallenge reads `Bearer k="v",k2=v2,...` (quoted values may
// hold commas, as a scope list does) into its parameters.
func parseBearerChallenge(h string) (map[string]string, bool) {
	scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, false
	}
	params := map[string]string{}
	for {
		rest = strings.TrimLeft(rest, " ,")
		if rest == "" {
			return params, true
		}
		key, after, ok := strings.Cut(rest, "=")
		if !ok {
			return nil, false
		}
		key = strings.ToLower(strings.TrimSpace(key))
		var value strings.Builder
		if strings.HasPrefix(after, `"`) {
			i := 1
			for ; i < len(after) && after[i] != '"'; i++ {
				if after[i] == '\\' && i+1 < len(after) {
					i++
				}
				value.WriteByte(after[i])
			}
			if i == len(after) {
				return nil, false // an unterminated quote
			}
			rest = after[i+1:]
		} else {
			v, r, _ := strings.Cut(after, ",")
			value.WriteString(strings.TrimSpace(v))
			rest = r
		}
		params[key] = value.String()
	}
}
