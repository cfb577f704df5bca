package fixer

// Cross-file fixes: the second pass of `shipshape fix`.
//
// The engine lints files in parallel and drops each file's node tree right
// after its per-file fixes are applied (engine.Hook), so memory stays flat
// over large trees. Cross-resource rules report only at the end of the run
// (Aggregate.Finish), when the trees are gone, and their fixes may touch
// objects in any file: the LWS ordering annotates a LeaderWorkerSet and the
// ConfigMaps, Services and HPAs around it. They are applied here, after the
// run, in a second pass over only the files concerned:
//
//  1. Such a fix holds only SetEntry edits, and their Parent is the root of
//     the object the finding is about (or a stand-in for it: a mapping that
//     shares the object's metadata node, which is all an aggregate keeps).
//     The finding's File, Doc and Resource identify that object.
//  2. Each file concerned is read again: from disk when fixes are written
//     (the first pass may have rewritten it), else (--diff, --check, stdin)
//     the first pass's output bytes.
//  3. It is parsed, each finding's object is found again by document index
//     and resource, and each edit's Parent becomes the fresh object root,
//     whose positions are those of the bytes just read.
//  4. ApplyBytes makes the edits (one by one when they conflict); the result
//     must re-parse to the same documents, re-lint with nothing new, and read
//     back every value set; then it is written atomically with WriteFile,
//     checked against a snapshot of the bytes read in step 2.
//
// In fn mode (internal/krm) every item stays in memory and the same edits are
// applied to the nodes directly with ApplyNodes; this pass is for files only.

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/rules"
	"github.com/shipshape-dev/shipshape/transformers"
)

// CrossOptions says how the second pass reads and writes.
type CrossOptions struct {
	// DryRun: nothing is written; start from the first pass's output.
	DryRun bool
	// Roots are the paths given on the command line (symlink targets
	// outside them are not written).
	Roots []string
}

// CrossFix applies the fixes of cross-resource findings in res, file by
// file, on top of the first pass whose per-file outcomes are in outcomes
// (keyed by path; updated in place: Out, Applied). Applied findings leave
// res; the others lose their fix and say why. It returns one finding per
// file it could not fix, for the caller to print as "cannot fix".
func CrossFix(eng *engine.Engine, res *engine.Result, outcomes map[string]*Outcome, opt CrossOptions) []rules.Finding {
	byFile := map[string][]int{} // path -> indexes into its FileResult's findings
	var paths []string
	index := map[string]*engine.FileResult{}
	for _, fr := range res.Files {
		if fr == nil {
			continue
		}
		index[fr.Input.Path] = fr
		for i, fd := range fr.Findings {
			if cross(fd) {
				if byFile[fr.Input.Path] == nil {
					paths = append(paths, fr.Input.Path)
				}
				byFile[fr.Input.Path] = append(byFile[fr.Input.Path], i)
			}
		}
	}
	if len(paths) == 0 {
		return nil
	}
	sort.Strings(paths)
	var failures []rules.Finding
	kusts := &manifest.Kustomizations{}
	for _, path := range paths {
		fr := index[path]
		o := outcomes[path]
		var left map[int]rules.Finding
		var err error
		if o != nil && o.Err != nil {
			// The first pass failed on this file and says so; leave it.
			err = errors.New("the file's other fixes could not be applied")
		} else if left, err = crossFile(eng, fr, byFile[path], o, outcomes, kusts, opt); err != nil {
			failures = append(failures, rules.Finding{Rule: "fix", Severity: rules.Error, File: path,
				Message: "cannot fix: " + err.Error(), Doc: -1})
		}
		if err != nil {
			left = map[int]rules.Finding{}
			for _, i := range byFile[path] {
				fd := fr.Findings[i]
				fd.Message += " (not fixed: " + err.Error() + ")"
				fd.Fix = nil
				left[i] = fd
			}
		}
		kept := fr.Findings[:0]
		for i, fd := range fr.Findings {
			if cross(fd) {
				var ok bool
				if fd, ok = left[i]; !ok {
					continue // applied
				}
			}
			kept = append(kept, fd)
		}
		fr.Findings = kept
	}
	res.Findings = res.Findings[:0]
	for _, fr := range res.Files {
		if fr != nil {
			res.Findings = append(res.Findings, fr.Findings...)
		}
	}
	return failures
}

// cross reports a finding whose fix this pass applies: a fix from a rule
// that only aggregates. Per-file findings that still carry a fix after the
// first pass (their file failed to verify) are not retried here.
func cross(fd rules.Finding) bool {
	if fd.Fix == nil || len(fd.Fix.Edits) == 0 {
		return false
	}
	r := rules.Get(fd.Rule)
	return r != nil && r.Check == nil && r.NewAggregate != nil
}

