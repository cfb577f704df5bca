// Package config reads .shipshape.yaml, the ShipshapeConfig kind that is
// also the KRM function's functionConfig.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shipshape-dev/shipshape/internal/manifest"
	"github.com/shipshape-dev/shipshape/internal/scope"
)

const (
	APIVersion = "shipshape.dev/v1alpha1"
	Kind       = "ShipshapeConfig"
	FileName   = ".shipshape.yaml"
	// maxConfigSize bounds the config file: a few kilobytes in practice.
	maxConfigSize = 1 << 20
)

// Config is the spec of a ShipshapeConfig.
type Config struct {
	Rules   map[string]RuleConfig `yaml:"rules"`
	Exclude []string              `yaml:"exclude"`
	FailOn  string                `yaml:"failOn"`
	// Mode is read by the KRM function: lint (default) or fix.
	Mode string    `yaml:"mode"`
	LWS  LWSConfig `yaml:"lws"`
	// Render is auto (the default: kustomize roots are rendered and their
	// objects judged) or none (files are judged as written).
	Render string `yaml:"render"`
	// LoadRestrictor is kustomize's --load-restrictor for rendering:
	// LoadRestrictionsRootOnly (the default, as `kustomize build` and Argo
	// CD) or LoadRestrictionsNone (as Flux builds, or Argo CD with that
	// build option): a kustomization may then list files outside its
	// directory.
	LoadRestrictor string `yaml:"loadRestrictor"`
	// RenderBudget bounds what rendering one kustomize root may cost
	// (see render.Budget); empty fields keep the defaults.
	RenderBudget RenderBudget `yaml:"renderBudget"`
	// Helm says where chart archives the user already has are.
	Helm HelmConfig `yaml:"helm"`
	// KubernetesVersion is the cluster version charts are rendered for
	// (.Capabilities.KubeVersion, a chart's kubeVersion constraint); ""
	// leaves helmrender's default.
	KubernetesVersion KubernetesVersion `yaml:"kubernetesVersion"`

	// Dir is the directory exclude globs are relative to.
	Dir string `yaml:"-"`
	// Source names where the config came from, for messages.
	Source string `yaml:"-"`
}

// HelmConfig: Charts is a directory of chart archives (`helm pull`'s
// NAME-VERSION.tgz) that releases from chart repositories are rendered
// from; relative to the config's directory. Fetch turns on fetching the
// charts the releases name from their repositories (lint and fix only,
// as --fetch-charts; never the KRM function).
type HelmConfig struct {
	Charts string `yaml:"charts"`
	Fetch  bool   `yaml:"fetch"`
}

// ChartsDir is helm.charts, relative to the config's directory; "" when unset.
func (c *Config) ChartsDir() string {
	if c == nil || c.Helm.Charts == "" {
		return ""
	}
	if filepath.IsAbs(c.Helm.Charts) {
		return c.Helm.Charts
	}
	return filepath.Join(c.Dir, c.Helm.Charts)
}

// RuleConfig turns a rule on or off and overrides its severity.
type RuleConfig struct {
	Enabled  *bool  `yaml:"enabled"`
	Severity string `yaml:"severity"`
}

// LWSConfig configures the LeaderWorkerSet ordering transformer.
type LWSConfig struct {
	Engine  string `yaml:"engine"`
	Version string `yaml:"version"`
}

type document struct {
	APIVersion string         `yaml:"apiVersion"`
	Kind       string         `yaml:"kind"`
	Metadata   map[string]any `yaml:"metadata"`
	Spec       Config         `yaml:"spec"`
}

// Error is a configuration problem; the CLI exits 2 on it.
type Error struct {
	Source string
	Msg    string
}

func (e *Error) Error() string { return e.Source + ": " + e.Msg }

// Parse decodes a ShipshapeConfig document strictly: unknown fields are
// errors naming the field and its line.
func Parse(data []byte, source string) (*Config, error) {
	var doc document
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &Config{Source: source}, nil
		}
		return nil, &Error{source, strings.TrimPrefix(strings.ReplaceAll(err.Error(), "\n ", ""), "yaml: ")}
	}
	if doc.APIVersion != APIVersion || doc.Kind != Kind {
		return nil, &Error{source, fmt.Sprintf("apiVersion/kind must be %s %s, got %q %q", APIVersion, Kind, doc.APIVersion, doc.Kind)}
	}
	c := doc.Spec
	c.Source = source
	return &c, c.validate()
}

// Load reads the config file at p.
func Load(p string) (*Config, error) {
	// A repository's config is a stranger's input too: a link to
	// /dev/zero is refused, not read without end.
	data, err := manifest.ReadRegular(p, maxConfigSize)
	if err != nil {
		return nil, &Error{p, err.Error()}
	}
	c, err := Parse(data, p)
	if err != nil {
		return nil, err
	}
	c.Dir = filepath.Dir(p)
	return c, nil
}

