package main

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Go runs the init of every package linked into a binary, whether the run
// uses it or not, so each of these, linked again, would cost every run of
// shipshape start-up time (docs/performance.md, "Start-up"; scripts/bench
// row 3: lint of one 2 KB file within 2.5 × the floor). Each is a prefix of
// import paths, with why it is kept out.
var unwantedImports = []struct{ prefix, why string }{
	{"helm.sh/helm/v3/pkg/chartutil", "registers client-go's scheme of every built-in API type at init (docs/helm.md, Weight)"},
	{"helm.sh/helm/v3/pkg/engine", "imports pkg/chartutil and client-go"},
	{"k8s.io/client-go/", "every built-in API type registered at init"},
	{"github.com/santhosh-tekuri/jsonschema", "compiles its metaschemas at init (5 ms)"},
	{"oras.land/oras-go", "replaced by internal/chartfetch's own OCI client (about 1 ms of init)"},
	{"github.com/opencontainers/go-digest", "came with oras-go"},
	{"sigs.k8s.io/kustomize/kyaml/fn/framework", "links kube-openapi's schema builders"},
	{"k8s.io/apimachinery/pkg/util/version", "two regular expressions compiled at init; helmrender parses the target version itself"},
	{"k8s.io/apimachinery/pkg/labels", "links util/validation (regular expressions at init), klog and utils/net; render matches selectors with kyaml, as kustomize does"},
	{"k8s.io/apimachinery/pkg/util/validation", "regular expressions compiled at init"},
	{"k8s.io/klog/", "flags and goroutine set up at init"},
	{"k8s.io/apimachinery/pkg/api/validate/content", "five regular expressions compiled at init; internal/labelsyntax checks label syntax with the same words"},
	{"github.com/go-git/go-git/v5/plumbing/object", "links an OpenPGP implementation, a diff library and 61 packages in all; internal/gittree decodes commits, tags and trees itself"},
	{"github.com/ProtonMail/go-crypto", "came with go-git's plumbing/object (its ecc package: 0.14 ms of init)"},
	{"github.com/go-git/go-git/v5/utils/merkletrie", "came with go-git's plumbing/object"},
}

// ownInitBudget is the most one of shipshape's own packages may allocate
// while it initialises. Package rules copied every rule's documentation
// there (184 KB, 0.28 ms of every run) before it was read at first use;
// the heaviest own package allocates about 19 KB now (rules' registry).
const ownInitBudget = 48 << 10

// TestStartupWeightOwnInit builds shipshape, runs `shipshape version` with
// GODEBUG=inittrace=1 (the runtime's own report of each package's init)
// and fails when one of shipshape's own packages allocates more than
// ownInitBudget while it initialises: a table built, a file read or copied
// before main in every run. Bytes, not time: they do not depend on the
// machine's load.
func TestStartupWeightOwnInit(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: shipshape cannot be built")
	}
	bin := filepath.Join(t.TempDir(), "shipshape")
	if out, err := exec.Command(goCmd, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatalf("shipshape version: %v\n%s", err, trace.String())
	}
	own := 0
	for _, line := range strings.Split(trace.String(), "\n") {
		pkg, allocated, ok := initAllocation(line)
		if !ok || !strings.HasPrefix(pkg, modulePath+"/") && pkg != "main" {
			continue
		}
		own++
		if allocated > ownInitBudget {
			t.Errorf("package %s allocates %d bytes while it initialises (budget %d): build it at first use", pkg, allocated, ownInitBudget)
		}
	}
	if own == 0 {
		t.Fatalf("inittrace named none of shipshape's own packages:\n%s", trace.String())
	}
}

// initAllocation reads one line of GODEBUG=inittrace=1's report,
// "init PKG @T ms, C ms clock, B bytes, A allocs": the package and B.
func initAllocation(line string) (pkg string, allocated int, ok bool) {
	f := strings.Fields(line)
	if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
		return "", 0, false
	}
	n, err := strconv.Atoi(f[7])
	if err != nil {
		return "", 0, false
	}
	return f[1], n, true
}

