package rules_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// TestSummariesRoundTripJSON checks that every cross-resource rule's
// summaries are plain data that encoding/json writes and reads back
// unchanged (exported fields; no funcs, interfaces or unexported state):
// a cache keeps them between runs that way. The summaries are those of
// every object of the rules' fixtures (rules/testdata), and every Cross
// rule must produce some, so that the test cannot pass by seeing none.
func TestSummariesRoundTripJSON(t *testing.T) {
	var files []*manifest.File
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, manifest.Parse(path, data, manifest.Context{}))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{}
	for _, r := range rules.All() {
		if r.Cross == nil {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			n := 0
			for _, f := range files {
				for _, obj := range f.Objects {
					v, ok := r.Cross.Summarize(analysis.NewPass(r, obj, cfg, nil))
					if !ok {
						continue
					}
					n++
					data, err := json.Marshal(v)
					if err != nil {
						t.Fatalf("%s: %s/%s: %v", obj.File, obj.Kind, obj.Name, err)
					}
					back := reflect.New(reflect.TypeOf(v))
					if err := json.Unmarshal(data, back.Interface()); err != nil {
						t.Fatalf("%s: %s/%s: %v", obj.File, obj.Kind, obj.Name, err)
					}
					if got := back.Elem().Interface(); !reflect.DeepEqual(got, v) {
						t.Fatalf("%s: %s/%s: the summary changed through encoding/json:\n%#v\nread back as\n%#v", obj.File, obj.Kind, obj.Name, v, got)
					}
				}
			}
			if n == 0 {
				t.Fatal("no fixture object has a summary: nothing was checked")
			}
			t.Logf("%d summaries round-trip", n)
		})
	}
}
