package engine

import (
	"io"
	"log"
	"os"
	"sync"
)

// kustomize prints its deprecation warnings ("'commonLabels' is
// deprecated") straight to os.Stderr while it loads a kustomization, and
// others through the log package, for every root that reads the
// kustomization: noise between shipshape's findings. os.Stderr is a
// variable that kustomize reads at each print, so it is pointed at the
// null device, and log at io.Discard, while any tree is rendered (counted,
// for runs in parallel), and put back when the last one ends.
var quiet struct {
	sync.Mutex
	users int
	saved *os.File
	log   io.Writer
}

func silenceKustomize() (restore func()) {
	quiet.Lock()
	defer quiet.Unlock()
	if quiet.users == 0 {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return func() {}
		}
		quiet.saved, os.Stderr = os.Stderr, null
		quiet.log = log.Writer()
		log.SetOutput(io.Discard)
	}
	quiet.users++
	return func() {
		quiet.Lock()
		defer quiet.Unlock()
		if quiet.users--; quiet.users == 0 {
			null := os.Stderr
			os.Stderr, quiet.saved = quiet.saved, nil
			log.SetOutput(quiet.log)
			null.Close()
		}
	}
}
