package fixer

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
	"github.com/shipshape-dev/shipshape/transformers"
)

// Options says how Files writes.
type Options struct {
	// DryRun writes nothing (--diff, --check, and stdin, whose fixed bytes
	// the caller prints).
	DryRun bool
	// Roots are the paths given on the command line: nothing outside
	// them and their repository is written (scope.Of).
	Roots []string
}

// FileFix is what fixing one file produced. When Err is set nothing was
// written for the file.
type FileFix struct {
	Path      string
	Orig, Out []byte // whole file bytes, BOM included
	Applied   []analysis.Finding
	Err       error

	skipped []skip
}

// Changed reports whether the file is (or would be) rewritten.
func (o *FileFix) Changed() bool { return o.Err == nil && !bytes.Equal(o.Orig, o.Out) }

const bom = "\xef\xbb\xbf"

// Files applies the fixes of a lint run's findings (made with
// engine.KeepSource) to the files' bytes, verifies the whole result, fixes
// in further passes what the fixes uncovered, and writes each changed file
// atomically, once, unless opt.DryRun. It returns an outcome for each file
// that had something to fix, the passes' edits together, and
// leaves in res the findings that are left: where the file was written,
// as found in the new bytes; where a file not rewritten was, as found in
// it with the others fixed; otherwise as found before, the applied ones
// removed.
func Files(eng *engine.Engine, res *engine.Result, opt Options) []*FileFix {
	tried := map[triedKey]bool{}
	outs, after := fixPass(eng, res, nil, tried)
	if len(outs) == 0 {
		return nil
	}
	byPath := map[string]*FileFix{}
	for _, o := range outs {
		byPath[o.Path] = o
	}
	// A fix can uncover fixable findings: a kustomization quoted so that
	// its root renders shows what the root's patches hold. The next pass
	// fixes those, from the bytes the passes before made, verified the
	// same way; the bound stops a fix that keeps making work.
	for pass := 1; pass < maxPasses; pass++ {
		base := map[string][]byte{}
		for _, o := range outs {
			if o.Changed() {
				base[o.Path] = o.Out
			}
		}
		next, nextAfter := fixPass(eng, after, base, tried)
		progress := false
		for _, n := range next {
			o := byPath[n.Path]
			if o == nil {
				o = &FileFix{Path: n.Path, Orig: n.Orig, Out: n.Orig}
				outs = append(outs, o)
				byPath[o.Path] = o
			}
			o.skipped = append(o.skipped, n.skipped...)
			switch {
			case n.Err != nil: // the file keeps what the passes before made
				for _, fd := range n.Applied {
					o.skipped = append(o.skipped, skip{fd, n.Err})
				}
			case n.Changed():
				o.Out = n.Out
				o.Applied = append(o.Applied, n.Applied...)
				progress = true
			}
		}
		after = nextAfter
		if !progress {
			break
		}
	}
	writeFailed := false
	// One file may be linted under two names (a symbolic link to it): it
	// is written once, under the first.
	written := map[string]*FileFix{}
	sc := scope.Of(opt.Roots)
	for _, o := range outs {
		if !o.Changed() || opt.DryRun || o.Path == manifest.Stdin {
			continue
		}
		real, rerr := resolve(o.Path, sc)
		if rerr != nil {
			o.Err = rerr
			writeFailed = true
			continue
		}
		if first := written[real]; first != nil {
			if !bytes.Equal(first.Orig, o.Orig) || !bytes.Equal(first.Out, o.Out) {
				o.Err = fmt.Errorf("the same file as %s, whose fixes differ; not written", first.Path)
				writeFailed = true
			}
			continue
		}
		written[real] = o
		snap, err := Take(o.Path, o.Orig)
		if err == nil {
			err = WriteFile(o.Path, o.Out, snap, sc)
		}
		o.Err = err
		writeFailed = writeFailed || err != nil
	}
	for _, fr := range res.Files {
		o := byPath[fr.Input.Path]
		var skipped []skip
		if o != nil {
			skipped = o.skipped
		}
		switch {
		case o != nil && o.Err != nil:
			o.Applied = nil
		case o != nil && o.Changed():
			if !opt.DryRun && o.Path != manifest.Stdin {
				fr.Findings = markSkipped(fileIn(after, fr.Input.Path).Findings, skipped)
			} else { // as the file still is, at its positions
				still, uncovered := matchFound(fr.Findings, fileIn(after, fr.Input.Path).Findings)
				// What the fixes uncovered (a root that renders once its
				// kustomization is fixed) is left too, at its place in
				// the fixed bytes.
				fr.Findings = append(remaining(still, o.Applied, skipped), markSkipped(uncovered, skipped)...)
			}
		case !writeFailed && fr.Input.Path != manifest.Stdin:
			// Unchanged, but what it gets may depend on the fixed files:
			// a root's render-error that a base's fixed kustomization
			// caused, a Service whose pods a fix relabelled.
			fr.Findings = markSkipped(fileIn(after, fr.Input.Path).Findings, skipped)
		default:
			fr.Findings = remaining(fr.Findings, nil, skipped)
		}
	}
	res.Findings = res.Findings[:0]
	for _, fr := range res.Files {
		res.Findings = append(res.Findings, fr.Findings...)
	}
	return outs
}

