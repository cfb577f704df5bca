package chartfetch_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/chartfetch"
	"github.com/shipshape-dev/shipshape/internal/chartfetch/charttest"
)

// tokenRealm records what the token endpoint was asked.
type tokenRealm struct {
	mu       sync.Mutex
	queries  []string
	authSent bool
}

func (tr *tokenRealm) asked() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.queries...)
}

// serveBehindToken runs a registry that demands a bearer token for reads,
// with the challenge challenge(s) and the token response body tokenBody;
// accepted is the token it takes (empty: none, it refuses every token).
func serveBehindToken(t *testing.T, challenge func(s *charttest.Server) string, tokenBody, accepted string) (*charttest.Server, *tokenRealm) {
	tr := &tokenRealm{}
	srv := charttest.ServeRegistryWith(t, func(reg http.Handler, s *charttest.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/auth/token":
				tr.mu.Lock()
				tr.queries = append(tr.queries, r.URL.RawQuery)
				tr.authSent = tr.authSent || r.Header.Get("Authorization") != ""
				tr.mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tokenBody)
			case r.Method != http.MethodGet || accepted != "" && r.Header.Get("Authorization") == "Bearer "+accepted:
				reg.ServeHTTP(w, r)
			default:
				w.Header().Set("WWW-Authenticate", challenge(s))
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			}
		})
	})
	return srv, tr
}

