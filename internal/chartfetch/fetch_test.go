package chartfetch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/chartfetch"
	"github.com/shipshape-dev/shipshape/internal/chartfetch/charttest"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// versions are three releases of one chart, archives that differ.
func versions(t *testing.T) []charttest.Chart {
	var out []charttest.Chart
	for _, v := range []string{"1.0.0", "1.2.0", "2.0.0-rc.1"} {
		dir := t.TempDir()
		testtree.Copy(t, filepath.Join("testdata", "web"), dir)
		os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte("apiVersion: v2\nname: web\nversion: "+v+"\n"), 0o644)
		out = append(out, charttest.Chart{Name: "web", Version: v, Archive: charttest.Archive(t, dir, "web")})
	}
	return out
}

func fetch(t *testing.T, f *chartfetch.Fetcher, r chartfetch.Request) (chartfetch.Archive, error) {
	t.Helper()
	return f.Fetch(context.Background(), r)
}

func TestIndexVersionsAndCache(t *testing.T) {
	charts := versions(t)
	srv := charttest.ServeIndex(t, charts...)
	cache := t.TempDir()
	cases := []struct{ version, want string }{
		{"1.0.0", "1.0.0"},
		{"^1.0.0", "1.2.0"}, // the highest the range admits
		{"", "1.2.0"},       // latest stable: the release candidate is not
		{">=2.0.0-0", "2.0.0-rc.1"},
	}
	f := chartfetch.New(cache)
	for _, c := range cases {
		a, err := fetch(t, f, chartfetch.Request{IndexURL: srv.URL, Chart: "web", Version: c.version})
		if err != nil {
			t.Fatalf("%q: %v", c.version, err)
		}
		if a.Version != c.want {
			t.Errorf("%q: got version %s, want %s", c.version, a.Version, c.want)
		}
		data, _ := os.ReadFile(a.Path)
		if want := archiveOf(charts, c.want); string(data) != string(want) {
			t.Errorf("%q: the archive cached is not version %s's", c.version, c.want)
		}
	}
	// A second run, the server stopped: everything from the cache.
	srv.Close()
	f = chartfetch.New(cache)
	for _, c := range cases {
		a, err := fetch(t, f, chartfetch.Request{IndexURL: srv.URL, Chart: "web", Version: c.version})
		if err != nil || a.Version != c.want {
			t.Errorf("%q from the cache: %v, %v", c.version, a.Version, err)
		}
	}
}

func archiveOf(charts []charttest.Chart, version string) []byte {
	for _, c := range charts {
		if c.Version == version {
			return c.Archive
		}
	}
	return nil
}

