package yaml11

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	yaml2 "go.yaml.in/yaml/v2"
)

// TestResolve pins the answers a reader of the rule's messages relies on,
// including the surprising ones. TestDifferential proves them against v2.
func TestResolve(t *testing.T) {
	tests := []struct {
		in   string
		kind Kind // String means ok == false
		text string
	}{
		{"nginx", String, ""},
		{"v1", String, ""},
		{"app.kubernetes.io", String, ""},
		{"", Null, "null"},
		{"~", Null, "null"},
		{"null", Null, "null"},
		{"Null", Null, "null"},
		{"NULL", Null, "null"},
		{"nULL", String, ""},
		{"yes", Bool, "true"},
		{"Y", Bool, "true"},
		{"ON", Bool, "true"},
		{"Off", Bool, "false"},
		{"n", Bool, "false"},
		{"FALSE", Bool, "false"},
		{"yES", String, ""},
		{"yes!", String, ""},
		{"ON ", String, ""}, // never a plain scalar's text: YAML trims it
		{"1.10", Float, "1.1"},
		{"1.10.2", String, ""},
		{"3.0", Float, "3"},
		{"0123", Int, "83"},
		{"0755", Int, "493"},
		{"08", Float, "8"}, // not octal, so the float pattern takes it
		{"09.5", Float, "9.5"},
		{"0x1F", Int, "31"},
		{"0X1f", Int, "31"},
		{"0o17", Int, "15"},
		{"0o8", String, ""},
		{"0b101", Int, "5"},
		{"0b102", String, ""},
		{"0b-101", Int, "-5"},
		{"0b+11", Int, "3"},
		{"0x", String, ""},
		{"+1", Int, "1"},
		{"-0", Int, "0"},
		{"-0.0", Float, "-0"},
		{"1_000", Int, "1000"},
		{"1_", Int, "1"},
		{"_1", String, ""},
		{"0_x1F", Int, "31"},
		{"1_e3", Float, "1000"},
		{"1e3", Float, "1000"},
		{"1E3", Float, "1000"},
		{"1e+3", Float, "1000"},
		{"1e", String, ""},
		{"1.", Float, "1"},
		{"0.", Float, "0"},
		{".5", Float, "0.5"},
		{"._5", String, ""},
		{"1e21", Float, "1e+21"},
		{"1e20", Float, "100000000000000000000"},
		{"0.0000001", Float, "1e-7"},
		{"1e400", String, ""},
		{"1e-400", Float, "0"},
		{"9223372036854775807", Int, "9223372036854775807"},
		{"18446744073709551615", Int, "18446744073709551615"},
		{"18446744073709551616", Float, "18446744073709552000"},
		{"-9223372036854775809", Float, "-9223372036854776000"},
		{"0x8000000000000000", Int, "9223372036854775808"},
		{"-0x8000000000000001", String, ""},
		{"0xFFFFFFFFFFFFFFFFF", String, ""},
		{".inf", Float, "+Inf"},
		{"-.Inf", Float, "-Inf"},
		{".NaN", Float, "NaN"},
		{"NaN", String, ""},
		{"Infinity", String, ""},
		{"+Inf", String, ""},
		{"+", String, ""},
		{"-", String, ""},
		{".", String, ""},
		{"..", String, ""},
		{"<<", String, ""},
		{"=", String, ""},
		{"2020-01-01", String, ""},
		{"12:30", String, ""},
		{"1:20:30", String, ""}, // v2 has no base-60 numbers
	}
	for _, tt := range tests {
		v, ok := Resolve(tt.in)
		if ok != (tt.kind != String) || v.Kind != tt.kind || v.Text != tt.text {
			t.Errorf("Resolve(%q) = %v %q, %v; want %v %q", tt.in, v.Kind, v.Text, ok, tt.kind, tt.text)
		}
	}
}

