// Command imagebuild writes the container image of shipshape without a
// container daemon: the static binary (CGO_ENABLED=0) on an empty base, its
// entrypoint the binary and its default command fn, the KRM function, as
// `kpt fn eval --image` runs it. The image is written as an OCI image layout
// (a directory: an index of one image per platform) and, optionally, for
// one platform, as a tarball `docker load` reads.
//
//	go run . -o /tmp/image \
//	  -binary linux/amd64=../../dist/shipshape_linux_amd64_v1/shipshape \
//	  -binary linux/arm64=../../dist/shipshape_linux_arm64_v8.0/shipshape \
//	  -version 1.2.3 -revision "$(git rev-parse HEAD)"
//
// Pushing is the release's job: `crane push --index /tmp/image REF`
// (go-containerregistry's crane) pushes the layout.
//
// It is its own Go module so that the product's module, which pre-commit
// builds whole (go install ./...), does not carry go-containerregistry.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// binaryFlags collects -binary OS/ARCH[/VARIANT]=PATH.
type binaryFlags []Binary

func (b *binaryFlags) String() string { return fmt.Sprint(*b) }

func (b *binaryFlags) Set(value string) error {
	platform, path, ok := strings.Cut(value, "=")
	if !ok || path == "" {
		return fmt.Errorf("%q: want OS/ARCH=PATH", value)
	}
	p, err := v1.ParsePlatform(platform)
	if err != nil || p.OS == "" || p.Architecture == "" {
		return fmt.Errorf("%q: want OS/ARCH=PATH", value)
	}
	*b = append(*b, Binary{Platform: *p, Path: path})
	return nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("imagebuild", flag.ContinueOnError)
	var bins binaryFlags
	fs.Var(&bins, "binary", "OS/ARCH=PATH of a static shipshape binary (repeat for each platform)")
	out := fs.String("o", "", "directory to write the OCI image layout to (required)")
	tarPath := fs.String("tarball", "", "also write the image of the first -binary as a docker-loadable tarball here")
	tag := fs.String("tag", "ghcr.io/shipshape-dev/shipshape:dev", "the tarball's image name")
	license := fs.String("license", "", "a LICENSE file to put under /usr/share/doc/shipshape")
	var meta Metadata
	fs.StringVar(&meta.Version, "version", "", "the version label (org.opencontainers.image.version)")
	fs.StringVar(&meta.Revision, "revision", "", "the commit label (org.opencontainers.image.revision)")
	fs.StringVar(&meta.Source, "source", "https://github.com/shipshape-dev/shipshape", "the source label")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return errors.New("usage: imagebuild -o DIR -binary OS/ARCH=PATH [-binary ...] [-tarball FILE]")
	}
	created, err := sourceDateEpoch()
	if err != nil {
		return err
	}
	meta.Created = created

	idx, err := buildIndex(bins, *license, meta)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(*out); err != nil {
		return err
	}
	if _, err := layout.Write(*out, idx); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	if *tarPath != "" {
		ref, err := name.ParseReference(*tag)
		if err != nil {
			return fmt.Errorf("-tag %q: %w", *tag, err)
		}
		img, err := buildImage(bins[0], *license, meta)
		if err != nil {
			return err
		}
		if err := tarball.WriteToFile(*tarPath, ref, img); err != nil {
			return fmt.Errorf("writing %s: %w", *tarPath, err)
		}
	}
	return nil
}

// sourceDateEpoch is the image's creation time: $SOURCE_DATE_EPOCH (the
// reproducible-builds convention; the release sets it to the commit's time),
// else the Unix epoch, so that the same binaries give the same digest.
func sourceDateEpoch() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	secs, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: not a number of seconds", v)
	}
	return time.Unix(secs, 0).UTC(), nil
}
