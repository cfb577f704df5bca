package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestWaysInAgree: `shipshape fix` (files), `shipshape fn` in fix mode (a
// ResourceList) and the legacy kustomize plugin in fix mode (a stream)
// make the same objects of the same input and config: the LWS goldens of
// every engine, whose fixes span objects and files, and the seed example.
func TestWaysInAgree(t *testing.T) {
	cases := map[string][2]string{} // name -> input dir, config
	for _, dir := range lwsCaseDirs(t) {
		cases["lws/"+filepath.Base(dir)] = [2]string{filepath.Join(dir, "input"), filepath.Join(dir, "config.yaml")}
	}
	seedCfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(seedCfg, []byte("apiVersion: shipshape.dev/v1alpha1\nkind: ShipshapeConfig\nmetadata: {name: c}\nspec: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases["examples/gitops-repo"] = [2]string{"../../examples/gitops-repo", seedCfg}
	fixedSomething := 0
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			in, cfg := c[0], c[1]
			original := objectsOf(t, streamOf(t, in))

			work := t.TempDir()
			copyTree(t, in, work)
			runIn(t, work, exitOK, "fix", "--fail-on", "none", "-c", cfg, work)
			byFix := objectsOf(t, streamOf(t, work))

			fnOut := runLWSFn(t, in, fnInput(t, in, cfg))
			byFn := objectsOf(t, fnOut)

			pluginCfg := filepath.Join(t.TempDir(), "plugin.yaml")
			fc, err := yaml.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := fc.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec"), yaml.SetField("mode", yaml.NewStringRNode("fix"))); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(pluginCfg, []byte(fc.MustString()), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if code := run([]string{"plugin-exec", pluginCfg}, bytes.NewReader(streamOf(t, in)), &stdout, &stderr); code != exitOK && code != exitFindings {
				t.Fatalf("plugin-exec: exit %d: %s", code, stderr.String())
			}
			byPlugin := objectsOf(t, stdout.Bytes())

			if !equalObjects(byFix, byFn) {
				t.Errorf("fix and fn differ:\n--- fix ---\n%s\n--- fn ---\n%s", strings.Join(byFix, "\n"), strings.Join(byFn, "\n"))
			}
			if !equalObjects(byFix, byPlugin) {
				t.Errorf("fix and the plugin differ:\n--- fix ---\n%s\n--- plugin ---\n%s", strings.Join(byFix, "\n"), strings.Join(byPlugin, "\n"))
			}
			if !equalObjects(byFix, original) {
				fixedSomething++
			}
		})
	}
	// The comparison would hold trivially if no way in fixed anything.
	if fixedSomething < 4 {
		t.Errorf("only %d cases changed anything when fixed", fixedSomething)
	}
}

// streamOf joins the YAML files of dir, in name order, into one stream.
func streamOf(t *testing.T, dir string) []byte {
	t.Helper()
	files := readTree(t, dir)
	var names []string
	for n := range files {
		if strings.HasSuffix(n, ".yaml") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		b.WriteString("---\n")
		b.Write(files[n])
	}
	return b.Bytes()
}

// objectsOf returns the objects of a stream as canonical JSON (comments,
// styles and the readers' tracking annotations gone), sorted.
func objectsOf(t *testing.T, stream []byte) []string {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(stream), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range nodes {
		if err := kioutil.CopyLegacyAnnotations(n); err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{kioutil.PathAnnotation, kioutil.IndexAnnotation, kioutil.IdAnnotation, kioutil.LegacyPathAnnotation, kioutil.LegacyIndexAnnotation, kioutil.LegacyIdAnnotation, kioutil.SeqIndentAnnotation} {
			if _, err := n.Pipe(yaml.ClearAnnotation(a)); err != nil {
				t.Fatal(err)
			}
		}
		if ann := n.GetAnnotations(); len(ann) == 0 {
			if err := n.PipeE(yaml.Lookup("metadata"), yaml.Clear("annotations")); err != nil {
				t.Fatal(err)
			}
		}
		m, err := n.Map()
		if err != nil {
			t.Fatal(err)
		}
		j, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(j))
	}
	sort.Strings(out)
	return out
}

func equalObjects(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}
