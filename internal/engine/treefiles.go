package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
)

// How the roots read each file: the roots that reach it (as a patch, or
// whole), and whether one that reaches it did not render; files are found
// by real path, as the graph names them.

// fileState is how the kustomize roots read one file. The zero value (and
// a nil *fileState) is a file no root reaches.
type fileState struct {
	// roots are the roots (directories as shown) that read it and
	// rendered.
	roots []string
	// whole: a root reads it other than as a patch.
	whole bool
	// unread: a root that reads it did not render.
	unread bool
	// templated: only roots that render a template's source read it (see
	// render.templateRoot): not judged at all.
	templated bool
	// component: only Components no kustomization lists read it (Flux's
	// spec.components): read by kustomize, never rendered here.
	component bool
}

func (s *fileState) readBy() []string {
	if s == nil {
		return nil
	}
	return s.roots
}

func (s *fileState) isTemplated() bool { return s != nil && s.templated }

func (s *fileState) isUnread() bool { return s != nil && s.unread }

// file is the state of the file at abs (a real path), made on first use.
func (t *renderState) file(abs string) *fileState {
	s := t.files[abs]
	if s == nil {
		s = &fileState{}
		t.files[abs] = s
	}
	return s
}

// reach records the files root r reaches (its bases' and patches', not
// those embedded in a kustomization).
func (t *renderState) reach(r *render.Kustomization) {
	shown := t.show(r.Dir)
	embedded, patches := t.graph.Embedded(r), t.graph.Patches(r)
	for _, f := range t.graph.Reaches(r) {
		if !embedded[f] {
			st := t.file(f)
			st.roots = append(st.roots, shown)
			if !patches[f] {
				st.whole = true
			}
		}
	}
}

// dropFailed takes the roots that did not render out of the files'
// states: their files are read as written.
func (t *renderState) dropFailed(results []*render.Result) {
	failed := map[string]bool{}    // root -> it did not render
	templated := map[string]bool{} // root -> it renders a template's source
	for _, res := range results {
		if res.Problem != nil {
			failed[t.show(res.Root.Dir)] = true
			templated[t.show(res.Root.Dir)] = res.Problem.Template
		}
	}
	if len(failed) == 0 {
		return
	}
	for _, st := range t.files {
		if len(st.roots) == 0 {
			continue
		}
		ok := st.roots[:0:0]
		onlyTemplates := true
		for _, r := range st.roots {
			if !failed[r] {
				ok = append(ok, r)
			} else {
				st.unread = true
			}
			onlyTemplates = onlyTemplates && templated[r]
		}
		if onlyTemplates {
			st.templated = true
		}
		if len(ok) == 0 {
			ok = nil
		}
		st.roots = ok
	}
}

// fileFor is the result a finding at the file at abs goes to: the
// file's, or, for a file of the application that was not named (a base
// outside the directory named), a new one, which the run then reports;
// nil for a file read as context only.
func (t *renderState) fileFor(files map[string]*FileResult, abs string) *FileResult {
	if fr := files[t.key(abs)]; fr != nil {
		if fr.Input.Context {
			return nil
		}
		return fr
	}
	if t.excluded(abs) {
		return nil
	}
	fr := &FileResult{Input: manifest.Input{Path: t.show(abs)}}
	// A root's kustomization linked out of the scope is never read.
	if !t.contains(abs) {
		return t.extraFile(files, abs, fr)
	}
	if data, err := manifest.ReadRegular(abs, t.maxFileSize); err == nil {
		fr.ignores = scanIgnores(data)
		if t.keepSource { // fix edits it too
			f := manifest.Parse(fr.Input.Path, data, t.readsAs(abs))
			fr.File = &manifest.File{Path: f.Path, Src: f.Src, BOM: f.BOM, Docs: f.Docs, Context: f.Context}
		}
	}
	return t.extraFile(files, abs, fr)
}

// extraFile records fr, the result of a file not named, for the run.
func (t *renderState) extraFile(files map[string]*FileResult, abs string, fr *FileResult) *FileResult {
	files[t.key(abs)] = fr
	t.extra = append(t.extra, fr)
	return fr
}

// key is how files are found again from a finding's File (relative as
// named) or a location's (absolute): by real path, as the graph names
// them, so that a file reached through a linked directory is one file.
func (t *renderState) key(path string) string {
	if path == manifest.Stdin {
		return path
	}
	return t.graph.Real(path)
}

// inputKey is key for an input: a file a directory walk found (not named
// on the command line) is a regular file, not a link, so only its
// directories are resolved. Later lookups of the same path hit the
// graph's cache.
func (t *renderState) inputKey(in manifest.Input) string {
	if in.Path == manifest.Stdin {
		return in.Path
	}
	if in.Explicit || in.Link {
		return t.graph.Real(in.Path)
	}
	return t.graph.RealFile(in.Path)
}