// TestStartupWeightNoUnwantedImports fails when one of unwantedImports is
// linked into cmd/shipshape again, and names the import path that pulls
// it in.
func TestStartupWeightNoUnwantedImports(t *testing.T) {
	imports := shipshapeImportGraph(t)
	for pkg := range imports {
		for _, u := range unwantedImports {
			if strings.HasPrefix(pkg, u.prefix) {
				t.Errorf("cmd/shipshape links %s (%s), through %s", pkg, u.why, strings.Join(importPath(imports, pkg), " <- "))
			}
		}
	}
}

// TestStartupWeightNoRegexpAtInit fails when one of shipshape's own
// packages linked into cmd/shipshape compiles a regular expression in a
// package-level variable: that runs before main in every run. Declare it
// with internal/lazyregexp, or compile it where it is used.
func TestStartupWeightNoRegexpAtInit(t *testing.T) {
	out := goList(t, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{.Dir}} {{join .GoFiles \" \"}}{{end}}", ".")
	sc := bufio.NewScanner(bytes.NewReader(out))
	own := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || !strings.HasPrefix(f[0], "github.com/shipshape-dev/shipshape/") {
			continue
		}
		own++
		for _, name := range f[2:] {
			path := filepath.Join(f[1], name)
			file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range packageLevelRegexpCalls(file) {
				t.Errorf("%s: package-level %s runs at start-up in every run: use lazyregexp.New or compile it at first use", path, call)
			}
		}
	}
	if own == 0 {
		t.Fatal("go list named none of shipshape's own packages")
	}
}

// packageLevelRegexpCalls lists the calls of package regexp's functions
// in the initialisers of file's package-level variables (function
// literals excepted: those run later, when called).
func packageLevelRegexpCalls(file *ast.File) []string {
	regexpName := ""
	for _, imp := range file.Imports {
		if imp.Path.Value == `"regexp"` {
			regexpName = "regexp"
			if imp.Name != nil {
				regexpName = imp.Name.Name
			}
		}
	}
	if regexpName == "" {
		return nil
	}
	var calls []string
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		ast.Inspect(gen, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == regexpName {
						calls = append(calls, "regexp."+sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
	return calls
}

// TestPackageLevelRegexpCalls shows that the check above finds what it
// looks for, and only that.
func TestPackageLevelRegexpCalls(t *testing.T) {
	src := `package p

import re "regexp"

var a = re.MustCompile("a")
var (
	b = []*re.Regexp{re.MustCompile("b")}
	c = func() *re.Regexp { return re.MustCompile("c") }
)

func f() { _ = re.MustCompile("d") }
`
	file, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := packageLevelRegexpCalls(file)
	if strings.Join(got, ",") != "regexp.MustCompile,regexp.MustCompile" {
		t.Errorf("got %q, want the two package-level MustCompile calls (a, b)", got)
	}
}

// shipshapeImportGraph is cmd/shipshape's dependency graph: each linked
// package and the packages it imports.
func shipshapeImportGraph(t *testing.T) map[string][]string {
	out := goList(t, "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", ".")
	imports := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(imports[modulePath+"/cmd/shipshape"]) == 0 {
		t.Fatalf("go list did not list cmd/shipshape's imports:\n%s", out)
	}
	return imports
}

const modulePath = "github.com/shipshape-dev/shipshape"

// importPath is a shortest chain of imports from cmd/shipshape to pkg,
// pkg first.
func importPath(imports map[string][]string, pkg string) []string {
	from := map[string]string{modulePath + "/cmd/shipshape": ""}
	queue := []string{modulePath + "/cmd/shipshape"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range imports[p] {
			if _, seen := from[q]; !seen {
				from[q] = p
				queue = append(queue, q)
			}
		}
	}
	var chain []string
	for p := pkg; p != ""; p = from[p] {
		chain = append(chain, p)
		if _, ok := from[p]; !ok {
			break
		}
	}
	return chain
}

// goList runs `go list` here, or skips the test when there is no go
// command (a test binary copied elsewhere).
func goList(t *testing.T, args ...string) []byte {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: the linked packages cannot be listed")
	}
	cmd := exec.Command(goCmd, append([]string{"list"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}