// crossFile applies the fixes of the findings at idx of fr to its file. It
// returns the findings it could not apply, without their fix and saying
// why, by index; an error means none was applied.
func crossFile(eng *engine.Engine, fr *engine.FileResult, idx []int, o *Outcome, outcomes map[string]*Outcome, kusts *manifest.Kustomizations, opt CrossOptions) (map[int]rules.Finding, error) {
	path := fr.Input.Path
	var data []byte
	var err error
	fromDisk := !opt.DryRun && path != manifest.Stdin
	switch {
	case fromDisk:
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
	case o != nil:
		data = o.Out
	default:
		return nil, errors.New("the first pass did not read this file")
	}
	f := manifest.Parse(path, data, kusts.For(path))
	if f.Template != "" {
		return nil, errors.New("the file is now a template")
	}
	left := map[int]rules.Finding{}
	var fixable []rules.Finding
	var at []int // fixable[k] is fr.Findings[at[k]]
	for _, i := range idx {
		moved, err := remap(f, fr.Findings[i])
		if err != nil {
			fd := fr.Findings[i]
			fd.Message += " (not fixed: " + err.Error() + ")"
			fd.Fix = nil
			left[i] = fd
			continue
		}
		fixable = append(fixable, moved)
		at = append(at, i)
	}
	if len(fixable) == 0 {
		return left, nil
	}
	out, applied, skipped := applyAll(f.Src, fixable)
	if len(applied) == 0 {
		for k, fd := range fixable {
			if s := find(skipped, fd); s != nil {
				left[at[k]] = *s
			}
		}
		return left, nil
	}
	if err := verify(eng, f, out, eng.Lint(f), nil); err != nil {
		return nil, err
	}
	if err := readBack(f, out, applied); err != nil {
		return nil, err
	}
	if f.BOM {
		out = append([]byte("\xef\xbb\xbf"), out...)
	}
	if fromDisk {
		snap, err := Take(path, data)
		if err == nil {
			err = WriteFile(path, out, snap, opt.Roots)
		}
		if err != nil {
			return nil, err
		}
	}
	if o == nil {
		o = &Outcome{Path: path, Orig: data}
		outcomes[path] = o
	}
	o.Out = out
	for k, fd := range fixable {
		if s := find(skipped, fd); s != nil {
			left[at[k]] = *s
			continue
		}
		o.Applied = append(o.Applied, fr.Findings[at[k]])
	}
	engine.SortFindings(o.Applied)
	return left, nil
}

// find returns the copy of fd in fs (applyAll returns copies), or nil.
func find(fs []rules.Finding, fd rules.Finding) *rules.Finding {
	for i, x := range fs {
		if x.Rule == fd.Rule && x.Doc == fd.Doc && x.Resource == fd.Resource && x.Line == fd.Line && x.Column == fd.Column {
			return &fs[i]
		}
	}
	return nil
}

// object finds the finding's object in f: the one of its document with its
// resource identity.
func object(f *manifest.File, fd rules.Finding) (*manifest.Object, error) {
	var found *manifest.Object
	for _, obj := range f.Objects {
		if obj.Doc == fd.Doc && obj.Resource == fd.Resource {
			if found != nil {
				return nil, fmt.Errorf("%s %s appears twice in document %d", fd.Resource.Kind, fd.Resource.Name, fd.Doc+1)
			}
			found = obj
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%s %s is no longer in document %d", fd.Resource.Kind, fd.Resource.Name, fd.Doc+1)
	}
	return found, nil
}

// remap returns fd with its edits moved onto its object's root in f.
func remap(f *manifest.File, fd rules.Finding) (rules.Finding, error) {
	obj, err := object(f, fd)
	if err != nil {
		return fd, err
	}
	fix := &transformers.Fix{Message: fd.Fix.Message}
	for _, e := range fd.Fix.Edits {
		if e.Op != transformers.SetEntry {
			return fd, fmt.Errorf("a cross-file fix can only set entries, not %s", e.Op)
		}
		e.Parent = obj.Node
		fix.Edits = append(fix.Edits, e)
	}
	fd.Fix = fix
	return fd, nil
}

// readBack checks that every value the applied fixes set reads back from
// the fixed bytes.
func readBack(f *manifest.File, out []byte, applied []rules.Finding) error {
	nf := manifest.Parse(f.Path, out, f.Context)
	for _, fd := range applied {
		obj, err := object(nf, fd)
		if err != nil {
			return err
		}
		for _, e := range fd.Fix.Edits {
			keys := append(append([]string{}, e.Path...), e.Key)
			if got := manifest.ScalarValue(manifest.Path(obj.Node, keys...)); got != e.Value {
				return fmt.Errorf("%s %s: %v is %q after fixing, not %q; not written", fd.Resource.Kind, fd.Resource.Name, keys, got, e.Value)
			}
		}
	}
	return nil
}