// matchFound splits the findings: those of before that the fixed bytes
// still get (after), told by rule, field and message, whatever line the
// fix moved them to (a render-error the fixed value caused is gone too),
// and those of after that before did not have.
func matchFound(before, after []analysis.Finding) (still, added []analysis.Finding) {
	type id struct{ rule, field, msg string }
	left := map[id]int{}
	for _, f := range after {
		left[id{f.Rule, f.Field, f.Message}]++
	}
	for _, f := range before {
		if k := (id{f.Rule, f.Field, f.Message}); left[k] > 0 {
			left[k]--
			still = append(still, f)
		}
	}
	for _, f := range after {
		if k := (id{f.Rule, f.Field, f.Message}); left[k] > 0 {
			left[k]--
			added = append(added, f)
		}
	}
	return still, added
}

// triedKey is a finding whose fix a pass tried, in its file.
type triedKey struct {
	file    string
	finding analysis.FindingKey
}

// maxPasses bounds the passes Files makes.
const maxPasses = 5

// fixPass fixes the fixable findings of res not tried in a pass before
// (tried, by file and Key, which it extends), on the files' bytes as res
// read them, and verifies the result with the files in base (the passes
// before) read from there. It returns the outcomes and the verifying lint;
// after is res when there was nothing to fix.
func fixPass(eng *engine.Engine, res *engine.Result, base map[string][]byte, tried map[triedKey]bool) (outs []*FileFix, after *engine.Result) {
	for _, fr := range res.Files {
		var fixes []analysis.Finding
		for _, fd := range Fixable(fr.Findings) {
			if k := (triedKey{fr.Input.Path, fd.Key()}); !tried[k] {
				tried[k] = true
				fixes = append(fixes, fd)
			}
		}
		if len(fixes) == 0 || fr.File == nil {
			continue
		}
		outs = append(outs, fixFile(fr.File, fixes))
	}
	if len(outs) == 0 {
		return nil, res
	}
	return outs, verifyFiles(eng, res, outs, base)
}

// fixFile plans and applies one file's fixes: its bytes are parsed once,
// each finding's edits resolved on that parse, and the byte applier makes
// them (all at once, else one by one).
func fixFile(file *manifest.File, fixes []analysis.Finding) *FileFix {
	o := &FileFix{Path: file.Path, Orig: file.Src}
	if file.BOM {
		o.Orig = append([]byte(bom), file.Src...)
	}
	o.Out = o.Orig
	f := manifest.Parse(file.Path, file.Src, file.Context)
	objects := map[[2]int]*manifest.Object{}
	for _, obj := range f.Objects {
		objects[[2]int{obj.Doc, obj.Item}] = obj
	}
	var opLists []*yaml.Node // the file's documents, read when a fix lands in one that is no object
	resolved := map[analysis.FindingKey][]transformers.Edit{}
	var ready []analysis.Finding
	for _, fd := range fixes {
		target, err := targetOf(objects[[2]int{fd.Doc, fd.Item}], fd, func(doc int) *yaml.Node {
			if opLists == nil {
				opLists, _ = manifest.DocumentRoots(f.Src)
			}
			if doc < len(opLists) {
				return opLists[doc]
			}
			return nil
		})
		var edits []transformers.Edit
		if err == nil {
			edits, err = resolveEdits(target, fd)
		}
		if obj := objects[[2]int{fd.Doc, fd.Item}]; err == nil && obj != nil && obj.Partial {
			edits = collapseEmptied(target, edits)
		}
		if err != nil {
			o.skipped = append(o.skipped, skip{fd, err})
			continue
		}
		resolved[fd.Key()] = edits
		ready = append(ready, fd)
	}
	out, applied, skipped := applyGreedy(ready, func(set []analysis.Finding) ([]byte, error) {
		var edits []transformers.Edit
		for _, fd := range set {
			edits = append(edits, resolved[fd.Key()]...)
		}
		return transformers.ApplyBytes(f.Src, edits)
	})
	o.skipped = append(o.skipped, skipped...)
	if len(applied) > 0 {
		o.Applied = applied
		o.Out = out
		if file.BOM {
			o.Out = append([]byte(bom), out...)
		}
	}
	return o
}

