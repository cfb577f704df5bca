package manifest

import (
	"fmt"
	"io"
	"math"
)

// ReadRegular reads the regular file at path whole. Anything else (a FIFO,
// a device, a directory) is refused without being read, and so is a file
// over limit bytes: the error says which. Opening never blocks: a FIFO is
// opened non-blocking, so it is refused rather than waited on for a
// writer.
func ReadRegular(path string, limit int64) ([]byte, error) {
	return readRegular(path, limit)
}

// NoSizeLimit is the limit of a read that only the file's kind bounds:
// a regular file is read whole, a device (a link to /dev/zero) refused.
const NoSizeLimit = math.MaxInt64 - 1

// ReadAll reads r (standard input) to its end, refusing more than limit
// bytes.
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	return readSized(r.Read, 0, limit)
}

// ErrOverLimit is what ReadRegular and ReadAll return for more than their
// limit: Size is what stat said, or -1 when the bytes read said it.
type ErrOverLimit struct{ Size, Limit int64 }

func (e ErrOverLimit) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("input is over the %d-byte limit (--max-file-size)", e.Limit)
	}
	return fmt.Sprintf("file is %d bytes, over the %d-byte limit (--max-file-size)", e.Size, e.Limit)
}

// readSized reads to the end into a buffer of the size stat gave (a
// file that did not change fills it without growing: io.ReadAll starts at
// 512 bytes and copies its way up), refusing more than limit bytes.
func readSized(read func([]byte) (int, error), size, limit int64) ([]byte, error) {
	if size > limit {
		return nil, ErrOverLimit{size, limit}
	}
	buf := make([]byte, 0, max(size+1, 512))
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := read(buf[len(buf):cap(buf)])
		if n > 0 {
			buf = buf[:len(buf)+n]
		}
		if int64(len(buf)) > limit {
			return nil, ErrOverLimit{-1, limit}
		}
		if err == io.EOF || (err == nil && n == 0) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
