package helmrender

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// maxArchiveFile bounds what one file read from a chart archive may be:
// Helm's loader refuses a member larger than its default
// MaxDecompressedFileSize, 5 MiB.
const maxArchiveFile = 5 << 20

// ErrOutsideChart is a file name that leads out of the chart's directory.
var ErrOutsideChart = errors.New("the name leads out of the chart")

// ReadArchiveFile reads the file name (slash-separated, relative to the
// chart's directory, as Argo CD resolves an Application's helm.valueFiles
// in the chart it extracted) from a chart archive, whose members are
// below one top directory as Helm's loader reads them. found is false
// when the archive has no such regular file; a name that leads out of the
// chart is ErrOutsideChart, as Argo CD refuses a values file outside the
// extracted chart.
func ReadArchiveFile(archive, name string) (data []byte, found bool, err error) {
	want := path.Clean(name)
	if path.IsAbs(want) || want == ".." || strings.HasPrefix(want, "../") {
		return nil, false, fmt.Errorf("%s: %w", name, ErrOutsideChart)
	}
	f, err := os.Open(archive)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", archive, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", archive, err)
		}
		_, rel, ok := strings.Cut(path.Clean(strings.ReplaceAll(h.Name, `\`, "/")), "/")
		if !ok || rel != want || h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size > maxArchiveFile {
			return nil, false, fmt.Errorf("%s!%s: %d bytes, more than Helm's loader reads (%d)", archive, h.Name, h.Size, maxArchiveFile)
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxArchiveFile))
		if err != nil {
			return nil, false, fmt.Errorf("%s!%s: %w", archive, h.Name, err)
		}
		return data, true, nil
	}
}
