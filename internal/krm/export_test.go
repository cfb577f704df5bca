package krm

// Tests compare the fast path (split.go) with kyaml's.
var (
	RunFramework = runFramework
	// FastPath says whether Run takes the fast path for src.
	FastPath = func(src []byte) bool {
		l, ok := split(src)
		if ok {
			_, ok = runSplit(l)
		}
		return ok
	}
)
