package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// validate is the least a warm run that checks a whole repository's cache
// must do (issue 37): find every YAML file under the directories and
// stat it, and, without -stat, read and hash it too (with a stat index, as
// git's, only the files whose size, mtime or inode changed are read). It
// prints how many files and bytes it saw. The bound on a warm cached run
// is measured beside this, not argued.
func validate(args []string) error {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	statOnly := fl.Bool("stat", false, "stat every file, read none (a stat index with nothing changed)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() == 0 {
		return fmt.Errorf("usage: benchtool validate [-stat] DIR...")
	}
	var files []string
	for _, dir := range fl.Args() {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	var mu sync.Mutex
	var total int64
	var wg sync.WaitGroup
	work := make(chan string)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				st, err := os.Stat(p)
				if err != nil {
					continue
				}
				if !*statOnly {
					data, err := os.ReadFile(p)
					if err != nil {
						continue
					}
					_ = sha256.Sum256(data)
				}
				mu.Lock()
				total += st.Size()
				mu.Unlock()
			}
		}()
	}
	for _, p := range files {
		work <- p
	}
	close(work)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "validate: %d files, %d bytes\n", len(files), total)
	return nil
}
