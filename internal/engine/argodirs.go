package engine

// Argo CD Applications whose source path is a plain directory (issue 34,
// item 5): Argo CD's repo server applies the manifests of the directory
// (findManifests in reposerver/repository/repository.go), its
// subdirectories too with directory.recurse, keeping those whose path
// relative to the source path directory.include matches and
// directory.exclude does not. The files one Application applies are one
// application for the cross-resource rules, whatever their directories
// (a Service in a/ and the Deployment in a/b/ it selects); a file two
// Applications apply is judged in each. A file an Application's
// include/exclude leaves out, that nothing else in the tree applies (no
// other Application, no kustomize root, no Flux Kustomization, and no
// ApplicationSet that may generate one), is marked so (AppID.LeftOut):
// the Service rule then says that the Application leaves out the only
// pods its Service selects. An Application without options (recurse
// false, no globs) applies what the directory grouping already groups:
// its files keep that application.
//
// The source's repoURL is not compared with the repository's remote (as
// for charts and kustomize options): a path that is a plain directory
// here is taken to be this repository's.

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gobwas/glob"
	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/lazyregexp"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// argoManifestName is the repo server's manifestFile: the files a
// directory source reads (reposerver/repository/repository.go,
// `var manifestFile = regexp.MustCompile(...)`). Case matters there.
var argoManifestName = lazyregexp.New(`^.*\.(yaml|yml|json|jsonnet)$`)

// argoSkipMarker is the repo server's skipFileRenderingMarker: a file
// holding it is not applied.
const argoSkipMarker = "+argocd:skip-file-rendering"

// argoGlobMatch is Argo CD's util/glob.Match as the repo server calls it
// for directory.include and exclude (getPotentiallyValidManifestFile:
// `glob.Match(exclude, relPath)`): gobwas/glob compiled with no
// separators, so `*` matches across `/`, `**/x` needs a `/`, `{a,b}` is
// either; a pattern that does not compile matches nothing.
func argoGlobMatch(pattern, relPath string) bool {
	g, err := glob.Compile(pattern)
	if err != nil {
		return false
	}
	return g.Match(relPath)
}

// argoDirRun is what the Applications of a tree that apply plain
// directories apply, by real path of file.
type argoDirRun struct {
	// apps: the applications of the Applications with directory options
	// that apply the file.
	apps map[string][]analysis.AppID
	// plain: an Application without directory options applies the file
	// (its directory's grouping is its application).
	plain map[string]bool
	// leftOut: the Applications whose include/exclude leave the file out.
	leftOut map[string][]leftOutBy
	// unread: applications applying a file shipshape does not read as
	// objects (JSON, jsonnet): what they make is not known whole.
	unread []analysis.AppID
	// appSets: the tree has ApplicationSets, whose generated
	// Applications may apply any file: none is said to be left out.
	appSets bool
}

// leftOutBy is an Application that leaves a file out, and the option.
type leftOutBy struct {
	app analysis.AppID
	by  analysis.DirectoryOption
}

// argoDirSource is one source of an Application applying a plain
// directory.
type argoDirSource struct {
	dir              string // real path
	recurse          bool
	include, exclude string
	allFiles         bool // directory.disableExtensionFilter
}

