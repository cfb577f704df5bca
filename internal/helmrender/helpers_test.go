package helmrender

import (
	"archive/tar"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// testdataHelm is the repository's testdata/helm.
func testdataHelm(t *testing.T) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", "testdata", "helm")
}

// fleetCorpus is $SHIPSHAPE_FLEET_CORPUS, or shared/fleet-corpus beside the
// repository; the test skips without it.
func fleetCorpus(t *testing.T) string {
	t.Helper()
	dir := fleetCorpusOrEmpty()
	if dir == "" {
		t.Skip("no fleet corpus (set SHIPSHAPE_FLEET_CORPUS, default ../shared/fleet-corpus)")
	}
	return dir
}

func fleetCorpusOrEmpty() string {
	dir := os.Getenv("SHIPSHAPE_FLEET_CORPUS")
	if dir == "" {
		_, self, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(self), "..", "..", "..", "shared", "fleet-corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// umbrellaChart copies testdata/helm/umbrella into a temporary directory and
// vendors testdata/helm/archived into its charts/ as archived-0.1.0.tgz, the
// way `helm dependency build` leaves a dependency: so the chart has one
// subchart as a directory and one as an archive.
func umbrellaChart(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "umbrella")
	testtree.Copy(t, filepath.Join(testdataHelm(t), "umbrella"), dst)
	writeChartArchive(t, filepath.Join(testdataHelm(t), "archived"), "archived",
		filepath.Join(dst, "charts", "archived-0.1.0.tgz"))
	return dst
}

func writeChartArchive(t *testing.T, src, top, archive string) {
	t.Helper()
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		name := top + "/" + filepath.ToSlash(rel)
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	for _, c := range []interface{ Close() error }{tw, gz, f} {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// writeChart writes a chart from file name -> content.
func writeChart(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "chart")
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustRender(t *testing.T, opts Options) *Result {
	t.Helper()
	if opts.ReleaseName == "" {
		opts.ReleaseName = "rel"
	}
	if opts.Namespace == "" {
		opts.Namespace = "ns"
	}
	res, err := Render(opts)
	if err != nil {
		t.Fatalf("Render(%s): %v", opts.ChartDir, err)
	}
	return res
}

// find is the object of that template and kind.
func find(t *testing.T, res *Result, template, kind string) Object {
	t.Helper()
	for _, o := range res.Objects {
		if o.Template == template && field(o.Node, "kind") == kind {
			return o
		}
	}
	t.Fatalf("no %s from %s among %d objects", kind, template, len(res.Objects))
	return Object{}
}

// field is the scalar at a dotted path in a document.
func field(n *yaml.Node, dotted string) string {
	for _, key := range strings.Split(dotted, ".") {
		if n != nil && n.Kind == yaml.SequenceNode {
			i, err := strconv.Atoi(key)
			if err != nil || i >= len(n.Content) {
				return ""
			}
			n = n.Content[i]
			continue
		}
		n = mapValue(n, key)
		if n == nil {
			return ""
		}
	}
	return n.Value
}

// uses are the value uses at a field, keyed "values.path".
func uses(o Object, dotted string) map[string]ValueUse {
	out := map[string]ValueUse{}
	for _, u := range o.Values {
		if strings.Join(u.Field, ".") == dotted {
			out[strings.Join(u.ValuesPath, ".")] = u
		}
	}
	return out
}
