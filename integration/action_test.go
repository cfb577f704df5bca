package integration

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The GitHub Action (action.yml) run as the runner runs it (runAction), on
// the bundled examples: shipshape built from the action's checkout, lint
// with annotations, the SARIF report written and handed to upload-sarif.
func TestActionLintsAndWritesSARIF(t *testing.T) {
	t.Parallel()
	need(t, "go", "Go is on the machine image")
	sarif := filepath.Join(t.TempDir(), "out.sarif")
	run := runAction(t, root, map[string]string{
		"paths":      "kustomize-plugin/base\nkustomize-plugin/clean",
		"sarif":      "true",
		"sarif-file": sarif,
	})
	if setup := run.step(t, "set up Go (building shipshape from the action's checkout)"); setup.skipped || setup.with["go-version-file"] != filepath.Join(root, "go.mod") {
		t.Errorf("setup-go: skipped %v, inputs %v; want it run with the action's go.mod", setup.skipped, setup.with)
	}
	install := run.step(t, "install shipshape")
	if install.result.code != 0 || !strings.HasPrefix(install.result.stdout, "shipshape ") {
		t.Fatalf("install: %v", install.result)
	}
	lint := run.step(t, "shipshape lint")
	if lint.result.code != 1 || !run.failed {
		t.Fatalf("lint on findings: %v; want exit 1, failing the job", lint.result)
	}
	wantAll(t, "lint annotations", lint.result.stdout,
		"::error file=kustomize-plugin/base/node-agent.yaml,line=7,col=3,title=daemonset-replicas::")
	wantNone(t, "lint annotations", lint.result.stdout, "kustomize-plugin/clean")
	if run.outputs["exit-code"] != "1" || run.outputs["sarif-file"] != sarif {
		t.Errorf("action outputs %v; want exit-code 1 and sarif-file %s", run.outputs, sarif)
	}

	upload := run.step(t, "upload SARIF to code scanning")
	if upload.skipped || upload.with["sarif_file"] != sarif || upload.with["category"] != "shipshape" {
		t.Fatalf("upload-sarif after failing lint: skipped %v, inputs %v; want it run on %s", upload.skipped, upload.with, sarif)
	}
	if !strings.HasSuffix(upload.step.Uses, "upload-sarif@v4") {
		t.Errorf("upload step uses %s, want github/codeql-action/upload-sarif@v4", upload.step.Uses)
	}
	data, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Results) < 3 {
		t.Errorf("SARIF report: %v, version %q; want 2.1.0 with the findings:\n%s", err, log.Version, data)
	}
}

// A clean tree passes, in the text format, with no SARIF and no upload;
// fail-on is passed through (warning fails on nothing in clean/).
func TestActionCleanTree(t *testing.T) {
	t.Parallel()
	need(t, "go", "Go is on the machine image")
	run := runAction(t, root, map[string]string{"paths": "kustomize-plugin/clean", "format": "text", "fail-on": "warning"})
	lint := run.step(t, "shipshape lint")
	if lint.result.code != 0 || run.failed || run.outputs["exit-code"] != "0" {
		t.Fatalf("lint on a clean tree: %v, outputs %v", lint.result, run.outputs)
	}
	if !run.step(t, "upload SARIF to code scanning").skipped || run.outputs["sarif-file"] != "" {
		t.Errorf("sarif false: the upload ran or a report was named (%v)", run.outputs)
	}

	// fail-on info: clean/ has no finding at all, so still 0; a bad value
	// reaches shipshape, which refuses it (exit 2).
	bad := runAction(t, root, map[string]string{"paths": "kustomize-plugin/clean", "fail-on": "sometimes"})
	if got := bad.step(t, "shipshape lint").result; got.code != 2 || !strings.Contains(got.stderr, "sometimes") {
		t.Errorf("fail-on sometimes: %v; want shipshape's usage error naming the value", got)
	}
}