// The token flow as Docker Hub runs it: the realm answers access_token,
// the challenge's service and scope (a scope with a comma) are passed on,
// and no Authorization goes to the realm.
func TestOCITokenFlow(t *testing.T) {
	charts := versions(t)
	challenge := func(s *charttest.Server) string {
		return `Bearer realm="` + s.URL + `/auth/token",service="registry.test",scope="repository:charts/web:pull,push"`
	}
	reg, realm := serveBehindToken(t, challenge, `{"access_token":"docker-style","expires_in":300}`, "docker-style")
	reg.Push(t, "charts/web", "1.0.0", charts[0].Archive, chartJSON)
	reg.Push(t, "charts/web", "1.2.0", charts[1].Archive, chartJSON)
	a, err := fetch(t, chartfetch.New(t.TempDir()), chartfetch.Request{OCIRepository: reg.Host + "/charts/web", Chart: "web", Version: "^1.0.0", Semver: true, PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(a.Path); string(data) != string(charts[1].Archive) {
		t.Error("not the archive pushed")
	}
	asked := realm.asked()
	if len(asked) != 1 {
		t.Fatalf("the token was asked for %d times, want once (then kept): %q", len(asked), asked)
	}
	if want := "scope=repository%3Acharts%2Fweb%3Apull%2Cpush&service=registry.test"; asked[0] != want {
		t.Errorf("token query %q, want %q", asked[0], want)
	}
	if realm.authSent {
		t.Error("an Authorization header was sent to the token realm")
	}
}

// A challenge that names no scope gets the repository's pull scope.
func TestOCITokenDefaultScope(t *testing.T) {
	charts := versions(t)
	challenge := func(s *charttest.Server) string { return `Bearer realm="` + s.URL + `/auth/token"` }
	reg, realm := serveBehindToken(t, challenge, `{"token":"t1"}`, "t1")
	reg.Push(t, "charts/web", "1.0.0", charts[0].Archive, chartJSON)
	if _, err := fetch(t, chartfetch.New(t.TempDir()), chartfetch.Request{OCIRepository: reg.Host + "/charts/web", Chart: "web", Version: "1.0.0", PlainHTTP: true}); err != nil {
		t.Fatal(err)
	}
	if asked := realm.asked(); len(asked) != 1 || asked[0] != "scope=repository%3Acharts%2Fweb%3Apull" {
		t.Errorf("token queries %q", asked)
	}
}

// A registry that refuses the anonymous token, or whose realm gives none,
// asks for credentials: an error saying so, not a loop.
func TestOCITokenRefused(t *testing.T) {
	challenge := func(s *charttest.Server) string {
		return `Bearer realm="` + s.URL + `/auth/token",service="registry.test"`
	}
	cases := []struct{ body, want string }{
		{`{"token":"anonymous"}`, "asks for credentials"},
		{`{}`, "no token in the response"},
		{`not json`, "not a token response"},
	}
	for _, c := range cases {
		reg, realm := serveBehindToken(t, challenge, c.body, "")
		_, err := fetch(t, chartfetch.New(t.TempDir()), chartfetch.Request{OCIRepository: reg.Host + "/charts/web", Chart: "web", Version: "1.0.0", PlainHTTP: true})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "401") {
			t.Errorf("token %s: got %v, want %q", c.body, err, c.want)
		}
		if n := len(realm.asked()); n != 1 {
			t.Errorf("token %s: asked %d times, want once", c.body, n)
		}
	}
}

// pagedTags serves the tag list n tags a page, with a Link header to the
// next page while there is one (relative, as distribution writes it), and
// counts the pages.
func pagedTags(n int, pages *int, mu *sync.Mutex) func(reg http.Handler, s *charttest.Server) http.Handler {
	return func(reg http.Handler, s *charttest.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasSuffix(r.URL.Path, "/tags/list") {
				reg.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			*pages++
			mu.Unlock()
			last := r.URL.Query().Get("last")
			r.URL.RawQuery = ""
			rec := httptest.NewRecorder()
			reg.ServeHTTP(rec, r)
			var list struct {
				Name string   `json:"name"`
				Tags []string `json:"tags"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			rest := list.Tags // sorted
			for len(rest) > 0 && last != "" && rest[0] <= last {
				rest = rest[1:]
			}
			if len(rest) > n {
				rest = rest[:n]
				w.Header().Set("Link", `<`+r.URL.Path+`?n=`+strconv.Itoa(n)+`&last=`+rest[n-1]+`>; rel="next"`)
			}
			list.Tags = rest
			json.NewEncoder(w).Encode(list)
		})
	}
}

// A semver range is resolved over every page of a paginated tag list.
func TestOCITagPagination(t *testing.T) {
	charts := versions(t)
	var pages int
	var mu sync.Mutex
	reg := charttest.ServeRegistryWith(t, pagedTags(1, &pages, &mu))
	// Tags sort 1.0.0, 1.2.0, latest: 1.2.0 is on the second page of one.
	reg.Push(t, "charts/web", "1.0.0", charts[0].Archive, chartJSON)
	reg.Push(t, "charts/web", "1.2.0", charts[1].Archive, chartJSON)
	reg.Push(t, "charts/web", "latest", charts[1].Archive, chartJSON)
	a, err := fetch(t, chartfetch.New(t.TempDir()), chartfetch.Request{OCIRepository: reg.Host + "/charts/web", Chart: "web", Version: "1.x", Semver: true, PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Version != "1.2.0" {
		t.Errorf("resolved to %s, want 1.2.0 (on the second page)", a.Version)
	}
	if pages != 3 {
		t.Errorf("%d pages read, want 3", pages)
	}
}

// A Link that leaves the registry is not followed (the token goes with it).
func TestOCITagPaginationStaysOnTheRegistry(t *testing.T) {
	reg := charttest.ServeRegistryWith(t, func(reg http.Handler, s *charttest.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/tags/list") {
				w.Header().Set("Link", `<http://elsewhere.invalid/v2/charts/web/tags/list?last=1.0.0>; rel="next"`)
				fmt.Fprint(w, `{"name":"charts/web","tags":["1.0.0"]}`)
				return
			}
			reg.ServeHTTP(w, r)
		})
	})
	_, err := fetch(t, chartfetch.New(t.TempDir()), chartfetch.Request{OCIRepository: reg.Host + "/charts/web", Chart: "web", Version: "1.x", Semver: true, PlainHTTP: true})
	if err == nil || !strings.Contains(err.Error(), "on another host") {
		t.Errorf("got %v", err)
	}
}

// altered serves the registry with the bodies of GETs whose path holds
// part changed by change, and headers by header.
func altered(part string, change func([]byte) []byte, header func(http.Header)) func(reg http.Handler, s *charttest.Server) http.Handler {
	return func(reg http.Handler, s *charttest.Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, part) {
				reg.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			reg.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				if k != "Content-Length" {
					w.Header()[k] = v
				}
			}
			header(w.Header())
			w.WriteHeader(rec.Code)
			w.Write(change(rec.Body.Bytes()))
		})
	}
}

