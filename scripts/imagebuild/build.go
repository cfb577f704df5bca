package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// binaryPath is where the image holds shipshape. The entrypoint names it,
// and the default command is fn: `kpt fn eval --image` and `kustomize fn
// run` start a function image with no arguments, so the image serves the
// KRM function by default, and `docker run IMAGE lint /src` runs the CLI.
const binaryPath = "/usr/local/bin/shipshape"

// nonRoot is the user the image runs as (distroless's nonroot): an empty
// base has no /etc/passwd, so it is numeric.
const nonRoot = "65532:65532"

// Metadata is what the image's OCI labels say about the build.
type Metadata struct {
	Version  string    // org.opencontainers.image.version
	Revision string    // org.opencontainers.image.revision (a commit)
	Source   string    // org.opencontainers.image.source (the repository's URL)
	Created  time.Time // the image's creation time: fixed for a reproducible image
}

func (m Metadata) labels() map[string]string {
	labels := map[string]string{
		"org.opencontainers.image.title":       "shipshape",
		"org.opencontainers.image.description": "Lints and fixes Kubernetes manifests; the default command is the KRM function (shipshape fn)",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.created":     m.Created.UTC().Format(time.RFC3339),
	}
	for key, value := range map[string]string{
		"org.opencontainers.image.version":  m.Version,
		"org.opencontainers.image.revision": m.Revision,
		"org.opencontainers.image.source":   m.Source,
	} {
		if value != "" {
			labels[key] = value
		}
	}
	return labels
}

// Binary is one platform's shipshape executable.
type Binary struct {
	Platform v1.Platform
	Path     string
}

// buildImage returns the image for one binary: one layer holding the binary
// (and the licence, when licensePath is set) on an empty base.
func buildImage(bin Binary, licensePath string, meta Metadata) (v1.Image, error) {
	if err := checkStatic(bin); err != nil {
		return nil, err
	}
	layerTar, err := layerContents(bin.Path, licensePath, meta.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer of %s: %w", bin.Path, err)
	}
	base := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, History: v1.History{
		Created:   v1.Time{Time: meta.Created},
		CreatedBy: "scripts/imagebuild: " + binaryPath,
	}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = bin.Platform.OS, bin.Platform.Architecture, bin.Platform.Variant
	cf.Created = v1.Time{Time: meta.Created}
	cf.Config.Entrypoint = []string{binaryPath}
	cf.Config.Cmd = []string{"fn"}
	cf.Config.User = nonRoot
	cf.Config.WorkingDir = "/"
	cf.Config.Labels = meta.labels()
	return mutate.ConfigFile(img, cf)
}

// buildIndex returns the multi-platform index of one image per binary.
func buildIndex(bins []Binary, licensePath string, meta Metadata) (v1.ImageIndex, error) {
	if len(bins) == 0 {
		return nil, errors.New("no binary: name one with -binary OS/ARCH=PATH")
	}
	var adds []mutate.IndexAddendum
	for _, bin := range bins {
		img, err := buildImage(bin, licensePath, meta)
		if err != nil {
			return nil, err
		}
		platform := bin.Platform
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &platform}})
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...), nil
}

// layerContents is the layer's tar: the directories above the binary, the
// binary (0755), and the licence. Every entry has the fixed time, owner
// root, so that the same binary gives the same layer digest.
func layerContents(binary, licensePath string, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, dir := range []string{"usr/", "usr/local/", "usr/local/bin/", "usr/share/", "usr/share/doc/", "usr/share/doc/shipshape/", "tmp/"} {
		mode := int64(0o755)
		if dir == "tmp/" {
			mode = 0o1777 // scratch space for a non-root user
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: mode, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	files := []struct{ from, to string }{{binary, binaryPath[1:]}}
	if licensePath != "" {
		files = append(files, struct{ from, to string }{licensePath, "usr/share/doc/shipshape/LICENSE"})
	}
	for i, f := range files {
		data, err := os.ReadFile(f.from)
		if err != nil {
			return nil, err
		}
		mode := int64(0o644)
		if i == 0 {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.to, Mode: mode, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkStatic refuses a Linux binary that needs a dynamic loader: an empty
// base has none, and the container would fail with "no such file or
// directory" naming the binary. (Build with CGO_ENABLED=0.)
func checkStatic(bin Binary) error {
	if bin.Platform.OS != "linux" {
		return fmt.Errorf("%s: the image is for linux, not %s", bin.Path, bin.Platform.OS)
	}
	f, err := elf.Open(bin.Path)
	if err != nil {
		return fmt.Errorf("%s: not a Linux executable: %w", bin.Path, err)
	}
	defer f.Close()
	wantMachine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[bin.Platform.Architecture]
	if wantMachine != 0 && f.Machine != wantMachine {
		return fmt.Errorf("%s: built for %s, named as %s", bin.Path, f.Machine, bin.Platform.Architecture)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s: dynamically linked (it needs a loader the empty base does not have): build it with CGO_ENABLED=0", bin.Path)
		}
	}
	return nil
}
