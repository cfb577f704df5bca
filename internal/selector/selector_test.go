package selector

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	yaml2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	sigsyaml "sigs.k8s.io/yaml"
)

type fixture struct {
	Name     string
	Map      bool
	Selector yaml.Node
	Want     string
	Empty    bool
	Problems []struct {
		Path    string
		Line    int
		Message string
	}
	Match []struct {
		Labels yaml.Node
		Want   bool
		Failed string
	}
}

func TestFixtures(t *testing.T) {
	data, err := os.ReadFile("testdata/selectors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cases []fixture
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			parse := FromLabelSelector
			if c.Map {
				parse = FromMap
			}
			s, problems := parse(&c.Selector)
			if got := s.String(); got != c.Want {
				t.Errorf("selector = %q, want %q", got, c.Want)
			}
			if s != nil && s.Empty != c.Empty {
				t.Errorf("Empty = %v, want %v", s.Empty, c.Empty)
			}
			for i, p := range problems {
				if i >= len(c.Problems) {
					t.Errorf("unexpected problem %s:%d: %s", p.Path, p.Node.Line, p.Message)
					continue
				}
				want := c.Problems[i]
				if p.Path != want.Path || p.Node.Line != want.Line || !strings.Contains(p.Message, want.Message) {
					t.Errorf("problem %d = %s:%d: %s\nwant %s:%d: ...%s...", i, p.Path, p.Node.Line, p.Message, want.Path, want.Line, want.Message)
				}
			}
			for _, want := range c.Problems[min(len(problems), len(c.Problems)):] {
				t.Errorf("missing problem %s:%d: %s", want.Path, want.Line, want.Message)
			}
			for _, m := range c.Match {
				ls := Labels(&m.Labels)
				ok, failed := s.Matches(ls)
				got := ""
				if failed != nil {
					got = failed.String()
				}
				if ok != m.Want || got != m.Failed {
					t.Errorf("Matches(%v) = %v, %q; want %v, %q", ls, ok, got, m.Want, m.Failed)
				}
				// The summaries' compact form answers as the map does.
				ok, failed = s.MatchesSet(SetOf(ls))
				got = ""
				if failed != nil {
					got = failed.String()
				}
				if ok != m.Want || got != m.Failed {
					t.Errorf("MatchesSet(%v) = %v, %q; want %v, %q", ls, ok, got, m.Want, m.Failed)
				}
			}
		})
	}
}

func TestLabels(t *testing.T) {
	var n yaml.Node
	src := "base: &b {team: x}\nlabels: {<<: *b, app: web, on: yes, n: 1.10, empty: , nested: {a: b}, 'q': \"s\"}\n"
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	got := Labels(n.Content[0].Content[3])
	want := map[string]string{"team": "x", "app": "web", "true": "yes", "false": "1.10", "empty": "", "q": "s"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Labels = %v, want %v", got, want)
	}
	if Labels(nil) != nil {
		t.Error("Labels(nil) is not nil")
	}
}

// TestKeysAsKubectl holds key conversion to YAMLToJSON, which prints
// non-string keys in its own way (floats in 32-bit precision).
func TestKeysAsKubectl(t *testing.T) {
	for _, k := range []string{"app", "on", "Off", "y", "1", "-1", "0x1F", "0755", "1.10", "1e3", "0.1", "1.5e10",
		"123456789", "9223372036854775807", "18446744073709551615", "~", "null", "99999999999999999999", "1e300", "-1e300", ".inf", "-.Inf", ".nan",
		"'on'", "!!str on", "1_000", "2020-01-01", "1e-7"} {
		doc := "{" + k + ": v}"
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
			t.Fatal(err)
		}
		js, err := sigsyaml.YAMLToJSON([]byte(doc))
		if err != nil {
			if _, problems := FromMap(&n); len(problems) == 0 {
				t.Errorf("%s: no problem, but YAMLToJSON fails: %v", doc, err)
			}
			continue
		}
		var want map[string]string
		if err := json.Unmarshal(js, &want); err != nil {
			t.Fatal(err)
		}
		if got := Labels(&n); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: Labels = %v, YAMLToJSON %v", doc, got, want)
		}
	}
}

// TestAgainstAPIMachinery generates selectors and label sets and checks that
// FromLabelSelector reports a problem exactly when kubectl plus the API
// server reject the selector, and otherwise matches as apimachinery does.
func TestAgainstAPIMachinery(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	accepted := 0
	for range 3000 {
		doc := genSelector(r)
		api, apiErr := apiLabelSelector([]byte(doc))
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		s, problems := FromLabelSelector(root(&n))
		if (apiErr == nil) != (len(problems) == 0) {
			t.Errorf("%s\n  api error: %v\n  problems: %v", doc, apiErr, problems)
			continue
		}
		if apiErr != nil {
			continue
		}
		accepted++
		compare(t, doc, s, api)
		checkStrings(t, doc, s)
	}
	if accepted < 300 {
		t.Errorf("only %d generated selectors were valid", accepted)
	}
}

