package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/internal/gittree"
)

// openBase reads the repository holding the paths named (the first one,
// else the working directory) and resolves ref there: the revision lint
// --base judges the change against. Every error is a usage error (exit
// 2): a REF that does not resolve says why (a shallow clone names the
// cure).
func openBase(ref string, paths []string) (*engine.Base, error) {
	at := "."
	for _, p := range paths {
		if p != "-" {
			at = p
			break
		}
	}
	repo, err := gittree.Open(at)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %v", ref, err)
	}
	rev, err := repo.Resolve(ref)
	if err != nil {
		return nil, fmt.Errorf("--base: %v", err)
	}
	changed, err := repo.Changed(rev)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %v", ref, err)
	}
	return &engine.Base{Revision: rev.Short(), FS: repo.FS(rev), Root: repo.Root(), Changed: changed}, nil
}

// registerBase adds --base to lint's and fix's flags.
func registerBase(fs *pflag.FlagSet, base *string) {
	fs.StringVar(base, "base", "", "also judge the change against revision REF (branch, tag, commit, HEAD~1; in CI the merge base): updates the API server will refuse (see docs/base.md)")
}

// withBase sets the engine's base when --base was given.
func (s *session) withBase(fs *pflag.FlagSet, ref string) error {
	if !fs.Changed("base") {
		return nil
	}
	if !s.render {
		return fmt.Errorf("--base judges what the applications render: it cannot be used with render none")
	}
	var err error
	s.eng.Base, err = openBase(ref, fs.Args())
	return err
}

// fixCommand is the command that applies lint's fixes: with the same
// --base, since some fixes are those of the change rules.
func fixCommand(fs *pflag.FlagSet, ref string) string {
	if !fs.Changed("base") {
		return "shipshape fix"
	}
	if strings.ContainsAny(ref, " \t'\"$`") {
		ref = "'" + strings.ReplaceAll(ref, "'", `'\''`) + "'"
	}
	return "shipshape fix --base " + ref
}