// Find looks for .shipshape.yaml in dir and its parents up to dir's
// repository (scope.RootOf: outside one, dir alone); "" when none. What
// lies above the repository is not the project's (see scope).
func Find(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	top := scope.RootOf(dir, true)
	for {
		p := filepath.Join(dir, FileName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
		parent := filepath.Dir(dir)
		if dir == top || parent == dir {
			return ""
		}
		dir = parent
	}
}

// Excluder returns whether a file of one run matches an exclude glob.
// Globs are relative to the config's directory; `**` spans directories,
// and a glob without a slash matches a file or directory name at any
// depth. The working directory (for relative paths) is read once per
// Excluder, not per file.
func (c *Config) Excluder() func(file string) bool {
	var wd manifest.WorkDir
	return func(file string) bool { return c.excluded(file, &wd) }
}

func (c *Config) excluded(file string, wd *manifest.WorkDir) bool {
	if len(c.Exclude) == 0 || file == "-" {
		return false
	}
	rel := file
	if c.Dir != "" {
		// Both absolute: a config named by a relative path (-c
		// apps/.shipshape.yaml) has a relative Dir.
		dir, errDir := wd.Abs(c.Dir)
		if abs, err := wd.Abs(file); err == nil && errDir == nil {
			if r, err := filepath.Rel(dir, abs); err == nil && !strings.HasPrefix(r, "..") {
				rel = r
			}
		}
	}
	rel = filepath.ToSlash(filepath.Clean(rel))
	for _, g := range c.Exclude {
		if MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

// MatchGlob matches a slash-separated path against a glob with `**`.
func MatchGlob(glob, p string) bool {
	glob = strings.TrimPrefix(glob, "./")
	if !strings.Contains(glob, "/") {
		for _, seg := range strings.Split(p, "/") {
			if ok, _ := path.Match(glob, seg); ok {
				return true
			}
		}
		return false
	}
	return matchSegments(strings.Split(strings.TrimSuffix(glob, "/"), "/"), strings.Split(p, "/"))
}

func matchSegments(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchSegments(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(g[0], p[0]); !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	// A glob naming a directory excludes everything below it.
	return true
}

// FromFlatKeys reads the settings a ConfigMap functionConfig carries as
// flat keys (what `kpt fn eval -- key=value` and `kustomize fn run -- k=v`
// send): mode, failOn, enable, disable (comma-separated rule IDs),
// exclude (comma-separated globs), lws.engine, lws.version, and
// <rule>.severity / <rule>.enabled for one rule.
func FromFlatKeys(data map[string]string, source string) (*Config, error) {
	c := &Config{Source: source, Rules: map[string]RuleConfig{}}
	list := func(v string) []string {
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	setEnabled := func(id string, on bool) {
		rc := c.Rules[id]
		rc.Enabled = &on
		c.Rules[id] = rc
	}
	// In key order, so that the first bad key is always the one reported.
	for _, k := range slices.Sorted(maps.Keys(data)) {
		v := data[k]
		switch {
		case k == "mode":
			c.Mode = v
		case k == "failOn":
			c.FailOn = v
		case k == "enable":
			for _, id := range list(v) {
				setEnabled(id, true)
			}
		case k == "disable":
			for _, id := range list(v) {
				setEnabled(id, false)
			}
		case k == "exclude":
			c.Exclude = list(v)
		case k == "render":
			c.Render = v
		case k == "loadRestrictor":
			c.LoadRestrictor = v
		case k == "helm.charts":
			c.Helm.Charts = v
		case k == "kubernetesVersion":
			if err := CheckKubernetesVersion(v); err != nil {
				return nil, &Error{source, fmt.Sprintf("data.%s: %v", k, err)}
			}
			c.KubernetesVersion = KubernetesVersion(v)
		case k == "lws.engine":
			c.LWS.Engine = v
		case k == "lws.version":
			c.LWS.Version = v
		case strings.HasSuffix(k, ".severity"):
			rc := c.Rules[strings.TrimSuffix(k, ".severity")]
			rc.Severity = v
			c.Rules[strings.TrimSuffix(k, ".severity")] = rc
		case strings.HasSuffix(k, ".enabled"):
			on, err := parseBool(v)
			if err != nil {
				return nil, &Error{source, fmt.Sprintf("data.%s: %v", k, err)}
			}
			setEnabled(strings.TrimSuffix(k, ".enabled"), on)
		default:
			return nil, &Error{source, fmt.Sprintf("data.%s: unknown setting (want mode, failOn, enable, disable, exclude, render, loadRestrictor, helm.charts, kubernetesVersion, lws.engine, lws.version, <rule>.severity or <rule>.enabled)", k)}
		}
	}
	return c, c.validate()
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("want true or false, got %q", v)
}

// validate checks the values whose set is known here; rule IDs and the
// fail level are checked by the engine, which knows rules and severities.
func (c *Config) validate() error {
	switch c.Mode {
	case "", "lint", "fix":
	default:
		return &Error{c.Source, fmt.Sprintf("spec.mode: %q is not lint or fix", c.Mode)}
	}
	switch c.Render {
	case "", "auto", "none":
	default:
		return &Error{c.Source, fmt.Sprintf("spec.render: %q is not auto or none", c.Render)}
	}
	switch c.LoadRestrictor {
	case "", "LoadRestrictionsRootOnly", "LoadRestrictionsNone":
	default:
		return &Error{c.Source, fmt.Sprintf("spec.loadRestrictor: %q is not LoadRestrictionsRootOnly or LoadRestrictionsNone", c.LoadRestrictor)}
	}
	if err := c.RenderBudget.validate(c.Source); err != nil {
		return err
	}
	switch c.LWS.Engine {
	case "", "auto", "argocd", "kapp", "cli-utils", "flux", "none":
	default:
		return &Error{c.Source, fmt.Sprintf("spec.lws.engine: %q is not auto, argocd, kapp, cli-utils, flux or none", c.LWS.Engine)}
	}
	for _, g := range c.Exclude {
		if _, err := path.Match(strings.ReplaceAll(g, "**", "x"), ""); err != nil {
			return &Error{c.Source, fmt.Sprintf("spec.exclude: bad glob %q: %v", g, err)}
		}
	}
	return nil
}
