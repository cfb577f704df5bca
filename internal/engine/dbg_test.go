package engine_test

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
)

func TestDbg(t *testing.T) {
	os.Chdir("../../testdata/render/service-patch")
	eng, _ := engine.New(rules.All(), nil, nil, nil)
	ins, _ := manifest.Collect([]string{"."})
	res := eng.RunTree([]string{"."}, slices.Values(ins))
	for _, f := range res.Findings { fmt.Println(f.File, f.Line, f.Rule, f.Message) }
}
