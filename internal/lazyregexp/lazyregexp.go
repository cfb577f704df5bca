// Package lazyregexp is a regular expression compiled at its first use
// rather than while the program starts. Every run of shipshape pays for
// each package-level regexp.MustCompile in every linked package before main
// (parsing and compiling an expression allocates and touches fresh heap),
// whether the run needs the expression or not: linting one small file
// needs almost none of them. A Regexp has the methods of *regexp.Regexp
// that shipshape calls, so a package-level variable changes only where it
// is declared.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is an expression compiled once, on first use, by any goroutine.
type Regexp struct {
	compiled func() *regexp.Regexp
}

// New returns expr, to be compiled on first use; a bad expression panics
// then, as regexp.MustCompile would have at start-up (the package's tests
// use every expression, so a bad one fails them).
func New(expr string) *Regexp {
	return &Regexp{compiled: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.compiled() }

func (r *Regexp) String() string                       { return r.compiled().String() }
func (r *Regexp) Match(b []byte) bool                  { return r.compiled().Match(b) }
func (r *Regexp) MatchString(s string) bool            { return r.compiled().MatchString(s) }
func (r *Regexp) FindString(s string) string           { return r.compiled().FindString(s) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte       { return r.compiled().FindSubmatch(b) }
func (r *Regexp) FindStringSubmatch(s string) []string { return r.compiled().FindStringSubmatch(s) }
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int { return r.compiled().FindAllIndex(b, n) }
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.compiled().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.compiled().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.compiled().ReplaceAllString(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.compiled().Split(s, n) }