func TestMapAgainstAPIMachinery(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 2000 {
		doc := genMap(r)
		api, apiErr := apiMapSelector([]byte(doc))
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		s, problems := FromMap(root(&n))
		if (apiErr == nil) != (len(problems) == 0) {
			t.Errorf("%s\n  api error: %v\n  problems: %v", doc, apiErr, problems)
			continue
		}
		if apiErr == nil && s != nil {
			compare(t, doc, s, api)
		}
	}
}

func root(doc *yaml.Node) *yaml.Node {
	if len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// compare evaluates both selectors on label sets built from s's own keys
// and values, so that matches and near-misses both occur.
func compare(t *testing.T, doc string, s *Selector, api labels.Selector) {
	t.Helper()
	for _, ls := range labelSets(s) {
		got, failed := s.Matches(ls)
		if want := api.Matches(labels.Set(ls)); got != want {
			t.Errorf("%s\n  labels %v: Matches = %v (failed %v), apimachinery %v", doc, ls, got, failed, want)
		}
		if !got && s != nil && (failed == nil || failed.matches(ls)) {
			t.Errorf("%s\n  labels %v: failed requirement %v does match", doc, ls, failed)
		}
	}
}

func labelSets(s *Selector) []map[string]string {
	sets := []map[string]string{{}, {"app": "web"}, {"app": "web", "tier": "a", "true": "x"}}
	if s == nil {
		return sets
	}
	all, alt := map[string]string{}, map[string]string{}
	for _, r := range s.Requirements {
		for _, v := range append(slicesOr(r.Values), "zz") {
			sets = append(sets, map[string]string{r.Key: v})
		}
		all[r.Key] = slicesOr(r.Values)[0]
		alt[r.Key] = slicesOr(r.Values)[len(slicesOr(r.Values))-1]
	}
	return append(sets, all, alt)
}

func slicesOr(vs []string) []string {
	if len(vs) == 0 {
		return []string{"x"}
	}
	return vs
}

// checkStrings holds Requirement.String to apimachinery's printing.
func checkStrings(t *testing.T, doc string, s *Selector) {
	t.Helper()
	if s == nil {
		return
	}
	ops := map[Op]selection.Operator{In: selection.In, NotIn: selection.NotIn, Exists: selection.Exists, DoesNotExist: selection.DoesNotExist}
	for _, r := range s.Requirements {
		op := ops[r.Op]
		if r.Equality {
			op = selection.Equals
		}
		want, err := labels.NewRequirement(r.Key, op, r.Values)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if r.String() != want.String() {
			t.Errorf("%s: String() = %q, apimachinery %q", doc, r.String(), want.String())
		}
	}
}

var (
	genKeys   = []string{"app", "tier", "app.kubernetes.io/name", "on", "1.10", "'1.10'", "bad key", "a/b/c", "x/", "\"\"", "Tier", "env"}
	genValues = []string{"web", "a", "b", "\"\"", "~", "null", "yes", "'yes'", "1.10", "\"1.10\"", "0755", "v1", "bad value", "-a", strings.Repeat("x", 64), "{a: b}", "[a]"}
	genOps    = []string{"In", "NotIn", "Exists", "DoesNotExist", "in", "Gt", "\"\"", "~"}
)

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

func genSelector(r *rand.Rand) string {
	if r.IntN(20) == 0 {
		return pick(r, []string{"~", "", "{}", "[]", "x", "{matchLabels: ~, matchExpressions: ~}"})
	}
	var fields []string
	switch r.IntN(4) {
	case 1:
		fields = append(fields, "matchLabels: "+pick(r, []string{"{}", "~", "[]"}))
	case 2, 3:
		var kv []string
		for range 1 + r.IntN(3) {
			kv = append(kv, pick(r, genKeys)+": "+pick(r, genValues))
		}
		fields = append(fields, "matchLabels: {"+strings.Join(kv, ", ")+"}")
	}
	switch r.IntN(4) {
	case 1:
		fields = append(fields, "matchExpressions: "+pick(r, []string{"[]", "~", "{}"}))
	case 2, 3:
		var items []string
		for range 1 + r.IntN(3) {
			var f []string
			if r.IntN(10) != 0 {
				f = append(f, "key: "+pick(r, genKeys))
			}
			if r.IntN(10) != 0 {
				f = append(f, "operator: "+pick(r, genOps))
			}
			switch r.IntN(4) {
			case 1:
				f = append(f, "values: "+pick(r, []string{"[]", "~"}))
			case 2, 3:
				var vs []string
				for range 1 + r.IntN(3) {
					vs = append(vs, pick(r, genValues))
				}
				f = append(f, "values: ["+strings.Join(vs, ", ")+"]")
			}
			items = append(items, "{"+strings.Join(f, ", ")+"}")
		}
		fields = append(fields, "matchExpressions: ["+strings.Join(items, ", ")+"]")
	}
	if r.IntN(15) == 0 {
		fields = append(fields, pick(r, []string{"MatchLabels: {}", "extra: 1"}))
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ", ") + "}"
}

func genMap(r *rand.Rand) string {
	if r.IntN(20) == 0 {
		return pick(r, []string{"~", "{}", "[]", "x"})
	}
	var kv []string
	for range r.IntN(4) {
		kv = append(kv, pick(r, genKeys)+": "+pick(r, genValues))
	}
	return "{" + strings.Join(kv, ", ") + "}"
}

// FuzzSelector parses arbitrary bytes as the selector node: parsing must
// never panic, a selector we accept must be one the API server accepts,
// and whenever the API server accepts one, Matches must agree with it.
func FuzzSelector(f *testing.F) {
	for _, s := range []string{
		"{}", "~", "matchLabels: {app: web}",
		"matchExpressions: [{key: tier, operator: In, values: [a, b]}]",
		"{matchLabels: {on: yes}, matchExpressions: [{key: x, operator: in}]}",
		"base: &b {app: web}\nmatchLabels: {<<: *b, tier: a}",
		"&a {<<: *a}", "matchLabels: !!map {a: !!str 1, b: !foo x}",
		"matchLabels:\n  1: a\n  \"1\": b\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil {
			return
		}
		n := root(&doc)
		s, problems := FromLabelSelector(n)
		_ = s.String()
		_ = Labels(n)
		_, _ = FromMap(n)

		// The oracle parses with v2; where v2 cannot parse what v3 did,
		// the two sides read different documents.
		var v2 any
		if yaml2.Unmarshal(data, &v2) != nil {
			return
		}
		// At the start of a document, v2 reads a flow collection followed
		// by `:` as the whole document and drops the rest ("{}:" is {}),
		// where yaml.v3 reads a mapping with a collection for key. A
		// selector never starts a document in a manifest.
		if n != nil && n.Kind == yaml.MappingNode && len(n.Content) > 0 &&
			(n.Content[0].Kind == yaml.MappingNode || n.Content[0].Kind == yaml.SequenceNode) {
			return
		}
		api, err := apiLabelSelector(data)
		if err == nil && s == nil && len(problems) == 0 {
			if api.Matches(labels.Set{}) {
				t.Fatalf("%q: nil selector, apimachinery %v", data, api)
			}
			return
		}
		if len(problems) == 0 && err != nil && !nonSpecificTag.Match(data) {
			t.Fatalf("%q: no problems, but the API server rejects it: %v", data, err)
		}
		if err != nil {
			return
		}
		for _, p := range problems {
			if !conservative(p, data) {
				t.Fatalf("%q: the API server accepts it, but %s: %s", data, p.Path, p.Message)
			}
		}
		// A bare `!` tag makes v2 read `! Y` as the string "Y" where
		// yaml.v3 keeps a plain Y (a known, documented limit): the two
		// sides then read different labels, so there is nothing to compare.
		if len(problems) == 0 && !nonSpecificTag.Match(data) {
			compare(t, string(data), s, api)
		}
	})
}

