// Command benchtool is the measuring half of scripts/bench (the floor
// program is the other). It is not part of shipshape.
//
//	benchtool run [-runs N] [-warmup N] [-dir D] @NAME [<FILE] ARGV... [@NAME ...]
//
// runs every command once per round, round after round (so that the
// commands compared share the machine's state), and prints one
// tab-separated line per command: name, runs, median wall seconds, minimum
// wall, median CPU (user+system) seconds, median user, median system,
// median peak RSS in MB, largest peak RSS in MB, and the exit codes seen.
// Times and peak RSS come from wait4's rusage of each child, so they are
// exact to the microsecond (GNU time rounds wall time to 10 ms, too coarse
// for a process that lives 5 ms). `<FILE` feeds FILE to the command's stdin.
//
//	benchtool resourcelist [-n N] DIR
//
// writes a ResourceList of N items taken evenly from the Kubernetes objects
// under DIR (CustomResourceDefinitions left out: a KRM function pipeline
// carries workloads, and one CRD alone is up to 1.5 MB), each annotated with
// its path and index the way kpt and kustomize annotate items.
//
//	benchtool inittrace [-runs N] ARGV...
//
// runs ARGV with GODEBUG=inittrace=1 and prints, per package, the median
// init clock time in ms, bytes and allocations, heaviest first, then the
// total.
//
//	benchtool render PATH...
//
// renders every kustomize root under the paths in-process, as `shipshape
// lint` does (discovery, refusal, the roots on all cores, then the bases
// of those that failed), with the collector paced as shipshape paces it,
// and does nothing else: no file is linted, no object judged. Beside the
// floor it is the least that rendering adds to any linter built on
// kustomize's library (kustomize parses the files a root reaches again).
//
//	benchtool validate [-stat] DIR...
//
// stats, reads and hashes every YAML file under the directories (-stat:
// stats only): what checking a whole repository's cache costs by itself
// (validate.go).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shipshape-dev/shipshape/internal/corpus"
	"github.com/shipshape-dev/shipshape/internal/gcpace"
	"github.com/shipshape-dev/shipshape/internal/render"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtool run|resourcelist|inittrace|roots|render|validate ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runCmd(os.Args[2:])
	case "resourcelist":
		err = resourceList(os.Args[2:])
	case "inittrace":
		err = initTrace(os.Args[2:])
	case "roots":
		err = roots(os.Args[2:])
	case "render":
		err = renderOnly(os.Args[2:])
	case "validate":
		err = validate(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

type command struct {
	name  string
	stdin string
	argv  []string
	wall  []float64
	cpu   []float64
	user  []float64
	sys   []float64
	rss   []float64 // MB
	exits map[int]int
	err   string // stderr of a run that failed
}

func runCmd(args []string) error {
	fl := flag.NewFlagSet("run", flag.ExitOnError)
	runs := fl.Int("runs", 5, "measured rounds")
	warmup := fl.Int("warmup", 1, "unmeasured rounds first (page cache, CPU frequency)")
	dir := fl.String("dir", "", "working directory of the commands")
	fl.Parse(args)
	var cmds []*command
	for _, a := range fl.Args() {
		switch {
		case strings.HasPrefix(a, "@"):
			cmds = append(cmds, &command{name: a[1:], exits: map[int]int{}})
		case len(cmds) == 0:
			return fmt.Errorf("%q: a command starts with @NAME", a)
		case strings.HasPrefix(a, "<") && len(cmds[len(cmds)-1].argv) == 0:
			cmds[len(cmds)-1].stdin = a[1:]
		default:
			c := cmds[len(cmds)-1]
			c.argv = append(c.argv, a)
		}
	}
	for _, c := range cmds {
		if len(c.argv) == 0 {
			return fmt.Errorf("@%s: no command", c.name)
		}
	}
	for round := 0; round < *warmup+*runs; round++ {
		for _, c := range cmds {
			if err := c.run(*dir, round >= *warmup); err != nil {
				return err
			}
		}
	}
	for _, c := range cmds {
		var codes []string
		for code, n := range c.exits {
			codes = append(codes, fmt.Sprintf("%d×%d", n, code))
		}
		sort.Strings(codes)
		fmt.Printf("%s\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.1f\t%.1f\t%s\n", c.name, len(c.wall),
			median(c.wall), slices.Min(c.wall), median(c.cpu), median(c.user), median(c.sys),
			median(c.rss), slices.Max(c.rss), strings.Join(codes, ","))
		if c.err != "" {
			fmt.Fprintf(os.Stderr, "benchtool: @%s failed; its stderr:\n%s\n", c.name, c.err)
		}
	}
	return nil
}

func (c *command) run(dir string, record bool) error {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if c.stdin != "" {
		f, err := os.Open(c.stdin)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return fmt.Errorf("@%s: %v", c.name, err)
		}
	}
	if !record {
		return nil
	}
	st := cmd.ProcessState
	ru := st.SysUsage().(*syscall.Rusage)
	user, sys := tv(ru.Utime), tv(ru.Stime)
	c.wall = append(c.wall, wall)
	c.user = append(c.user, user)
	c.sys = append(c.sys, sys)
	c.cpu = append(c.cpu, user+sys)
	c.rss = append(c.rss, float64(ru.Maxrss)/1024) // Linux: KB
	c.exits[st.ExitCode()]++
	// 0 and 1 (findings) are answers; anything else is a broken run.
	if code := st.ExitCode(); code != 0 && code != 1 && c.err == "" {
		c.err = stderr.String()
	}
	return nil
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func resourceList(args []string) error {
	fl := flag.NewFlagSet("resourcelist", flag.ExitOnError)
	n := fl.Int("n", 1000, "items")
	fl.Parse(args)
	if fl.NArg() != 1 {
		return fmt.Errorf("resourcelist: want one directory")
	}
	files, err := corpus.Read(fl.Arg(0))
	if err != nil {
		return err
	}
	rl, err := corpus.ResourceList(files, *n, false)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(rl)
	return err
}

func initTrace(args []string) error {
	fl := flag.NewFlagSet("inittrace", flag.ExitOnError)
	runs := fl.Int("runs", 5, "runs")
	fl.Parse(args)
	if fl.NArg() == 0 {
		return fmt.Errorf("inittrace: no command")
	}
	type pkg struct {
		ms            []float64
		bytes, allocs int
	}
	pkgs := map[string]*pkg{}
	var totals []float64
	for r := 0; r < *runs; r++ {
		cmd := exec.Command(fl.Arg(0), fl.Args()[1:]...)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		total := 0.0
		for _, line := range strings.Split(stderr.String(), "\n") {
			// init PKG @0.5 ms, 0.12 ms clock, 1234 bytes, 12 allocs
			f := strings.Fields(line)
			if len(f) < 10 || f[0] != "init" || f[6] != "clock," {
				continue
			}
			ms, _ := strconv.ParseFloat(f[4], 64)
			b, _ := strconv.Atoi(f[7])
			a, _ := strconv.Atoi(f[9])
			p := pkgs[f[1]]
			if p == nil {
				p = &pkg{}
				pkgs[f[1]] = p
			}
			p.ms = append(p.ms, ms)
			p.bytes, p.allocs = b, a
			total += ms
		}
		totals = append(totals, total)
	}
	names := make([]string, 0, len(pkgs))
	for name := range pkgs {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return median(pkgs[names[i]].ms) > median(pkgs[names[j]].ms) })
	allocs, size := 0, 0
	for _, name := range names {
		allocs += pkgs[name].allocs
		size += pkgs[name].bytes
	}
	for i, name := range names {
		if i == 10 {
			break
		}
		p := pkgs[name]
		fmt.Printf("  %-60s %6.3f ms %8d bytes %6d allocs\n", name, median(p.ms), p.bytes, p.allocs)
	}
	fmt.Printf("  %-60s %6.3f ms %8d bytes %6d allocs\n", fmt.Sprintf("total (%d packages)", len(names)), median(totals), size, allocs)
	return nil
}

