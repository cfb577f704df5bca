// Package charttest serves Helm charts on 127.0.0.1 for tests: a chart
// repository (index.yaml and archives) and an OCI registry
// (go-containerregistry's registry, in-process), with the archives built
// from chart directories. Only tests import it: the product links neither
// the registry nor these servers.
package charttest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Archive packs the chart directory dir as `helm package` does: every file
// under a top directory named after the chart (name).
func Archive(t testing.TB, dir, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		hdr := &tar.Header{Name: name + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Chart is one chart version a repository serves.
type Chart struct {
	Name, Version string
	Archive       []byte
	// Digest is what the index says of the archive: "" for its sha256,
	// "-" for no digest, else the text given (a wrong one, for tests).
	Digest string
}

// Server is a loopback server that counts the requests it answers.
type Server struct {
	URL      string // http://127.0.0.1:port
	Host     string // 127.0.0.1:port
	requests atomic.Int64
	srv      *httptest.Server
}

// Requests is how many requests the server has answered.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Close stops the server: later requests are refused.
func (s *Server) Close() { s.srv.Close() }

func serve(t testing.TB, h http.Handler) *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	s.Host = strings.TrimPrefix(s.srv.URL, "http://")
	return s
}

// ServeIndex serves a chart repository: /index.yaml listing charts, each
// archive at the relative URL NAME-VERSION.tgz.
func ServeIndex(t testing.TB, charts ...Chart) *Server {
	t.Helper()
	var index strings.Builder
	index.WriteString("apiVersion: v1\nentries:\n")
	byName := map[string][]Chart{}
	var names []string
	files := map[string][]byte{}
	for _, c := range charts {
		if byName[c.Name] == nil {
			names = append(names, c.Name)
		}
		byName[c.Name] = append(byName[c.Name], c)
		files["/"+c.Name+"-"+c.Version+".tgz"] = c.Archive
	}
	for _, name := range names {
		fmt.Fprintf(&index, "  %s:\n", name)
		for _, c := range byName[name] {
			fmt.Fprintf(&index, "  - name: %s\n    version: %q\n    urls:\n    - %s-%s.tgz\n", c.Name, c.Version, c.Name, c.Version)
			switch c.Digest {
			case "":
				sum := sha256.Sum256(c.Archive)
				fmt.Fprintf(&index, "    digest: %s\n", hex.EncodeToString(sum[:]))
			case "-":
			default:
				fmt.Fprintf(&index, "    digest: %s\n", c.Digest)
			}
		}
	}
	files["/index.yaml"] = []byte(index.String())
	return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
}

// ServeRegistry runs an OCI registry in-process on 127.0.0.1.
func ServeRegistry(t testing.TB) *Server {
	t.Helper()
	return ServeRegistryWith(t, func(reg http.Handler, _ *Server) http.Handler { return reg })
}

// ServeRegistryWith runs an OCI registry in-process on 127.0.0.1 behind
// the handler wrap makes of it (given the server, for its URL), to serve
// what a registry in the wild does and this one does not.
func ServeRegistryWith(t testing.TB, wrap func(reg http.Handler, s *Server) http.Handler) *Server {
	t.Helper()
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	var s *Server
	var h http.Handler
	s = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	h = wrap(reg, s)
	return s
}

// ServeRegistryBehindToken runs an OCI registry that, as ghcr.io and
// Docker Hub do for public images, answers 401 with a Bearer challenge
// until the client brings the token its /token endpoint hands anyone.
// Pushes (PUT, POST, PATCH) are let through without it.
func ServeRegistryBehindToken(t testing.TB) *Server {
	t.Helper()
	return ServeRegistryWith(t, func(reg http.Handler, s *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/token":
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"token":"anonymous-token"}`)
			case r.Method != http.MethodGet && r.Method != http.MethodHead || r.Header.Get("Authorization") == "Bearer anonymous-token":
				reg.ServeHTTP(w, r)
			default:
				w.Header().Set("WWW-Authenticate", `Bearer realm="`+s.URL+`/token",service="charttest",scope="repository:charts:pull"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
			}
		})
	})
}

// Push pushes a chart archive to repository (a path in the registry) with
// Helm's media types, tagged tag, and returns the manifest's digest.
func (s *Server) Push(t testing.TB, repository, tag string, archive []byte, chartJSON string) string {
	t.Helper()
	return s.PushArtifact(t, repository, tag, "application/vnd.cncf.helm.config.v1+json", []byte(chartJSON), archive)
}

// PushArtifact pushes an artifact of one layer with the given config, as
// the distribution API's push goes: each blob in one monolithic upload
// (POST .../blobs/uploads/?digest=), then the manifest (PUT), by tag.
// It returns the manifest's digest.
func (s *Server) PushArtifact(t testing.TB, repository, tag, configMediaType string, configData, archive []byte) string {
	t.Helper()
	push := func(mediaType string, data []byte) map[string]any {
		digest := sha256Hex(data)
		put(t, http.MethodPost, s.URL+"/v2/"+repository+"/blobs/uploads/?digest="+digest, "", data)
		return map[string]any{"mediaType": mediaType, "digest": digest, "size": len(data)}
	}
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        push(configMediaType, configData),
		"layers":        []any{push("application/vnd.cncf.helm.chart.content.v1.tar+gzip", archive)},
	})
	if err != nil {
		t.Fatal(err)
	}
	put(t, http.MethodPut, s.URL+"/v2/"+repository+"/manifests/"+tag, "application/vnd.oci.image.manifest.v1+json", manifest)
	return sha256Hex(manifest)
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// put sends data to url with method, and fails t unless it is created.
func put(t testing.TB, method, url, contentType string, data []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %s %s", method, url, resp.Status, body)
	}
}
