package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/chartfetch/charttest"
	"github.com/shipshape-dev/shipshape/internal/helmrender"
	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// An Argo CD Application's helm.valueFiles of a chart from a chart
// repository are read from the chart's archive (the repo server resolves
// them in the chart it extracted): rendered with such a file, the chart
// equals `helm template ARCHIVE -f FILE` of the same file.
func TestArchiveValueFileRendersAsHelmTemplate(t *testing.T) {
	helm := testtree.Helm(t)
	archive := filepath.Join(t.TempDir(), "web-1.2.0.tgz")
	if err := os.WriteFile(archive, charttest.Archive(t, filepath.Join("..", "..", "testdata", "fleet-charts", "web"), "web"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, found, ok := archiveValueFile(archive, "./values-prod.yaml")
	if !found || !ok || src.Archive != archive || src.File != "values-prod.yaml" {
		t.Fatalf("values-prod.yaml: found %v, ok %v, %+v", found, ok, src)
	}
	got := equalsHelmTemplate(t, helm, archive, "files", "files", []helmrender.ValuesSource{src}, nil)
	if !strings.Contains(got, "replicas: 6") {
		t.Errorf("the archive's values-prod.yaml was not applied:\n%s", got)
	}
	for _, tc := range []struct {
		name      string
		found, ok bool
	}{
		{"values-none.yaml", false, true},         // missing: ignoreMissingValueFiles decides
		{"../web/values-prod.yaml", false, false}, // out of the chart: Argo CD refuses it
		{"templates", false, true},                // a directory is no file
		{"https://example.com/values.yaml", false, false},
		{"$values/values.yaml", false, false},
	} {
		if _, found, ok := archiveValueFile(archive, tc.name); found != tc.found || ok != tc.ok {
			t.Errorf("%s: found %v, ok %v; want %v, %v", tc.name, found, ok, tc.found, tc.ok)
		}
	}
	if _, _, err := helmrender.ReadArchiveFile(archive, "../x.yaml"); !errors.Is(err, helmrender.ErrOutsideChart) {
		t.Errorf("../x.yaml: %v, want ErrOutsideChart", err)
	}
}
