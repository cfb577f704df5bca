// Package kubeversion reads a Kubernetes version as Helm does, without
// linking apimachinery's util/version (two regular expressions compiled
// at init, in every run).
package kubeversion

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseGeneric reads a version as k8s.io/apimachinery's
// util/version.ParseGeneric does (the parser Helm's ParseKubeVersion
// calls): blanks, an optional "v", at least two dot-separated numbers, the
// first without a leading zero, then anything but a newline, which is
// ignored. It returns the numbers. It is a loop of its own because that
// package compiles its regular expressions at init, in every run of
// shipshape, chart or none; internal/helmrender's TestParseGenericVersion holds it to
// ParseGeneric, error messages included.
func ParseGeneric(str string) ([]uint, error) {
	rest := strings.TrimLeft(str, "\t\n\f\r ")
	rest = strings.TrimPrefix(rest, "v")
	end := 0
	for end < len(rest) && (rest[end] >= '0' && rest[end] <= '9' || rest[end] == '.' && end > 0 && rest[end-1] != '.' && end+1 < len(rest) && rest[end+1] >= '0' && rest[end+1] <= '9') {
		end++
	}
	if end == 0 || strings.Contains(rest[end:], "\n") {
		return nil, fmt.Errorf("could not parse %q as version", str)
	}
	components := strings.Split(rest[:end], ".")
	if len(components) < 2 {
		return nil, fmt.Errorf("illegal version string %q", str)
	}
	numbers := make([]uint, len(components))
	for i, comp := range components {
		if i == 0 && strings.HasPrefix(comp, "0") && comp != "0" {
			return nil, fmt.Errorf("illegal zero-prefixed version component %q in %q", comp, str)
		}
		n, err := strconv.ParseUint(comp, 10, 0)
		if err != nil {
			return nil, fmt.Errorf("illegal non-numeric version component %q in %q: %v", comp, str, err)
		}
		numbers[i] = uint(n)
	}
	return numbers, nil
}
