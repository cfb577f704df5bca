package helmrender

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/testtree"
)

// blockScalarChart writes a chart whose documents end in block scalars:
// clipped (`|`, the value ends with one newline), stripped (`|-`) and kept
// (`|+`, trailing blank lines that SplitManifests trims).
func blockScalarChart(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "blocks")
	for name, text := range map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: blocks\nversion: 0.1.0\n",
		"values.yaml": "greeting: hello\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: clip\ndata:\n  conf: |\n    {{ .Values.greeting }}\n    world\n" +
			"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strip\ndata:\n  conf: |-\n    stripped\n" +
			"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\ndata:\n  conf: |+\n    kept\n\n\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type configMap struct {
	Kind     string
	Metadata struct{ Name string }
	Data     map[string]string
}

// configMapData reads every ConfigMap's data from helm template's output
// as one YAML stream (a decoder, not a split on "---": what a consumer of
// the output reads), by name.
func configMapData(t *testing.T, out string) map[string]map[string]string {
	t.Helper()
	data := map[string]map[string]string{}
	dec := yaml.NewDecoder(strings.NewReader(out))
	for {
		var cm configMap
		err := dec.Decode(&cm)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if cm.Kind == "ConfigMap" {
			data[cm.Metadata.Name] = cm.Data
		}
	}
	return data
}

// ourConfigMapData is the same of helmrender's objects, read from their
// nodes (what the rules judge); their texts must say the same.
func ourConfigMapData(t *testing.T, res *Result) map[string]map[string]string {
	t.Helper()
	data := map[string]map[string]string{}
	var text strings.Builder
	for _, o := range res.Objects {
		var cm configMap
		if err := o.Node.Decode(&cm); err != nil {
			t.Fatal(err)
		}
		if cm.Kind == "ConfigMap" {
			data[cm.Metadata.Name] = cm.Data
		}
		text.WriteString("---\n" + o.Text)
	}
	if fromText := configMapData(t, text.String()); !reflect.DeepEqual(fromText, data) {
		t.Errorf("the objects' texts say %q, their nodes %q", fromText, data)
	}
	return data
}

// A block scalar at the end of a rendered document has the value helm
// template's output gives it, final newline and all (the last newline was
// dropped before: lws's ConfigMap `controller_manager_config.yaml: |`).
func TestBlockScalarValuesEqualHelmTemplate(t *testing.T) {
	helm := testtree.Helm(t)
	charts := map[string]string{"blocks": blockScalarChart(t)}
	if fc := fleetCorpusOrEmpty(); fc != "" {
		charts["lws"] = filepath.Join(fc, "kubernetes-sigs+lws", "charts", "lws")
	}
	for name, dir := range charts {
		t.Run(name, func(t *testing.T) {
			out, err := helmTemplate(t, helm, "rel", dir, "--namespace", "ns", "--kube-version", DefaultKubernetesVersion)
			if err != nil {
				t.Fatal(err)
			}
			want := configMapData(t, out)
			if len(want) == 0 {
				t.Fatal("helm rendered no ConfigMap")
			}
			got := ourConfigMapData(t, mustRender(t, Options{ChartDir: dir, ReleaseName: "rel", Namespace: "ns"}))
			for cm, data := range want {
				for key, value := range data {
					if got[cm][key] != value {
						t.Errorf("ConfigMap %s data.%s = %q, helm template's %q", cm, key, got[cm][key], value)
					}
				}
			}
		})
	}
	blocks := ourConfigMapData(t, mustRender(t, Options{ChartDir: charts["blocks"]}))
	if blocks["clip"]["conf"] != "hello\nworld\n" || blocks["strip"]["conf"] != "stripped" || blocks["keep"]["conf"] != "kept\n" {
		t.Errorf("block scalars read %q", blocks)
	}
}