// argoDirectories reads the Applications of inputs that apply plain
// directories. overlay holds the bytes the fix driver has changed.
func (e *Engine) argoDirectories(t *renderState, inputs []manifest.Input, overlay map[string][]byte) *argoDirRun {
	run := &argoDirRun{apps: map[string][]analysis.AppID{}, plain: map[string]bool{}, leftOut: map[string][]leftOutBy{}}
	docs := make([][]*yaml.Node, len(inputs))
	files := make([]string, len(inputs))
	e.parallel(len(inputs), func(i int) {
		in := inputs[i]
		if in.Path == manifest.Stdin || !manifest.IsYAMLName(in.Path) {
			return
		}
		file := t.inputKey(in)
		data, changed := overlay[in.Path]
		if !changed && !t.scans.mayHold(in.Path, file, wordArgo) {
			return
		}
		if !changed {
			var err error
			if data, err = manifest.ReadRegular(file, e.MaxFileSize); err != nil {
				return
			}
		}
		if !strings.Contains(string(data), "argoproj.io/") || t.excluded(file) {
			return
		}
		files[i], docs[i] = file, argoAppDocs(data)
	})
	for i, list := range docs {
		for _, doc := range list {
			if manifest.ScalarValue(manifest.MapGet(doc, "kind")) == "ApplicationSet" {
				run.appSets = true
				continue
			}
			e.argoDirectoryApp(t, run, files[i], doc)
		}
	}
	return run
}

// argoAppDocs are the Argo CD Application and ApplicationSet documents
// of data.
func argoAppDocs(data []byte) []*yaml.Node {
	roots, _ := manifest.DocumentRoots(data)
	var out []*yaml.Node
	for _, doc := range roots {
		kind := manifest.ScalarValue(manifest.MapGet(doc, "kind"))
		if (kind == "Application" || kind == "ApplicationSet") &&
			strings.HasPrefix(manifest.ScalarValue(manifest.MapGet(doc, "apiVersion")), "argoproj.io/") {
			out = append(out, doc)
		}
	}
	return out
}

// argoDirectoryApp adds to run what doc, an Application in file, applies
// of its plain directory sources.
func (e *Engine) argoDirectoryApp(t *renderState, run *argoDirRun, file string, doc *yaml.Node) {
	name := manifest.ScalarValue(manifest.Path(doc, "metadata", "name"))
	spec := manifest.MapGet(doc, "spec")
	sources := []*yaml.Node{manifest.MapGet(spec, "source")}
	if list := manifest.MapGet(spec, "sources"); list != nil && list.Kind == yaml.SequenceNode {
		sources = list.Content
	}
	var dirs []argoDirSource
	for _, src := range sources {
		if d, ok := e.argoDirSource(t, file, src); ok {
			dirs = append(dirs, d)
		}
	}
	if name == "" || len(dirs) == 0 {
		return
	}
	// Without options, the files applied are those of one directory,
	// which the directory grouping already makes one application.
	plain := len(dirs) == 1 && dirs[0] == argoDirSource{dir: dirs[0].dir}
	var app analysis.AppID
	if !plain {
		app = analysis.AppID{Dir: dirs[0].dir, Argo: &analysis.ArgoDirectory{Name: name, File: t.show(file)}}
	}
	for _, d := range dirs {
		unread := d.allFiles
		e.walkArgoDir(t, d, func(f string, by *analysis.DirectoryOption) {
			switch {
			case by != nil:
				run.leftOut[f] = append(run.leftOut[f], leftOutBy{app, *by})
			case plain:
				run.plain[f] = true
			default:
				if !slices.Contains(run.apps[f], app) {
					run.apps[f] = append(run.apps[f], app)
				}
				unread = unread || !manifest.IsYAMLName(f)
			}
		})
		if unread && !plain {
			run.unread = append(run.unread, app)
		}
	}
}

// argoDirSource is src when it applies a plain directory of the
// repository: no chart, plugin, helm or kustomize source type (Argo CD's
// explicit types), and a path that is neither a kustomize root nor a
// chart (what the repo server's discovery would build instead).
func (e *Engine) argoDirSource(t *renderState, file string, src *yaml.Node) (argoDirSource, bool) {
	if src == nil || src.Kind != yaml.MappingNode {
		return argoDirSource{}, false
	}
	for _, other := range []string{"chart", "plugin", "helm", "kustomize"} {
		if manifest.MapGet(src, other) != nil {
			return argoDirSource{}, false
		}
	}
	for _, dir := range t.repositoryDirs(file, manifest.ScalarValue(manifest.MapGet(src, "path")), e.contains) {
		real := t.graph.Real(dir)
		if st, err := os.Stat(real); err != nil || !st.IsDir() || !e.holds(real) || t.graph.ByDir[real] != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(real, "Chart.yaml")); err == nil {
			continue
		}
		opts := manifest.MapGet(src, "directory")
		str := func(key string) string { return manifest.ScalarValue(manifest.MapGet(opts, key)) }
		return argoDirSource{dir: real, recurse: str("recurse") == "true", include: str("include"),
			exclude: str("exclude"), allFiles: str("disableExtensionFilter") == "true"}, true
	}
	return argoDirSource{}, false
}

