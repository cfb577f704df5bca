package analysistest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

func writeCase(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: %s\n"

// changedData reports each ConfigMap whose data.k differs from the base,
// and the applier it was given, so the test sees what the pass held.
var changedData = &analysis.Rule{ID: "changed-data", Summary: "x", Docs: analysis.StaticDocs(analysis.Documentation{Doc: "x"}), Change: func(p *analysis.ChangePass) {
	for _, h := range p.Head {
		value := func(o *manifest.Object) string { return manifest.ScalarValue(manifest.Path(o.Node, "data", "k")) }
		if b := p.BaseOf(h); b != nil && value(b) != value(h) {
			p.Report(h, h.Node, "", nil, "changed under %s prune=%v", p.Applier.Engine, p.Applier.Prune)
		}
	}
}}

func TestRunChangeCase(t *testing.T) {
	dir := writeCase(t, map[string]string{
		BaseFile:    strings.Replace(cm, "%s", "one", 1),
		HeadFile:    strings.Replace(cm, "%s", "two", 1),
		ApplierFile: "engine: flux\nprune: true\n",
	})
	got, err := RunChangeCase(changedData, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Message != "changed under Flux prune=true" || got[0].File != filepath.Join(dir, HeadFile) {
		t.Fatalf("got %+v", got)
	}
}

func TestRunChangeCaseApplierErrors(t *testing.T) {
	for _, ap := range []string{"engine: flux\nprnue: true\n", "engine: helm\n"} {
		dir := writeCase(t, map[string]string{BaseFile: strings.Replace(cm, "%s", "one", 1), HeadFile: strings.Replace(cm, "%s", "two", 1), ApplierFile: ap})
		if _, err := RunChangeCase(changedData, dir, nil); err == nil || !strings.Contains(err.Error(), ApplierFile) {
			t.Errorf("applier %q: error %v, want one naming %s", ap, err, ApplierFile)
		}
	}
}

func TestRunChangeCaseUnknownEngine(t *testing.T) {
	dir := writeCase(t, map[string]string{BaseFile: strings.Replace(cm, "%s", "one", 1), HeadFile: strings.Replace(cm, "%s", "two", 1)})
	got, err := RunChangeCase(changedData, dir, nil)
	if err != nil || len(got) != 1 || got[0].Message != "changed under an unknown engine prune=false" {
		t.Fatalf("without %s: %+v %v", ApplierFile, got, err)
	}
}