// roots prints the kustomize roots under DIR that shipshape renders (not
// refused: no remote base, Helm chart or function), one directory a line:
// what `kustomize build` is timed on, one root after another.
func roots(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: benchtool roots DIR")
	}
	g, err := render.Discover(args)
	if err != nil {
		return err
	}
	for _, r := range g.Roots {
		if r.Kind != "Component" && render.Refuse(g, r) == nil {
			fmt.Println(r.Dir)
		}
	}
	return nil
}

// renderOnly renders the roots under paths the way the engine's runTree
// does, and prints how many rendered, failed and were refused.
func renderOnly(paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("usage: benchtool render PATH...")
	}
	gcpace.Start(gcpace.Budget, gcpace.Ratio)
	g, err := render.Discover(paths)
	if err != nil {
		return err
	}
	var roots []*render.Kustomization
	for _, r := range g.Roots {
		if r.Kind != "Component" {
			roots = append(roots, r)
		}
	}
	roots = append(roots, render.TemplateBases(g, roots)...)
	r := render.NewRenderer(g)
	results := r.RenderAll(context.Background(), roots)
	results = append(results, r.RenderAll(context.Background(), render.UnrenderedBases(results))...)
	var ok, failed, objects int
	for _, res := range results {
		if res.Problem != nil {
			failed++
		} else {
			ok++
			objects += len(res.Objects)
		}
	}
	fmt.Fprintf(os.Stderr, "render: %d roots rendered (%d objects), %d refused or failed\n", ok, objects, failed)
	return nil
}