// readsAs says how the file at path is read: by kustomize, when a root
// that renders reaches it.
func (t *renderState) readsAs(path string) manifest.Context {
	if path == manifest.Stdin {
		return manifest.Context{}
	}
	if st := t.files[t.key(path)]; len(st.readBy()) > 0 {
		return manifest.Context{Kustomize: st.roots, Patch: !st.whole}
	}
	return manifest.Context{}
}

// unshareFixes drops the fix of a finding about rendered objects whose
// file other roots read too without reporting it: the edit would change
// what those roots render (a base's maxSurge removed for one overlay's
// sake also goes from the overlay that set maxUnavailable: 0 and needs
// it). A fix every reader of the file asks for stays.
func (t *renderState) unshareFixes(fr *FileResult) {
	reporters := map[findingPlace][]string{}
	for _, f := range fr.Findings {
		p := findingPlace{f.Rule, f.Line, f.Column}
		reporters[p] = append(reporters[p], f.Roots...)
	}
	readers := t.files[t.key(fr.Input.Path)].readBy()
	for i, f := range fr.Findings {
		if f.Fix == nil || len(f.Roots) == 0 {
			continue
		}
		var others []string
		for _, r := range readers {
			if !slices.Contains(reporters[findingPlace{f.Rule, f.Line, f.Column}], r) && !slices.Contains(others, r) && t.takesFrom(r, f, fr.Input.Path) {
				others = append(others, r)
			}
		}
		if len(others) > 0 {
			fr.Findings[i].Fix = nil
			who := "root " + others[0] + " reads this file too and does not"
			if len(others) > 1 {
				who = "roots " + strings.Join(others, ", ") + " read this file too and do not"
			}
			fr.Findings[i].Message += " (not fixable here: " + who + " need the change; edit it by hand, e.g. in a patch of the roots that do)"
		}
	}
}

// findingPlace is where a rule reported, whichever root it was for.
type findingPlace struct {
	rule         string
	line, column int
}

// takesFrom reports whether root renders an object of f's kind whose
// field f.Field comes from f's line of file: what editing that line
// changes for it. Unsure (a field whose source is not known) is yes.
func (t *renderState) takesFrom(root string, f analysis.Finding, file string) bool {
	p, err := render.ParsePath(f.Field)
	if err != nil {
		return true
	}
	for _, r := range t.results {
		if r.Problem != nil || t.show(r.Root.Dir) != root {
			continue
		}
		t.whole(r.Root.File) // its objects were cut to skeletons once judged
		res := t.byRoot[r.Root.File]
		for _, o := range res.Objects {
			if o.Kind != f.Resource.Kind {
				continue
			}
			if _, v := p.Get(o.Node); v == nil {
				continue
			}
			l := t.renderer.Locate(res, o, p)
			if !l.Exact || (t.key(l.File) == t.key(file) && l.Line == f.Line) {
				return true
			}
		}
	}
	return false
}

// treeInputs are the files a run lints, in the order it lints them.
type treeInputs struct {
	list []manifest.Input
	// order: those no root reaches first (linted while the roots
	// render), then those a root reaches (linted once the roots have
	// rendered, as kustomize reads them, or as written when every root
	// reaching one failed).
	order []int
	// reached: a root reaches list[i]; component: only a Component no
	// kustomization lists does (known before rendering starts, which
	// marks more files reached).
	reached, component []bool
}

// collectInputs adds to inputs the files of the roots' applications not
// named, and orders them for linting.
// Only the files the scope contains are added: a kustomization file
// linked out of it is a root's file, never read.
func (t *renderState) collectInputs(inputs []manifest.Input, named []string) treeInputs {
	// The files a root reaches are its application's: those not named (a
	// base beside the overlay directory named) are read too, and reported
	// on, unless only files were named (pre-commit), whose roots' other
	// files are context.
	onlyFiles := true
	for _, p := range named {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			onlyFiles = false
		}
	}
	// A file reached under two names (a directory linked into another) is
	// read once, under the first: the named files come before those read
	// as context.
	have := map[string]bool{}
	inputs = slices.DeleteFunc(slices.Clone(inputs), func(in manifest.Input) bool {
		k := t.inputKey(in)
		dup := have[k]
		have[k] = true
		return dup
	})
	var more []string
	for f, st := range t.files {
		if len(st.readBy()) > 0 && !have[f] && manifest.IsYAMLName(f) && filepath.Base(f) != "Kustomization" && !t.excluded(f) && t.contains(f) {
			more = append(more, f)
		}
	}
	slices.Sort(more)
	for _, f := range more {
		inputs = append(inputs, manifest.Input{Path: t.show(f), Context: onlyFiles})
	}
	in := treeInputs{list: inputs, reached: make([]bool, len(inputs)), component: make([]bool, len(inputs))}
	var last []int
	for i, input := range inputs {
		if input.Path == manifest.Stdin {
			in.order = append(in.order, i)
			continue
		}
		st := t.files[t.key(input.Path)]
		if in.reached[i] = len(st.readBy()) > 0; in.reached[i] {
			last = append(last, i)
		} else {
			in.order = append(in.order, i)
			in.component[i] = st != nil && st.component
		}
	}
	in.order = append(in.order, last...)
	return in
}
