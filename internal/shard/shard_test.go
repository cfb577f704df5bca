package shard

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
)

func TestParse(t *testing.T) {
	for text, want := range map[string]Shard{"1/1": {1, 1}, "2/5": {2, 5}, "5/5": {5, 5}} {
		if got, err := Parse(text); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	for _, bad := range []string{"", "3", "0/2", "3/2", "1/0", "-1/3", "a/2", "1/b", "1/2/3"} {
		if got, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", bad, got)
		}
	}
}

// TestOfStable pins the hash: shards computed on two machines, or by two
// versions of shipshape in one pipeline, must agree.
func TestOfStable(t *testing.T) {
	for _, c := range []struct {
		rel  string
		n    int
		want int
	}{{"apps/web/overlays/prod", 1, 1}, {"", 3, 1 + int(14695981039346656037%3)}} {
		if got := Of(c.rel, c.n); got != c.want {
			t.Errorf("Of(%q, %d) = %d, want %d", c.rel, c.n, got, c.want)
		}
	}
	// Every shard gets applications: the hash spreads 200 paths over 5.
	seen := map[int]int{}
	for i := range 200 {
		k := Of(fmt.Sprintf("apps/app-%d/overlays/prod", i), 5)
		if k < 1 || k > 5 {
			t.Fatalf("Of = %d, outside 1..5", k)
		}
		seen[k]++
	}
	for k := 1; k <= 5; k++ {
		if seen[k] < 20 {
			t.Errorf("shard %d of 5 got %d of 200 applications", k, seen[k])
		}
	}
}

// TestApplication: a finding belongs to the first root it names, else to
// its file's directory, relative to the repository root whatever the
// working directory.
func TestApplication(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "clusters")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, wd := range []string{repo, sub} {
		a, err := NewAssigner(wd)
		if err != nil {
			t.Fatal(err)
		}
		rel := func(p string) string { r, _ := filepath.Rel(wd, filepath.Join(repo, p)); return r }
		cases := []struct {
			f    analysis.Finding
			want string
		}{
			{analysis.Finding{File: rel("base/deploy.yaml"), Roots: []string{rel("prod"), rel("dev")}}, "dev"},
			{analysis.Finding{File: rel("plain/svc.yaml")}, "plain"},
			{analysis.Finding{File: rel("top.yaml")}, "."},
		}
		for _, c := range cases {
			if got := a.Application(c.f); got != c.want {
				t.Errorf("in %s: Application(%s, roots %v) = %q, want %q", wd, c.f.File, c.f.Roots, got, c.want)
			}
		}
	}
}

// TestKeepPartitions: over n shards each finding is kept exactly once.
func TestKeepPartitions(t *testing.T) {
	a := &Assigner{root: "/repo", wd: "/repo"}
	var all []analysis.Finding
	for i := range 50 {
		all = append(all, analysis.Finding{Rule: "r", File: fmt.Sprintf("app%d/f.yaml", i%17), Roots: rootsFor(i)})
	}
	for _, n := range []int{1, 2, 3, 5} {
		kept := 0
		for k := 1; k <= n; k++ {
			kept += len(a.Keep(Shard{k, n}, all))
		}
		if kept != len(all) {
			t.Errorf("%d shards keep %d findings, want %d", n, kept, len(all))
		}
	}
	if got := a.Keep(Shard{}, all); len(got) != len(all) {
		t.Errorf("the whole run keeps %d of %d", len(got), len(all))
	}
}

func rootsFor(i int) []string {
	if i%3 == 0 {
		return nil
	}
	return []string{fmt.Sprintf("overlays/o%d", i%7), fmt.Sprintf("overlays/o%d", i%5)}
}
