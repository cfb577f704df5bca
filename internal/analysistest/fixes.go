package analysistest

// Fixes: what `shipshape fix` writes in a case's files, compared with the
// .golden files beside them.

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/fixer"
	"github.com/shipshape-dev/shipshape/internal/unidiff"
)

// checkFixes applies the fixes of res as `shipshape fix --dry-run` would
// and compares each file with its .golden.
func checkFixes(t tester, eng *engine.Engine, res *engine.Result, paths []string, srcs map[string][]byte) {
	t.Helper()
	offered := map[string][]analysis.Finding{}
	for _, fd := range fixer.Fixable(res.Findings) {
		offered[fd.File] = append(offered[fd.File], fd)
	}
	outs := fixer.Files(eng, res, fixer.Options{DryRun: true})
	fixed := map[string][]byte{}
	for _, o := range outs {
		if o.Err != nil {
			t.Errorf("%s: the fixes were not applied: %v", o.Path, o.Err)
			continue
		}
		fixed[o.Path] = o.Out
		applied := map[analysis.FindingKey]int{}
		for _, fd := range o.Applied {
			applied[fd.Key()]++
		}
		for _, fd := range offered[o.Path] {
			if applied[fd.Key()] > 0 {
				applied[fd.Key()]--
				continue
			}
			why := ""
			for _, left := range res.Findings {
				if left.Key() != fd.Key() && left.File == fd.File && left.Line == fd.Line && left.Rule == fd.Rule && strings.HasPrefix(left.Message, fd.Message) {
					why = strings.TrimPrefix(left.Message, fd.Message)
				}
			}
			t.Errorf("%s:%d:%d: the fix of %s (%s) was not applied%s", fd.File, fd.Line, fd.Column, fd.Rule, fd.Fix.Message, why)
		}
	}
	for _, p := range paths {
		got, ok := fixed[p]
		if !ok {
			got = srcs[p]
		}
		changed := !bytes.Equal(got, srcs[p])
		golden := p + ".golden"
		want, err := os.ReadFile(golden)
		exists := err == nil
		if *Update {
			if changed || exists {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatalf("%v", err)
				}
			}
			continue
		}
		switch {
		case !exists && changed:
			t.Errorf("%s: the fixes change the file, and there is no %s (go test -update writes it: review it)\n%s", p, golden,
				unidiff.Unified(p, p+" (fixed)", string(srcs[p]), string(got)))
		case exists && !bytes.Equal(got, want):
			t.Errorf("%s: the fixed file differs from %s:\n%s", p, golden, unidiff.Unified(golden, p+" (fixed)", string(want), string(got)))
		}
	}
}

// checkStrayGoldens reports .golden files whose fixture is no case's input;
// with skipRender, not under dir/render (RunTree's cases, checked there).
func checkStrayGoldens(t tester, dir string, inputs map[string]bool, skipRender bool) {
	t.Helper()
	var stray []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && skipRender && d.IsDir() && d.Name() == RenderDir && filepath.Dir(p) == filepath.Clean(dir) {
			return filepath.SkipDir // RunTree's cases, which it checks
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".golden") && !inputs[strings.TrimSuffix(p, ".golden")] {
			stray = append(stray, p)
		}
		return nil
	})
	sort.Strings(stray)
	for _, p := range stray {
		t.Errorf("%s: no fixture %s to compare it with", p, strings.TrimSuffix(p, ".golden"))
	}
}