// walkArgoDir calls visit with each file of d that the repo server would
// read (getPotentiallyValidManifests), with the option that leaves it
// out when include or exclude does (nil: applied). Files
// in a directory with a kustomization (rendered by shipshape as a root
// or base), links, files out of the scope and files with Argo CD's skip
// marker are not visited.
func (e *Engine) walkArgoDir(t *renderState, d argoDirSource, visit func(file string, leftOutBy *analysis.DirectoryOption)) {
	_ = filepath.WalkDir(d.dir, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if entry.IsDir() {
			if path != d.dir && (!d.recurse || entry.Name() == ".git" || !e.contains(path)) {
				return filepath.SkipDir
			}
			// A chart below is rendered as a chart, if at all: its
			// templates are not manifests.
			if _, err := os.Stat(filepath.Join(path, "Chart.yaml")); err == nil && path != d.dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !entry.Type().IsRegular() || !d.allFiles && !argoManifestName.MatchString(entry.Name()) ||
			t.graph.ByDir[filepath.Dir(path)] != nil || !e.contains(path) {
			return nil
		}
		rel, err := filepath.Rel(d.dir, path)
		if err != nil {
			return nil
		}
		// The order of getPotentiallyValidManifestFile: exclude, then
		// include, then the marker.
		switch {
		case d.exclude != "" && argoGlobMatch(d.exclude, rel):
			visit(path, &analysis.DirectoryOption{Name: "directory.exclude", Pattern: d.exclude})
			return nil
		case d.include != "" && !argoGlobMatch(d.include, rel):
			visit(path, &analysis.DirectoryOption{Name: "directory.include", Pattern: d.include})
			return nil
		}
		if data, err := manifest.ReadRegular(path, e.MaxFileSize); err != nil || strings.Contains(string(data), argoSkipMarker) {
			return nil
		}
		visit(path, nil)
		return nil
	})
}

// assign is, for each input of in not reached by a kustomize root nor
// applied by a Flux Kustomization, the applications of the Applications
// applying it (nil: its directory's, as for every plain file). The
// applications' ArgoDirectory records the files they leave out.
func (r *argoDirRun) assign(e *Engine, t *renderState, in treeInputs) map[string][]analysis.AppID {
	out := map[string][]analysis.AppID{}
	if len(r.apps) == 0 && len(r.leftOut) == 0 {
		return out
	}
	for i, input := range in.list {
		if input.Path == manifest.Stdin || in.reached[i] {
			continue
		}
		k := t.inputKey(input)
		if t.graph.FluxApplication(k) != "" {
			continue
		}
		if apps := r.apps[k]; len(apps) > 0 {
			if r.plain[k] {
				apps = append(slices.Clone(apps), e.application(input.Path))
			}
			out[input.Path] = apps
			continue
		}
		lo := r.leftOut[k]
		if len(lo) == 0 || r.plain[k] || r.appSets {
			continue
		}
		app := e.application(input.Path)
		app.Argo, app.LeftOut = lo[0].app.Argo, true
		if app.Argo == nil {
			continue
		}
		app.Argo.LeaveOut(input.Path, lo[0].by)
		out[input.Path] = []analysis.AppID{app}
	}
	return out
}