// An archive damaged in the cache is not used: it is fetched again, and
// without the server it is an error.
func TestCacheDamagedIsNotUsed(t *testing.T) {
	srv := charttest.ServeIndex(t, versions(t)...)
	cache := t.TempDir()
	r := chartfetch.Request{IndexURL: srv.URL, Chart: "web", Version: "1.0.0"}
	a, err := fetch(t, chartfetch.New(cache), r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.Path, []byte("altered"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := srv.Requests()
	if _, err := fetch(t, chartfetch.New(cache), r); err != nil {
		t.Fatal(err)
	}
	if srv.Requests() == before {
		t.Error("the damaged archive was used")
	}
	data, _ := os.ReadFile(a.Path)
	if string(data) == "altered" {
		t.Error("the damaged archive was not replaced")
	}
	os.WriteFile(a.Path, []byte("altered"), 0o644)
	srv.Close()
	if _, err := fetch(t, chartfetch.New(cache), r); err == nil {
		t.Error("a damaged archive was used with the server stopped")
	}
}

func TestIndexFailures(t *testing.T) {
	charts := versions(t)
	charts[0].Digest = strings.Repeat("0", 64)
	srv := charttest.ServeIndex(t, charts...)
	notIndex := charttest.ServeIndex(t) // entries: none
	cases := []struct {
		r    chartfetch.Request
		want string
	}{
		{chartfetch.Request{IndexURL: srv.URL, Chart: "web", Version: "1.0.0"}, "digest mismatch"},
		{chartfetch.Request{IndexURL: srv.URL, Chart: "web", Version: "3.0.0"}, `no "web" chart with version matching "3.0.0"`},
		{chartfetch.Request{IndexURL: srv.URL, Chart: "api", Version: "1.0.0"}, `the index has no chart "api"`},
		{chartfetch.Request{IndexURL: srv.URL + "/nothing", Chart: "web", Version: "1.0.0"}, "404 Not Found"},
		{chartfetch.Request{IndexURL: notIndex.URL, Chart: "web", Version: "1.0.0"}, "not a chart repository index"},
		{chartfetch.Request{IndexURL: "http://127.0.0.1:1", Chart: "web", Version: "1.0.0"}, "connection refused"},
	}
	f := chartfetch.New(t.TempDir())
	for _, c := range cases {
		_, err := fetch(t, f, c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.r.Where()) {
			t.Errorf("%+v: got %v, want %q and the URL", c.r, err, c.want)
		}
	}
}

const chartJSON = `{"name":"web","version":"1.2.0","apiVersion":"v2"}`

func TestOCI(t *testing.T) {
	charts := versions(t)
	reg := charttest.ServeRegistry(t)
	d10 := reg.Push(t, "charts/web", "1.0.0", charts[0].Archive, chartJSON)
	reg.Push(t, "charts/web", "1.2.0", charts[1].Archive, chartJSON)
	repo := reg.Host + "/charts/web"
	cache := t.TempDir()
	cases := []struct {
		r    chartfetch.Request
		want string
	}{
		{chartfetch.Request{OCIRepository: repo, Chart: "web", Version: "1.2.0"}, "1.2.0"},
		{chartfetch.Request{OCIRepository: repo, Chart: "web", Version: "1.x", Semver: true}, "1.2.0"},
		{chartfetch.Request{OCIRepository: repo, Chart: "web", Digest: d10}, "1.0.0"},
	}
	for _, run := range []string{"fetched", "cached"} {
		f := chartfetch.New(cache)
		for _, c := range cases {
			c.r.PlainHTTP = true
			a, err := fetch(t, f, c.r)
			if err != nil {
				t.Fatalf("%s %+v: %v", run, c.r, err)
			}
			data, _ := os.ReadFile(a.Path)
			if string(data) != string(archiveOf(charts, c.want)) {
				t.Errorf("%s %+v: not version %s's archive", run, c.r, c.want)
			}
		}
		reg.Close()
	}
}

func TestOCIFailures(t *testing.T) {
	charts := versions(t)
	reg := charttest.ServeRegistry(t)
	reg.Push(t, "charts/web", "1.0.0", charts[0].Archive, chartJSON)
	d12 := reg.Push(t, "charts/web", "1.2.0", charts[1].Archive, chartJSON)
	repo := reg.Host + "/charts/web"
	cases := []struct {
		r    chartfetch.Request
		want string
	}{
		{chartfetch.Request{OCIRepository: repo, Chart: "web", Version: "9.9.9"}, "not found"},
		{chartfetch.Request{OCIRepository: repo, Chart: "web", Version: "5.x", Semver: true}, `no tag matches semver "5.x"`},
		{chartfetch.Request{OCIRepository: repo, Chart: "web", Digest: "sha256:" + strings.Repeat("a", 64)}, "not found"},
		{chartfetch.Request{OCIRepository: reg.Host + "/charts/none", Chart: "none", Version: "1.0.0"}, "not found"},
	}
	f := chartfetch.New(t.TempDir())
	for _, c := range cases {
		c.r.PlainHTTP = true
		_, err := fetch(t, f, c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.r, err, c.want)
		}
	}
	// A pinned digest is the digest fetched: the tag 1.0.0 with 1.2.0's
	// digest is 1.2.0.
	a, err := fetch(t, f, chartfetch.Request{OCIRepository: repo, Chart: "web", Version: "1.0.0", Digest: d12, PlainHTTP: true})
	if data, _ := os.ReadFile(a.Path); err != nil || string(data) != string(charts[1].Archive) {
		t.Errorf("the digest pinned was not what was fetched: %v", err)
	}
	// An image that is not a chart is refused.
	reg.PushArtifact(t, "images/app", "1.0.0", "application/vnd.oci.image.config.v1+json", []byte("{}"), charts[0].Archive)
	_, err = fetch(t, f, chartfetch.Request{OCIRepository: reg.Host + "/images/app", Chart: "app", Version: "1.0.0", PlainHTTP: true})
	if err == nil || !strings.Contains(err.Error(), "is not a Helm chart") {
		t.Errorf("an image was taken for a chart: %v", err)
	}
}

// A registry that hands anonymous tokens (ghcr.io's public charts) is
// pulled from without credentials.
func TestOCIAnonymousToken(t *testing.T) {
	charts := versions(t)
	reg := charttest.ServeRegistryBehindToken(t)
	reg.Push(t, "charts/web", "1.2.0", charts[1].Archive, chartJSON)
	a, err := fetch(t, chartfetch.New(t.TempDir()), chartfetch.Request{OCIRepository: reg.Host + "/charts/web", Chart: "web", Version: "1.2.0", PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(a.Path); string(data) != string(charts[1].Archive) {
		t.Error("not the archive pushed")
	}
}

// An archive over the size cap is not read.
func TestChartSizeCap(t *testing.T) {
	big := make([]byte, chartfetch.MaxChartSize+1)
	srv := charttest.ServeIndex(t, charttest.Chart{Name: "web", Version: "1.0.0", Archive: big, Digest: "-"})
	_, err := fetch(t, chartfetch.New(t.TempDir()), chartfetch.Request{IndexURL: srv.URL, Chart: "web", Version: "1.0.0"})
	if err == nil || !strings.Contains(err.Error(), "larger than 20 MB: not read") {
		t.Errorf("got %v", err)
	}
}
