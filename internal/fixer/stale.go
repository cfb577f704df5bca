package fixer

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// tempSuffix is what shipshape's temporary files add to the name of the
// file they replace: ".NAME" + tempSuffix + digits (os.CreateTemp puts a
// decimal number where the "*" is).
const tempSuffix = ".shipshape-"

// tempPattern is the os.CreateTemp pattern of the temporary file that
// replaces target.
func tempPattern(target string) string {
	return "." + filepath.Base(target) + tempSuffix + "*"
}

// staleAfter is how old a temporary file must be to count as left behind
// by a run that was killed. A live run writes, syncs and renames its
// temporary file within moments of its last write; a minute leaves a wide
// margin for a slow disk while a concurrent run is still writing.
const staleAfter = time.Minute

// removeStaleTemps removes, from target's directory, the temporary files
// of shipshape's own pattern for target (and no other file) that a killed
// run left there. Only regular files whose last write is older than
// staleAfter are removed: a concurrent run's temporary file is younger.
// Best effort: what cannot be read or removed stays.
func removeStaleTemps(target string) {
	dir, prefix := filepath.Dir(target), "."+filepath.Base(target)+tempSuffix
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	now := time.Now()
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTempName(e.Name(), prefix) {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleAfter {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// isTempName reports whether name is prefix followed by one or more
// decimal digits, as os.CreateTemp names the temporary file.
func isTempName(name, prefix string) bool {
	digits, ok := strings.CutPrefix(name, prefix)
	if !ok || digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