// base-ref reaches shipshape as --base REF, and only when it is set (the
// other tests leave it empty): HEAD on a clean tree judges no change and
// passes; a REF that names no commit is shipshape's usage error (exit 2),
// naming the REF, which shows the flag was passed as written.
func TestActionBaseRef(t *testing.T) {
	t.Parallel()
	need(t, "go", "Go is on the machine image")
	got := runAction(t, root, map[string]string{"paths": "kustomize-plugin/clean", "format": "text", "base-ref": "HEAD"})
	if lint := got.step(t, "shipshape lint").result; lint.code != 0 {
		t.Errorf("base-ref HEAD on a clean tree: %v; want exit 0", lint)
	}
	bad := runAction(t, root, map[string]string{"paths": "kustomize-plugin/clean", "format": "text", "base-ref": "no-such-branch-33"})
	lint := bad.step(t, "shipshape lint").result
	if lint.code != 2 || !strings.Contains(lint.stderr, `cannot resolve "no-such-branch-33"`) {
		t.Errorf("base-ref naming no commit: %v; want exit 2 naming the REF", lint)
	}
}

// version: the release archive is downloaded, its checksum checked against
// checksums.txt, and its binary used; an archive whose checksum does not
// match stops the install. The release is served by a local server in the
// layout of a GitHub release (SHIPSHAPE_RELEASE_URL, the workflow's env).
func TestActionReleaseInstall(t *testing.T) {
	t.Parallel()
	need(t, "go", "Go is on the machine image")
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the release archive for this OS is a zip; the test serves tar.gz")
	}
	for _, tool := range []string{"curl", "sha256sum", "tar"} {
		need(t, tool, "apt-get install -y "+tool)
	}
	binary, err := os.ReadFile(filepath.Join(binDir, "shipshape"))
	if err != nil {
		t.Fatal(err)
	}
	archiveName := fmt.Sprintf("shipshape_1.2.3_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
	archive := tarGz(t, map[string][]byte{"shipshape": binary, "LICENSE": []byte("Apache-2.0\n")})
	sum := sha256.Sum256(archive)

	for _, tc := range []struct {
		name      string
		checksums string
		wantCode  int
	}{
		{"checksum matches", fmt.Sprintf("%x  %s\n%x  other.zip\n", sum, archiveName, sha256.Sum256(nil)), 0},
		{"checksum differs", fmt.Sprintf("%x  %s\n", sha256.Sum256([]byte("tampered")), archiveName), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var served []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				served = append(served, r.URL.Path)
				switch r.URL.Path {
				case "/v1.2.3/" + archiveName:
					w.Write(archive)
				case "/v1.2.3/checksums.txt":
					w.Write([]byte(tc.checksums))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			run := runAction(t, root, map[string]string{"version": "v1.2.3", "paths": "kustomize-plugin/base", "format": "text"},
				"SHIPSHAPE_RELEASE_URL="+srv.URL)
			if setup := run.step(t, "set up Go (building shipshape from the action's checkout)"); !setup.skipped {
				t.Error("setup-go ran for a release install")
			}
			install := run.step(t, "install shipshape")
			if install.result.code != tc.wantCode {
				t.Fatalf("install: %v (served %v); want exit %d", install.result, served, tc.wantCode)
			}
			lint := run.step(t, "shipshape lint")
			if tc.wantCode != 0 {
				wantAll(t, "install output", install.result.stderr+install.result.stdout, "FAILED")
				if !lint.skipped {
					t.Error("lint ran after a failed install")
				}
				return
			}
			if lint.result.code != 1 {
				t.Fatalf("lint with the released binary: %v", lint.result)
			}
			wantAll(t, "lint", lint.result.stdout, "node-agent.yaml:7:3: error daemonset-replicas")
		})
	}
}

// tarGz is a tar.gz of files, as GoReleaser archives them.
func tarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "a.tar.gz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, gz, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
