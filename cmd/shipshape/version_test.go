package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionText(t *testing.T) {
	stamped := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/shipshape-dev/shipshape", Version: "v0.0.0-20261124062000-57cc914b1e2f+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "57cc914b1e2f0d4c0ad2d4c1e5c1c8b3b2e1d0f9"},
			{Key: "vcs.time", Value: "2026-11-24T06:20:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	clean := *stamped
	clean.Main.Version = "v0.1.0"
	clean.Settings = append(clean.Settings[:3:3], debug.BuildSetting{Key: "vcs.modified", Value: "false"})
	platform := " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, tt := range []struct {
		name, ldflags string
		info          *debug.BuildInfo
		want          string
	}{
		{"vcs, modified", "dev", stamped, "shipshape v0.0.0-20261124062000-57cc914b1e2f+dirty\n" +
			"revision 57cc914b1e2f0d4c0ad2d4c1e5c1c8b3b2e1d0f9 (modified), committed 2026-11-24T06:20:00Z\ngo1.26.8" + platform},
		{"vcs, clean", "dev", &clean, "shipshape v0.1.0\n" +
			"revision 57cc914b1e2f0d4c0ad2d4c1e5c1c8b3b2e1d0f9 (clean), committed 2026-11-24T06:20:00Z\ngo1.26.8" + platform},
		{"-ldflags -X main.version wins", "v9.9.9", &clean, "shipshape v9.9.9\n" +
			"revision 57cc914b1e2f0d4c0ad2d4c1e5c1c8b3b2e1d0f9 (clean), committed 2026-11-24T06:20:00Z\ngo1.26.8" + platform},
		{"-buildvcs=false", "dev", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"shipshape (devel)\nrevision unknown (built without VCS information)\ngo1.26.8" + platform},
		{"no build information", "dev", nil,
			"shipshape (devel)\nrevision unknown (built without VCS information)\n" + runtime.Version() + platform},
	} {
		if got := versionText(tt.ldflags, tt.info); got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

// TestVersionCommand: go test stamps no VCS information, so the command
// says so; extra arguments are a usage error.
func TestVersionCommand(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{arg}, nil, &stdout, &stderr); code != exitOK || stderr.Len() > 0 {
			t.Fatalf("%s: exit %d, stderr %q", arg, code, stderr.String())
		}
		lines := strings.Split(stdout.String(), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "shipshape ") || !strings.HasPrefix(lines[1], "revision ") ||
			!strings.HasPrefix(lines[2], runtime.Version()+" ") || lines[3] != "" {
			t.Errorf("%s: %q", arg, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version", "extra"}, nil, &stdout, &stderr); code != exitUsage || stdout.Len() > 0 {
		t.Errorf("version extra: exit %d, stdout %q", code, stdout.String())
	}
}

// TestVersionBinary builds shipshape as a user does, from a git checkout,
// and as .ci/run does (-buildvcs=false): the first prints the checkout's
// revision, the second says it has none.
func TestVersionBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binary twice")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout (git rev-parse HEAD: %v): nothing to stamp", err)
	}
	top, _ := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if st, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !st.IsDir() {
		t.Skip("a linked git worktree (.git is a file): go build stamps no VCS information there (golang/go#58218)")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		vcs  string
		want []string
	}{
		{"true", []string{"\nrevision " + strings.TrimSpace(string(head)), ", committed "}},
		{"false", []string{"shipshape (devel)\nrevision unknown (built without VCS information)\n"}},
	} {
		bin := filepath.Join(dir, "shipshape-vcs-"+tt.vcs)
		if out, err := exec.Command("go", "build", "-buildvcs="+tt.vcs, "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build -buildvcs=%s: %v\n%s", tt.vcs, err, out)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatalf("-buildvcs=%s: shipshape version: %v", tt.vcs, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("-buildvcs=%s: shipshape version printed\n%s\nwant it to contain %q", tt.vcs, out, w)
			}
		}
	}
}

// TestSARIFNamesTheVersion: code scanning shows the tool version SARIF
// gives, which must be the one `shipshape version` prints.
func TestSARIFNamesTheVersion(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(p, []byte(badConfigMap), 0o644); err != nil {
		t.Fatal(err)
	}
	var sarif, ver, stderr bytes.Buffer
	run([]string{"lint", "--format", "sarif", p}, strings.NewReader(""), &sarif, &stderr)
	run([]string{"version"}, strings.NewReader(""), &ver, &stderr)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Version string }
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %v\n%s", err, sarif.String())
	}
	first, _, _ := strings.Cut(ver.String(), "\n")
	if want := strings.TrimPrefix(first, "shipshape "); log.Runs[0].Tool.Driver.Version != want {
		t.Errorf("SARIF tool.driver.version = %q, `shipshape version` says %q", log.Runs[0].Tool.Driver.Version, want)
	}
}