func TestDescribe(t *testing.T) {
	for in, want := range map[string]string{
		"yes":  "boolean true",
		"off":  "boolean false",
		"1.10": "number 1.1",
		"0755": "number 493",
		"~":    "null",
	} {
		v, _ := Resolve(in)
		if got := v.Describe(); got != want {
			t.Errorf("Resolve(%q).Describe() = %q, want %q", in, got, want)
		}
	}
}

// TestDifferential runs the real decoder on every input of a large generated
// set and checks Resolve agrees on string-or-not, kind and JSON text.
func TestDifferential(t *testing.T) {
	inputs := generated(t)
	skipped := 0
	for _, s := range inputs {
		want, wantOK, skip, err := oracle(s)
		if err != nil {
			t.Fatal(err)
		}
		if skip {
			skipped++
			continue
		}
		got, gotOK := Resolve(s)
		if gotOK != wantOK || got != want {
			t.Errorf("Resolve(%q) = %+v, %v; v2 says %+v, %v", s, got, gotOK, want, wantOK)
		}
	}
	// Guard against an oracle that quietly skips everything.
	if checked := len(inputs) - skipped; checked < len(inputs)*9/10 {
		t.Fatalf("only %d of %d inputs were single plain scalars", checked, len(inputs))
	}
	t.Logf("%d inputs, %d compared with v2", len(inputs), len(inputs)-skipped)
}

// generated returns the near-misses in testdata/inputs.txt, every bool and
// null word in every casing, numbers in every form with signs, suffixes and
// underscores, and random strings over the alphabet numbers are made of.
func generated(t testing.TB) []string {
	var out []string
	f, err := os.Open("testdata/inputs.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		s, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("testdata/inputs.txt: %q: %v", line, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	for _, w := range []string{"y", "yes", "n", "no", "on", "off", "true", "false", "null", "nan", "inf"} {
		for mask := 0; mask < 1<<len(w); mask++ {
			b := []byte(w)
			for i := range b {
				if mask&(1<<i) != 0 {
					b[i] -= 'a' - 'A'
				}
			}
			for _, pre := range []string{"", ".", "+.", "-.", "+", "-"} {
				out = append(out, pre+string(b))
			}
		}
	}
	out = append(out, "~", "~~", "~a", "nul", "nulls", "o", "O", "t", "T", "f", "F")

	bodies := []string{
		"0", "1", "7", "8", "9", "00", "01", "07", "08", "010", "0777", "0778", "123",
		"0x1F", "0X1f", "0x", "0xg", "0x_1", "0o17", "0O17", "0o", "0o8", "0b101", "0B11",
		"0b", "0b102", "0b+1", "0b-1", "0b_-1", "0B+1", "1_000", "_1", "1_", "1__0", "0_x1F",
		"1.5", "1.", ".5", ".", "..", "1..2", "1.10", "1.10.2", "1.2.3", "1e3", "1E3", "1e+3",
		"1e-3", "1e", "1e+", "1.e3", ".e3", "1e3.5", "1_e3", "1e_3", "._5", ".5_",
		"9223372036854775807", "9223372036854775808", "18446744073709551615",
		"18446744073709551616", "99999999999999999999", "1e308", "1e309", "1e400", "1e-400",
		"4.9e-324", "2e-324", "0x7FFFFFFFFFFFFFFF", "0x8000000000000000",
		"0xFFFFFFFFFFFFFFFF", "0x10000000000000000", "0o1777777777777777777777",
		"0o2000000000000000000000", "0b" + strings.Repeat("1", 63), "0b" + strings.Repeat("1", 64),
		"0b1" + strings.Repeat("0", 63), "0b1" + strings.Repeat("0", 64),
		"0b-1" + strings.Repeat("0", 63), "0b+" + strings.Repeat("1", 64),
		"0.000001", "0.0000001", "123456789012345678901234567890", "1e20", "1e21",
		"2020-01-01", "2020-1-1", "2020-01-01T00:00:00Z", "2001-12-14 21:59:43.10",
		"12:30", "1:20:30", "190:20:30.15", "80/TCP", "10m", "1Gi", "0.5Gi", "1.2.3-rc1",
		"10.0.0.1", "1,000", "1 000", "0x1p-2", "1e3e3",
	}
	for _, sign := range []string{"", "+", "-"} {
		for _, b := range bodies {
			for _, suf := range []string{"", "_", "x", ".", "e", "0", "!", "a"} {
				out = append(out, sign+b+suf)
			}
		}
	}

	const alphabet = "0123456789+-._eExXoObBaf"
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 1+r.IntN(7))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		out = append(out, string(b))
	}
	return out
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"yes", "1.10", "0x1F", "0b-1", "1_000", "nginx", ".inf", "08"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotOK := Resolve(s) // must not panic, whatever s is
		// Beyond the oracle's own checks, keep out what cannot be one plain
		// scalar on a line: comments, mapping values, line breaks, and
		// control or non-UTF-8 bytes on which the two parsers may disagree.
		if !utf8.ValidString(s) || strings.ContainsAny(s, ":#\r\n\t\u0085\u2028\u2029\ufeff") {
			return
		}
		for _, r := range s {
			if r < 0x20 || r == 0x7f {
				return
			}
		}
		want, wantOK, skip, err := oracle(s)
		if err != nil {
			t.Fatal(err)
		}
		if skip {
			return
		}
		if gotOK != wantOK || got != want {
			t.Errorf("Resolve(%q) = %+v, %v; v2 says %+v, %v", s, got, gotOK, want, wantOK)
		}
	})
}

