// Command floor is the yardstick of scripts/bench: it reads every *.yaml and
// *.yml file under the given paths (skipping hidden directories, as
// shipshape does) and parses each into go.yaml.in/yaml/v3 nodes on all
// cores, and does nothing else. An engine built on yaml.v3 nodes cannot be
// faster than this; what shipshape takes on top of it is its overhead.
//
//	go run ./internal/cmd/floor [-j N] PATH...
//
// It prints files, bytes and documents to stderr, so that a run can be
// checked against the corpus it was given; -nodes also counts the nodes
// (a walk of every tree, which the floor itself does not need).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
)

func main() {
	workers := flag.Int("j", runtime.GOMAXPROCS(0), "parsing goroutines")
	countNodes := flag.Bool("nodes", false, "count the nodes of every tree")
	flag.Parse()
	paths := flag.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}

	var files, size, docs, nodes, errs atomic.Int64
	jobs := make(chan string, 64)
	var wg sync.WaitGroup
	for range max(*workers, 1) {
		wg.Go(func() {
			for p := range jobs {
				data, err := os.ReadFile(p)
				if err != nil {
					errs.Add(1)
					continue
				}
				files.Add(1)
				size.Add(int64(len(data)))
				d, n, err := parse(data, *countNodes)
				docs.Add(d)
				nodes.Add(n)
				if err != nil {
					errs.Add(1)
				}
			}
		})
	}
	for _, root := range paths {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				errs.Add(1)
			case d.IsDir():
				if p != root && strings.HasPrefix(d.Name(), ".") {
					return fs.SkipDir
				}
			case d.Type().IsRegular() && isYAML(d.Name()):
				jobs <- p
			}
			return nil
		})
	}
	close(jobs)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "floor: %d files, %d bytes, %d documents, %d errors, %d goroutines",
		files.Load(), size.Load(), docs.Load(), errs.Load(), *workers)
	if *countNodes {
		fmt.Fprintf(os.Stderr, ", %d nodes", nodes.Load())
	}
	fmt.Fprintln(os.Stderr)
}

// parse decodes every document of a stream into nodes; the first error
// ends the file, as it does for yaml.v3 itself.
func parse(data []byte, countNodes bool) (docs, nodes int64, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if err == io.EOF {
				return docs, nodes, nil
			}
			return docs, nodes, err
		}
		docs++
		if countNodes {
			nodes += count(&doc)
		}
	}
}

// count touches every node, so that the tree is certainly built.
func count(n *yaml.Node) int64 {
	c := int64(1)
	for _, k := range n.Content {
		c += count(k)
	}
	return c
}

func isYAML(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}
