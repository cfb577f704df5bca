// Command gendocs writes docs/rules.md from the rule metadata, so that the
// docs, `shipshape explain` and SARIF rule help are one text.
package main

import (
	"fmt"
	"os"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/engine"
	"github.com/shipshape-dev/shipshape/rules"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs OUTPUT.md")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], []byte(analysis.DocsPage(engine.WithBuiltin(rules.All()))), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