// targetOf is the tree fd's edits address: its object's, or, for a
// finding placed from a rendered object in a JSON patch, the document of
// the file that is the list of ops (doc returns document i's root).
func targetOf(obj *manifest.Object, fd analysis.Finding, doc func(i int) *yaml.Node) (*yaml.Node, error) {
	if obj == nil {
		if fd.Roots != nil && fd.Item < 0 {
			if n := doc(fd.Doc); n != nil && n.Kind == yaml.SequenceNode {
				return n, nil
			}
		}
		return nil, fmt.Errorf("%s is no longer in document %d", fd.Resource.Label(), fd.Doc+1)
	}
	// A finding placed from a rendered object names the rendered object,
	// not its source (a patch, a base with a name prefix yet to come).
	if fd.Roots == nil && obj.Resource != fd.Resource {
		return nil, fmt.Errorf("document %d now holds %s, not %s", fd.Doc+1, obj.Resource.Label(), fd.Resource.Label())
	}
	return obj.Node, nil
}

// resolveEdits turns fd's edits into edits on the tree at target.
func resolveEdits(target *yaml.Node, fd analysis.Finding) ([]transformers.Edit, error) {
	var out []transformers.Edit
	for _, e := range fd.Fix.Edits {
		r, err := transformers.Resolve(target, e)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// verifyFiles lints the run again with the changed files' new bytes, the
// cross-resource rules included, and keeps the changes of the files that
// pass: the same number of documents, the applied findings gone and
// nothing new in any file. A file that fails is left as it was (Err says
// why), and the rest is verified again without it, since cross-resource
// findings span files. The files in base (changed by a pass before) are
// read from there. It returns the last lint.
func verifyFiles(eng *engine.Engine, res *engine.Result, outs []*FileFix, base map[string][]byte) *engine.Result {
	for {
		changed := maps.Clone(base)
		if changed == nil {
			changed = map[string][]byte{}
		}
		mine := map[string]bool{}
		for _, o := range outs {
			if o.Changed() {
				changed[o.Path] = o.Out
				mine[o.Path] = true
			}
		}
		after := eng.Relint(res, changed)
		applied := map[string][]analysis.Finding{}
		for _, o := range outs {
			if o.Changed() {
				applied[o.Path] = o.Applied
			}
		}
		failed := false
		for _, fr := range res.Files {
			path := fr.Input.Path
			a := fileIn(after, path)
			if _, ok := changed[path]; !ok && len(a.Findings) == len(fr.Findings) {
				continue // unchanged, and its cross-resource findings too
			}
			err := verify(fr.Findings, applied[path], a.Findings, uncovers(res, after, path))
			if err == nil && a.File != nil && fr.File != nil && a.File.Docs != fr.File.Docs {
				err = fmt.Errorf("fixed output has %d documents instead of %d; not written", a.File.Docs, fr.File.Docs)
			}
			if err == nil {
				continue
			}
			// Undo the file that failed, or, when a file this pass did
			// not change fails, every change (a cross-resource fix went
			// wrong).
			for _, o := range outs {
				if o.Changed() && (o.Path == path || !mine[path]) {
					o.Err = err
					if o.Path != path {
						o.Err = fmt.Errorf("fixing it would change the findings of %s: %w", path, err)
					}
					failed = true
				}
			}
			break
		}
		if !failed {
			return after
		}
	}
}

// uncovers reports whether the file at path belongs, after the fixes, to
// a kustomize root that failed to render before them (a kustomization
// the fixes quoted): its findings were those of its files as written.
// A root that still fails after them fails further on: kustomize stops
// at the first problem, and the one it meets now was hidden before.
func uncovers(before, after *engine.Result, path string) bool {
	roots := after.RootsOf(path)
	for _, fd := range fileIn(after, path).Findings {
		if fd.Rule == engine.RenderErrorID {
			roots = append(roots, fd.Roots...)
		}
	}
	if len(roots) == 0 {
		return false
	}
	for _, fd := range before.Findings {
		if fd.Rule == engine.RenderErrorID && slices.ContainsFunc(fd.Roots, func(r string) bool { return slices.Contains(roots, r) }) {
			return true
		}
	}
	return false
}

// fileIn is the result for path in res; an empty one when res has none
// (a file of an application that got no finding this time).
func fileIn(res *engine.Result, path string) *engine.FileResult {
	for _, fr := range res.Files {
		if fr.Input.Path == path {
			return fr
		}
	}
	return &engine.FileResult{}
}

// markSkipped gives the findings whose fix was skipped the reason, and
// takes their fix away.
func markSkipped(fs []analysis.Finding, skipped []skip) []analysis.Finding {
	if len(skipped) == 0 {
		return fs
	}
	why := map[analysis.FindingKey]error{}
	for _, s := range skipped {
		why[s.finding.Key()] = s.err
	}
	out := make([]analysis.Finding, len(fs))
	for i, fd := range fs {
		if err, ok := why[fd.Key()]; ok && fd.Fixable() {
			fd = notFixed(fd, err)
		}
		out[i] = fd
	}
	return out
}
