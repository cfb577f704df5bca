package main

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// The module root: this module lives in scripts/imagebuild.
const projectRoot = "../.."

const testVersion = "0.0.0-imagetest"

// daemonSetList is the ResourceList kpt sends a function: one DaemonSet
// with a replicas field left over from a Deployment.
const daemonSetList = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata:
    name: agent
  spec:
    replicas: 2
    selector:
      matchLabels: {app: agent}
    template:
      metadata:
        labels: {app: agent}
      spec:
        containers:
        - name: agent
          image: busybox:1.36
`

// TestImageRunsFn builds shipshape as the release does (static, version in
// the ldflags), writes its image with this command, reads the image back
// from the OCI layout, unpacks its layers into a directory, and runs the
// image's entrypoint and default command from that directory with a
// ResourceList on stdin and only the image's environment: what a container
// runtime does, less the namespaces.
func TestImageRunsFn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image is a Linux image: its binary runs only on Linux")
	}
	tmp := t.TempDir()
	bin := buildStatic(t, tmp)
	out := filepath.Join(tmp, "layout")
	tarPath := filepath.Join(tmp, "image.tar")
	t.Setenv("SOURCE_DATE_EPOCH", "1764000000")
	if err := run([]string{"-o", out, "-binary", "linux/" + runtime.GOARCH + "=" + bin,
		"-license", filepath.Join(projectRoot, "LICENSE"), "-version", testVersion, "-revision", "abc123",
		"-tarball", tarPath, "-tag", "example.invalid/shipshape:test"}); err != nil {
		t.Fatal(err)
	}

	img := imageFromLayout(t, out)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cf.Config.Entrypoint, " ") + " | " + strings.Join(cf.Config.Cmd, " "); got != binaryPath+" | fn" {
		t.Errorf("entrypoint | cmd = %q, want %q", got, binaryPath+" | fn")
	}
	if cf.Config.User != nonRoot || cf.OS != "linux" || cf.Architecture != runtime.GOARCH {
		t.Errorf("user %q, platform %s/%s; want %s, linux/%s", cf.Config.User, cf.OS, cf.Architecture, nonRoot, runtime.GOARCH)
	}
	for key, want := range map[string]string{
		"org.opencontainers.image.version":  testVersion,
		"org.opencontainers.image.revision": "abc123",
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.created":  "2025-11-24T16:00:00Z",
	} {
		if got := cf.Config.Labels[key]; got != want {
			t.Errorf("label %s = %q, want %q", key, got, want)
		}
	}

	rootfs := filepath.Join(tmp, "rootfs")
	unpack(t, img, rootfs)
	if _, err := os.Stat(filepath.Join(rootfs, "usr/share/doc/shipshape/LICENSE")); err != nil {
		t.Errorf("no licence in the image: %v", err)
	}
	entry := func(args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(rootfs, cf.Config.Entrypoint[0]), args...)
		cmd.Dir = rootfs
		cmd.Env = cf.Config.Env // the image's environment, nothing of the test's
		return cmd
	}

	// The default command: the KRM function, as kpt runs the image.
	fn := entry(cf.Config.Cmd...)
	fn.Stdin = strings.NewReader(daemonSetList)
	var stdout, stderr strings.Builder
	fn.Stdout, fn.Stderr = &stdout, &stderr
	err = fn.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("fn from the image: %v, want exit 1 (an error finding)\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	for _, want := range []string{"kind: ResourceList", "rule: daemonset-replicas", "path: spec.replicas", "name: agent"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("fn's ResourceList has no %q:\n%s", want, stdout.String())
		}
	}

	// The CLI, the command replaced as `docker run IMAGE version` does.
	version, err := entry("version").Output()
	if err != nil || !strings.HasPrefix(string(version), "shipshape "+testVersion+"\n") {
		t.Errorf("version from the image: %v\n%s", err, version)
	}

	// The tarball holds the same configuration and layers (its manifest is
	// docker's, so the image digest differs).
	fromTar, err := tarball.ImageFromPath(tarPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := configName(t, img), configName(t, fromTar); a != b {
		t.Errorf("tarball image config %s, layout image config %s: want the same", b, a)
	}

	// The same binary and time give the same image (a reproducible build).
	again := filepath.Join(tmp, "again")
	if err := run([]string{"-o", again, "-binary", "linux/" + runtime.GOARCH + "=" + bin,
		"-license", filepath.Join(projectRoot, "LICENSE"), "-version", testVersion, "-revision", "abc123"}); err != nil {
		t.Fatal(err)
	}
	if a, b := digest(t, img), digest(t, imageFromLayout(t, again)); a != b {
		t.Errorf("a second build gave %s, the first %s", b, a)
	}
}

// TestRefusesDynamicBinary: a binary that needs a loader would not start
// on an empty base; imagebuild says so instead of writing the image.
func TestRefusesDynamicBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads a Linux executable")
	}
	dynamic, err := exec.LookPath("git") // any dynamically linked program on the machine
	if err != nil {
		t.Skip("no git to serve as a dynamically linked executable")
	}
	err = run([]string{"-o", filepath.Join(t.TempDir(), "out"), "-binary", "linux/" + runtime.GOARCH + "=" + dynamic})
	if err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("a dynamically linked binary: %v, want an error saying to build with CGO_ENABLED=0", err)
	}
	err = run([]string{"-o", filepath.Join(t.TempDir(), "out"), "-binary", "linux/amd64"})
	if err == nil || !strings.Contains(err.Error(), "OS/ARCH=PATH") {
		t.Errorf("-binary without a path: %v", err)
	}
}

// buildStatic builds shipshape as .goreleaser.yaml does (less -trimpath,
// which would build every package again rather than reuse go test's cache).
func buildStatic(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "shipshape")
	cmd := exec.Command("go", "build", "-ldflags", "-s -w -X main.version="+testVersion, "-o", bin, "./cmd/shipshape")
	cmd.Dir = projectRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/shipshape: %v\n%s", err, out)
	}
	return bin
}

// imageFromLayout reads the layout's index and returns its one image.
func imageFromLayout(t *testing.T, dir string) v1.Image {
	t.Helper()
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Platform == nil || m.Manifests[0].Platform.Architecture != runtime.GOARCH {
		t.Fatalf("index manifests %+v: want one, for linux/%s", m.Manifests, runtime.GOARCH)
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// unpack writes the image's filesystem (its layers flattened) under dir.
func unpack(t *testing.T, img v1.Image, dir string) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, h.Name)
		if !strings.HasPrefix(target, dir+string(filepath.Separator)) {
			t.Fatalf("layer entry %q leaves the root", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, os.FileMode(h.Mode).Perm()|0o700); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_EXCL, os.FileMode(h.Mode).Perm())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, tr); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("layer entry %q of type %c: the image holds only directories and files", h.Name, h.Typeflag)
		}
	}
}

func configName(t *testing.T, img v1.Image) v1.Hash {
	t.Helper()
	h, err := img.ConfigName()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func digest(t *testing.T, img v1.Image) v1.Hash {
	t.Helper()
	h, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