// TestNoAllocs holds the prefilter to its promise: strings that stay
// strings, which is nearly all of them, cost no allocation.
func TestNoAllocs(t *testing.T) {
	for _, s := range []string{"nginx", "frontend", "v1", "app.kubernetes.io", "1.10.2", "10.0.0.1",
		"2020-01-01", "80/TCP", "1.2.3-rc1", "nULL", "yes!", "0x", "_1", "1_2_3.4.5", "on-call"} {
		if n := testing.AllocsPerRun(100, func() { Resolve(s) }); n != 0 {
			t.Errorf("Resolve(%q) allocates %v times", s, n)
		}
		if _, ok := Resolve(s); ok {
			t.Errorf("Resolve(%q) is not a string", s)
		}
	}
}

var sink bool

// BenchmarkResolve runs a mix like the label values and annotations of a
// real repository: mostly names, some versions, a few YAML 1.1 traps.
func BenchmarkResolve(b *testing.B) {
	mix := []string{
		"nginx", "frontend", "v1", "app.kubernetes.io", "web", "backend", "production",
		"true", "1.10", "yes", "8080", "nginx:1.25", "10.0.0.1", "2020-01-01", "ClusterIP",
		"IfNotPresent", "on-call", "0.5", "1Gi", "default",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, sink = Resolve(mix[i%len(mix)])
	}
}

func BenchmarkResolveString(b *testing.B) {
	mix := []string{"nginx", "frontend", "v1", "app.kubernetes.io", "1.10.2", "10.0.0.1", "on-call"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, sink = Resolve(mix[i%len(mix)])
	}
}

// BenchmarkResolveCandidates is the rare slow path: values that do resolve
// pay for strconv and the Text string.
func BenchmarkResolveCandidates(b *testing.B) {
	mix := []string{"yes", "1.10", "0755", "8080", "1e3", "1_000", "~", "0x1F"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, sink = Resolve(mix[i%len(mix)])
	}
}

// BenchmarkV2Unmarshal is the alternative Resolve avoids: asking the real
// decoder about each scalar (as kyaml's IsValueNonString does).
func BenchmarkV2Unmarshal(b *testing.B) {
	mix := []string{"nginx", "frontend", "v1", "app.kubernetes.io", "true", "1.10", "yes"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		var v any
		_ = yaml2.Unmarshal([]byte(mix[i%len(mix)]), &v)
	}
}
