package integration

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/hostile"
)

// TestNothingOutsideOpened runs lint and fix on a hostile repository
// (internal/hostile) under strace and checks every path a system call of
// shipshape was given: none is outside the repository (the victim beside
// it, the bait above it, /etc/passwd), and the victim's bytes are
// unchanged. cmd/shipshape's TestHostileScope checks the findings.
func TestNothingOutsideOpened(t *testing.T) {
	strace := need(t, "strace", "apt-get install strace")
	tr := hostile.ScopeTree(t)
	before := tr.VictimBytes(t)
	runs := [][]string{
		{"lint", "."},
		{"lint", "apps/base-outside/kustomization.yaml", "plain/pw.yaml", "plain/passwd.yaml"},
		{"fix", "."},
		{"lint", "--render", "none", "."},
	}
	for _, args := range runs {
		log := filepath.Join(t.TempDir(), "strace.log")
		cmd := exec.Command(strace, append([]string{"-f", "-qq", "-s", "4096", "-e", "trace=%file", "-o", log, filepath.Join(binDir, "shipshape")}, args...)...)
		cmd.Dir = tr.Repo
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
			t.Fatalf("shipshape %v: %v\n%s", args, err, out)
		}
		calls := tracedPaths(t, log)
		if len(calls) == 0 {
			t.Fatalf("strace recorded no path for shipshape %v", args)
		}
		for _, c := range calls {
			p := c.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(tr.Repo, p)
			}
			p = filepath.Clean(p)
			outside := strings.HasPrefix(p, tr.Dir+"/") && !strings.HasPrefix(p, tr.Repo+"/") && p != tr.Repo
			if outside || p == "/etc/passwd" {
				t.Errorf("shipshape %v touched %s: %s", args, p, c.line)
			}
		}
		if strings.Contains(string(out), hostile.Canary) {
			t.Errorf("shipshape %v printed the canary:\n%s", args, out)
		}
	}
	for p, data := range tr.VictimBytes(t) {
		if before[p] != data {
			t.Errorf("%s changed", p)
		}
	}
}

// tracedPaths returns the path argument of every traced call: the first
// quoted string of each line (a readlink's second string is its result,
// which names a target the call did not touch).
func tracedPaths(t *testing.T, log string) []tracedCall {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tracedCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "resumed>") {
			continue // the rest of a call split by -f: its path came first
		}
		i := strings.IndexByte(line, '"')
		if i < 0 {
			continue
		}
		j := strings.IndexByte(line[i+1:], '"')
		if j < 0 {
			continue
		}
		out = append(out, tracedCall{path: line[i+1 : i+1+j], line: line})
	}
	return out
}

// tracedCall is one traced system call: its path argument and the line.
type tracedCall struct{ path, line string }