// conservative tells the problems we may report for a selector the API
// server accepts: tags we do not mirror, and `! yes` (yaml.v3 drops the
// non-specific tag that makes v2 read a string, so the node looks plain).
// The keys collision is real but its outcome is random, so the two sides
// cannot be compared.
func conservative(p Problem, data []byte) bool {
	switch {
	case strings.HasPrefix(p.Message, "explicit tag"),
		strings.Contains(p.Message, "which one wins is random"):
		return true
	case strings.HasPrefix(p.Message, "unquoted"):
		return nonSpecificTag.Match(data)
	}
	return false
}

// nonSpecificTag finds a lone '!' tag: v2 reads `! 1` and `!` as strings,
// yaml.v3 leaves no trace of the tag in the node.
var nonSpecificTag = regexp.MustCompile(`(?:^|[^\w!])!(?:$|[\s,\]}\x{85}\x{2028}\x{2029}\x{feff}])`)

// TestMergeBomb: merge keys over aliases multiply; parsing must stay cheap
// and report the document, as v2 refuses it too.
func TestMergeBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("l0: &l0 {a: one, b: two}\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d {<<: [%s]}\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 9), ", "))
	}
	b.WriteString("selector: {matchLabels: *l9}\n")
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(b.String()), &n); err != nil {
		t.Fatal(err)
	}
	sel := n.Content[0].Content[len(n.Content[0].Content)-1]
	_, problems := FromLabelSelector(sel)
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "too many merged entries") {
		t.Errorf("problems = %v", problems)
	}
	var v any
	if err := yaml2.Unmarshal([]byte(b.String()), &v); err == nil {
		t.Error("v2 accepts it")
	}
}
