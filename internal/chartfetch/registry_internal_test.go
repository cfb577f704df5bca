package chartfetch

import (
	"reflect"
	"testing"
)

func TestParseBearerChallenge(t *testing.T) {
	cases := []struct {
		header string
		want   map[string]string
	}{
		{`Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:org/chart:pull"`,
			map[string]string{"realm": "https://ghcr.io/token", "service": "ghcr.io", "scope": "repository:org/chart:pull"}},
		// A scope list holds commas; a value may be unquoted; names are
		// case-insensitive, and so is the scheme.
		{`bearer Realm="https://auth.docker.io/token", service=registry.docker.io ,scope="repository:a:pull,push"`,
			map[string]string{"realm": "https://auth.docker.io/token", "service": "registry.docker.io", "scope": "repository:a:pull,push"}},
		{`Bearer realm="https://x/t\"q"`, map[string]string{"realm": `https://x/t"q`}},
		{`Basic realm="registry"`, nil},
		{`Bearer realm="unterminated`, nil},
		{`Bearer realm`, nil},
		{``, nil},
	}
	for _, c := range cases {
		got, ok := parseBearerChallenge(c.header)
		if ok != (c.want != nil) || c.want != nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v %v, want %v", c.header, got, ok, c.want)
		}
	}
}

func TestReferenceSyntax(t *testing.T) {
	for _, c := range []struct {
		repo string
		ok   bool
	}{
		{"ghcr.io/org/chart", true},
		{"localhost:5000/a/b-c_d.e", true},
		{"ghcr.io/Org/chart", false}, // uppercase
		{"ghcr.io/org//chart", false},
		{"ghcr.io/org/chart-", false},
		{"ghcr.io", false},
		{"/org/chart", false},
		{"ghcr.io/org/chart?x=1", false},
	} {
		if _, err := newRegistryClient(nil, c.repo, false); (err == nil) != c.ok {
			t.Errorf("repository %q: error %v, want ok=%v", c.repo, err, c.ok)
		}
	}
	for _, c := range []struct {
		ref         string
		tag, digest bool
	}{
		{"1.2.0", true, false},
		{"1.2.0_build.1", true, false},
		{"latest", true, false},
		{"-x", false, false},
		{"a/b", false, false},
		{"../x", false, false},
		{"sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", false, true},
		{"sha256:" + "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", false, false},
		{"sha512:00", false, false},
	} {
		if validTag(c.ref) != c.tag || validSHA256Digest(c.ref) != c.digest {
			t.Errorf("%q: tag %v digest %v, want %v %v", c.ref, validTag(c.ref), validSHA256Digest(c.ref), c.tag, c.digest)
		}
	}
}
