package rules_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/bincodec"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

// TestSummariesRoundTrip checks that every cross-resource rule's
// summaries are plain data that bincodec writes and reads back unchanged,
// and in one encoding (exported fields; no funcs, interfaces or unexported
// state): the per-file cache keeps them between runs that way. The summaries are those of
// every object of the rules' fixtures (rules/testdata), and every Cross
// rule must produce some, so that the test cannot pass by seeing none.
func TestSummariesRoundTrip(t *testing.T) {
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
					data, err := bincodec.Append(nil, v)
					if err != nil {
						t.Fatalf("%s: %s/%s: %v", obj.File, obj.Kind, obj.Name, err)
					}
					back := reflect.New(reflect.TypeOf(v))
					if err := bincodec.Decode(data, back.Interface()); err != nil {
						t.Fatalf("%s: %s/%s: %v", obj.File, obj.Kind, obj.Name, err)
					}
					if got := back.Elem().Interface(); !reflect.DeepEqual(got, v) {
						t.Fatalf("%s: %s/%s: the summary changed through bincodec:\n%#v\nread back as\n%#v", obj.File, obj.Kind, obj.Name, v, got)
					}
					if again, _ := bincodec.Append(nil, back.Elem().Interface()); !bytes.Equal(again, data) {
						t.Fatalf("%s: %s/%s: the summary read back encodes otherwise", obj.File, obj.Kind, obj.Name)
					}
					if err := bincodec.CheckType(reflect.TypeOf(v)); err != nil {
						t.Fatalf("%T: %v", v, err)
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
