package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain gives the package's runs a cache of their own, not the
// user's: tests that wrote there grew it past 100,000 entries, and every
// run that trimmed it walked them all. Tests of the cache name their own
// directory (--cache-dir, t.Setenv).
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "shipshape-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("SHIPSHAPE_CACHE", filepath.Join(tmp, "cache"))
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}
