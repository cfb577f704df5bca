package main

import (
	"github.com/spf13/pflag"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/shard"
)

// registerShard adds --shard to lint's flags.
func registerShard(fs *pflag.FlagSet, text *string) {
	fs.StringVar(text, "shard", "", "report only the findings of shard K of N (K/N): whole applications, assigned by a stable hash of their path in the repository; the N shards together report one run's findings, each once (see docs/ci.md)")
}

// runShard is the --shard of a run: the zero value is the whole run.
type runShard struct{ shard.Shard }

// parseShard reads --shard when it was given.
func parseShard(fs *pflag.FlagSet, text string) (runShard, error) {
	if !fs.Changed("shard") {
		return runShard{}, nil
	}
	s, err := shard.Parse(text)
	return runShard{s}, err
}

// keep is the findings of the shard, all of them for a whole run.
func (s runShard) keep(findings []analysis.Finding) ([]analysis.Finding, error) {
	if s.Whole() {
		return findings, nil
	}
	a, err := shard.NewAssigner(".")
	if err != nil {
		return nil, err
	}
	return a.Keep(s.Shard, findings), nil
}

// label is the summary's "k/n", empty for a whole run.
func (s runShard) label() string {
	if s.Whole() {
		return ""
	}
	return s.String()
}
