package lazyregexp

import (
	"reflect"
	"regexp"
	"sync"
	"testing"
)

// TestSameAsRegexp checks each method against *regexp.Regexp's, with the
// first use racing from several goroutines (run under -race).
func TestSameAsRegexp(t *testing.T) {
	const expr = `(\w+)=(\d+)`
	lazy, re := New(expr), regexp.MustCompile(expr)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); lazy.MatchString("a=1") }()
	}
	wg.Wait()
	s := "a=1, b=22; c"
	checks := []struct {
		name      string
		got, want any
	}{
		{"String", lazy.String(), re.String()},
		{"Match", lazy.Match([]byte(s)), re.Match([]byte(s))},
		{"MatchString", lazy.MatchString("c"), re.MatchString("c")},
		{"FindString", lazy.FindString(s), re.FindString(s)},
		{"FindSubmatch", lazy.FindSubmatch([]byte(s)), re.FindSubmatch([]byte(s))},
		{"FindStringSubmatch", lazy.FindStringSubmatch(s), re.FindStringSubmatch(s)},
		{"FindAllIndex", lazy.FindAllIndex([]byte(s), -1), re.FindAllIndex([]byte(s), -1)},
		{"FindAllStringSubmatch", lazy.FindAllStringSubmatch(s, -1), re.FindAllStringSubmatch(s, -1)},
		{"FindAllStringSubmatchIndex", lazy.FindAllStringSubmatchIndex(s, 1), re.FindAllStringSubmatchIndex(s, 1)},
		{"ReplaceAllString", lazy.ReplaceAllString(s, "$2"), re.ReplaceAllString(s, "$2")},
		{"Split", lazy.Split(s, -1), re.Split(s, -1)},
		{"Regexp", lazy.Regexp().String(), expr},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

// TestBadExpressionPanicsAtFirstUse: a bad expression is not silently
// ignored, it panics where regexp.MustCompile would have.
func TestBadExpressionPanicsAtFirstUse(t *testing.T) {
	bad := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("a bad expression did not panic at first use")
		}
	}()
	bad.MatchString("x")
}
