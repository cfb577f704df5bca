package main

import (
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/cache"
	"github.com/shipshape-dev/shipshape/internal/chartfetch"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/helmrender"
	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/render"
	"github.com/shipshape-dev/shipshape/internal/scope"
	"github.com/shipshape-dev/shipshape/rules"
)

// commonFlags are shared by lint and fix.
type commonFlags struct {
	configFile  string
	enable      []string
	disable     []string
	failOn      string
	maxFileSize int64
	render      string
	renderTime  string
	renderMem   string
	charts      string
	cacheDir    string
	noCache     bool
	fetchCharts bool
	chartCache  string
	kubeVersion string
}

func (c *commonFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&c.configFile, "config", "c", "", "config file (default: .shipshape.yaml in the current directory or a parent)")
	fs.StringSliceVar(&c.enable, "enable", nil, "enable rules (comma-separated IDs)")
	fs.StringSliceVar(&c.disable, "disable", nil, "disable rules (comma-separated IDs)")
	fs.StringVar(&c.failOn, "fail-on", "", "exit 1 on findings at or above: error, warning, info or none (default error)")
	fs.Int64Var(&c.maxFileSize, "max-file-size", engine.DefaultMaxFileSize, "refuse files larger than this many bytes")
	fs.StringVar(&c.render, "render", "", "auto: render kustomize roots and judge what they make (default); none: judge files as written")
	fs.StringVar(&c.renderTime, "render-time", "", "time one kustomize root may take to render (default 60s; renderBudget.time in the config)")
	fs.StringVar(&c.charts, "charts", "", "directory of chart archives (NAME-VERSION.tgz, as helm pull writes) to render HelmReleases of chart repositories from; nothing is fetched (helm.charts in the config)")
	fs.StringVar(&c.cacheDir, "cache-dir", "", "directory of the cache of kustomize roots' renderings (default: $SHIPSHAPE_CACHE, else shipshape in the user's cache directory; trimmed to 512 MB)")
	fs.BoolVar(&c.noCache, "no-cache", false, "render every kustomize root, neither reading nor writing the cache")
	fs.BoolVar(&c.fetchCharts, "fetch-charts", false, "fetch the chart versions HelmReleases and Applications name from their chart repositories (HTTP index or OCI) into the chart cache, and render them (helm.fetch in the config); the only option that reaches the network")
	fs.StringVar(&c.chartCache, "chart-cache", "", "directory fetched charts are kept in (default: charts in the --cache-dir or $SHIPSHAPE_CACHE directory, else the user's cache directory's shipshape/charts; also with --no-cache)")
	fs.StringVar(&c.kubeVersion, "kubernetes-version", "", "the cluster version charts are rendered for (.Capabilities.KubeVersion, a chart's kubeVersion), e.g. v1.35.0 (default "+helmrender.DefaultKubernetesVersion+"; kubernetesVersion in the config)")
	fs.StringVar(&c.renderMem, "render-memory", "", "memory one kustomize root may be estimated to need to render (default 4Gi; renderBudget.memory in the config)")
}

// session is what a lint or fix run works with.
type session struct {
	eng *engine.Engine
	// walked records what the walk of inputs saw, for the engine's
	// discovery of kustomizations (see manifest.Listing)
	walked *manifest.Listing
	cfg    *config.Config // nil without a config file
	paths  []string
	failOn analysis.FailOn // --fail-on, else the config's failOn
	render bool            // --render, else the config's render: not none
}

// setup loads the config and builds the engine.
func (c *commonFlags) setup(args []string, stdin io.Reader) (*session, error) {
	var cfg *config.Config
	var err error
	switch {
	case c.configFile != "":
		cfg, err = config.Load(c.configFile)
	default:
		if p := config.Find("."); p != "" {
			cfg, err = config.Load(p)
		}
	}
	if err != nil {
		return nil, err
	}
	eng, err := engine.New(rules.All(), cfg, c.enable, c.disable)
	if err != nil {
		return nil, err
	}
	eng.SetScope(scope.Of(args))
	eng.MaxFileSize = c.maxFileSize
	if c.kubeVersion != "" {
		if err := config.CheckKubernetesVersion(c.kubeVersion); err != nil {
			return nil, fmt.Errorf("--kubernetes-version: %v", err)
		}
		eng.KubernetesVersion = c.kubeVersion
	}
	eng.ChartsDir = cfg.ChartsDir()
	if c.charts != "" {
		eng.ChartsDir = c.charts
	}
	if c.fetchCharts || cfg != nil && cfg.Helm.Fetch {
		dir := c.chartCache
		if dir == "" && c.cacheDir != "" {
			dir = filepath.Join(c.cacheDir, "charts")
		}
		if dir == "" {
			if dir, err = chartfetch.DefaultDir(); err != nil {
				return nil, err
			}
		}
		eng.Fetcher = chartfetch.New(dir)
	}
	if eng.RenderBudget, err = c.renderBudget(cfg); err != nil {
		return nil, err
	}
	eng.Stdin = stdin
	eng.Cache = c.cache()
	failOn := eng.FailOn()
	if c.failOn != "" {
		if failOn, err = analysis.ParseFailOn(c.failOn); err != nil {
			return nil, fmt.Errorf("--fail-on: %v", err)
		}
	}
	mode := c.render
	if mode == "" && cfg != nil {
		mode = cfg.Render
	}
	switch mode {
	case "", "auto", "none":
	default:
		return nil, fmt.Errorf("--render: %q is not auto or none", mode)
	}
	return &session{eng: eng, cfg: cfg, paths: args, failOn: failOn, render: mode != "none"}, nil
}