func same(b []byte) []byte { return b }
func noHeader(http.Header) {}

// What the registry sends is checked: a manifest against the digest pinned
// and the digest the registry states, a blob against its digest and size.
func TestOCIVerification(t *testing.T) {
	charts := versions(t)
	cases := []struct {
		name   string
		wrap   func(reg http.Handler, s *charttest.Server) http.Handler
		pinned bool
		want   string
	}{
		{"manifest altered, digest pinned", altered("/manifests/", func(b []byte) []byte { return append(b, ' ') }, func(h http.Header) { h.Del("Docker-Content-Digest") }), true, "digest mismatch"},
		{"manifest altered, registry's digest", altered("/manifests/", func(b []byte) []byte { return append(b, ' ') }, noHeader), false, "digest mismatch: the registry says"},
		{"registry's digest wrong", altered("/manifests/", same, func(h http.Header) { h.Set("Docker-Content-Digest", "sha256:"+strings.Repeat("b", 64)) }), false, "digest mismatch: the registry says"},
		{"blob altered", altered("/blobs/", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, noHeader), false, "digest mismatch: the blob's bytes are"},
		{"blob short", altered("/blobs/", func(b []byte) []byte { return b[:len(b)-1] }, noHeader), false, "size mismatch"},
		{"blob long", altered("/blobs/", func(b []byte) []byte { return append(b, 0) }, noHeader), false, "size mismatch"},
	}
	for _, c := range cases {
		reg := charttest.ServeRegistryWith(t, c.wrap)
		d := reg.Push(t, "charts/web", "1.0.0", charts[0].Archive, chartJSON)
		r := chartfetch.Request{OCIRepository: reg.Host + "/charts/web", Chart: "web", Version: "1.0.0", PlainHTTP: true}
		if c.pinned {
			r.Digest = d
		}
		_, err := fetch(t, chartfetch.New(t.TempDir()), r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// A blob redirected to storage on another host is followed there, and
// the registry's token does not go with it.
func TestOCIBlobRedirect(t *testing.T) {
	charts := versions(t)
	var mu sync.Mutex
	var storageGets int
	var storageAuth string
	var registry http.Handler
	// The storage holds the registry's own blobs (asked for without a
	// token), on "localhost" where the registry is on 127.0.0.1.
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		storageGets++
		storageAuth += r.Header.Get("Authorization")
		mu.Unlock()
		registry.ServeHTTP(w, r)
	}))
	defer storage.Close()
	storageURL := strings.Replace(storage.URL, "127.0.0.1", "localhost", 1)
	reg := charttest.ServeRegistryWith(t, func(reg http.Handler, s *charttest.Server) http.Handler {
		registry = reg
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method != http.MethodGet:
				reg.ServeHTTP(w, r)
			case r.URL.Path == "/token":
				fmt.Fprint(w, `{"token":"t"}`)
			case r.Header.Get("Authorization") != "Bearer t":
				w.Header().Set("WWW-Authenticate", `Bearer realm="`+s.URL+`/token"`)
				w.WriteHeader(http.StatusUnauthorized)
			case strings.Contains(r.URL.Path, "/blobs/"):
				http.Redirect(w, r, storageURL+r.URL.Path, http.StatusTemporaryRedirect)
			default:
				reg.ServeHTTP(w, r)
			}
		})
	})
	reg.Push(t, "charts/web", "1.0.0", charts[0].Archive, chartJSON)
	a, err := fetch(t, chartfetch.New(t.TempDir()), chartfetch.Request{OCIRepository: reg.Host + "/charts/web", Chart: "web", Version: "1.0.0", PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(a.Path); string(data) != string(charts[0].Archive) {
		t.Error("not the archive pushed")
	}
	mu.Lock()
	defer mu.Unlock()
	if storageGets != 1 || storageAuth != "" {
		t.Errorf("storage: %d GETs, Authorization %q; want 1 GET, none", storageGets, storageAuth)
	}
}
