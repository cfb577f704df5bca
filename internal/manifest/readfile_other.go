//go:build !unix

package manifest

import "os"

func readRegular(path string, limit int64) ([]byte, error) {
	// Stat before opening: opening a FIFO blocks until a writer comes.
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errNotRegular
	}
	return readSized(f.Read, st.Size(), limit)
}