// cache is the store --cache-dir, $SHIPSHAPE_CACHE or the user's cache
// directory names; nil with --no-cache or SHIPSHAPE_CACHE=off.
func (c *commonFlags) cache() *cache.Store {
	if c.noCache {
		return nil
	}
	dir := c.cacheDir
	if dir == "" {
		dir = cache.DefaultDir()
	}
	if dir == "" {
		return nil
	}
	return cache.Open(dir)
}

// useCache has the cache say on stderr, once, that it cannot store.
func (s *session) useCache(stderr io.Writer) {
	if s.eng.Cache != nil {
		s.eng.Cache.Warn = stderr
	}
}

// inputs is the files to lint, found as the walk goes (manifest.Walk),
// without those the config excludes. Paths that could not be walked are
// appended to errs.
//
// Then come, marked Context, the other files of the repository (or, outside
// one, of the inputs' directories), so that the cross-resource rules judge
// a file the same whether it is named alone (pre-commit names the staged
// files) or with the rest: see manifest.ContextFor.
func (s *session) inputs(errs *[]manifest.WalkError) iter.Seq[manifest.Input] {
	if s.render {
		s.walked = manifest.NewListing()
	}
	return func(yield func(manifest.Input) bool) {
		excluded := func(string) bool { return false }
		if s.cfg != nil {
			excluded = s.cfg.Excluder()
		}
		// Closed when the walk ends: discovery stops waiting for a tree
		// it did not list, and walks that itself.
		defer s.walked.Close()
		var seen []manifest.Input
		for in := range manifest.WalkListed(s.paths, errs, s.walked) {
			if excluded(in.Path) {
				continue
			}
			seen = append(seen, in)
			if !yield(in) {
				return
			}
		}
		if !s.eng.CrossResource() {
			return
		}
		for _, in := range manifest.ContextForListed(seen, s.walked) {
			if excluded(in.Path) {
				continue
			}
			if !yield(in) {
				return
			}
		}
	}
}

// run lints the inputs: as applications (kustomize roots rendered) unless
// render is none.
func (s *session) run(inputs iter.Seq[manifest.Input]) *engine.Result {
	if s.render {
		return s.eng.RunTreeListed(s.paths, inputs, s.walked)
	}
	return s.eng.RunSeq(inputs)
}

// walkFindings turns paths that could not be walked into findings, so they
// show up in every output format and count toward the exit code.
func walkFindings(errs []manifest.WalkError) []analysis.Finding {
	var out []analysis.Finding
	for _, e := range errs {
		out = append(out, analysis.Finding{Rule: engine.InputErrorID, Severity: analysis.Error, Message: e.Err.Error(), File: e.Path, Doc: -1})
	}
	return out
}

// colorOK reports whether w is a terminal and the user has not opted out.
func colorOK(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// renderBudget is the config's renderBudget with the flags over it.
func (c *commonFlags) renderBudget(cfg *config.Config) (render.Budget, error) {
	var b render.Budget
	var err error
	if cfg != nil {
		if b.Time, b.Memory, err = cfg.RenderBudget.Parsed(); err != nil {
			return b, err
		}
	}
	if c.renderTime != "" {
		if b.Time, err = config.ParseRenderTime(c.renderTime); err != nil {
			return b, fmt.Errorf("--render-time: %v", err)
		}
	}
	if c.renderMem != "" {
		if b.Memory, err = config.ParseRenderMemory(c.renderMem); err != nil {
			return b, fmt.Errorf("--render-memory: %v", err)
		}
	}
	return b, nil
}
