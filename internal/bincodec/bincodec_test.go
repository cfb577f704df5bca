package bincodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
)

type inner struct {
	Key   string
	Index int
}

type promoted struct{ Note string }

type sample struct {
	B     bool
	I8    int8
	I     int
	I64   int64
	U16   uint16
	U64   uint64
	F32   float32
	F64   float64
	S     string
	Bytes []byte
	Arr   [3]int32
	P     *inner
	PP    **string
	L     []inner
	LL    [][]string
	M     map[string][]int
	MI    map[int]string
	MB    map[bool]int
	MU    map[uint8]*inner
	promoted
}

func samples() []sample {
	s := "pointed"
	ps := &s
	return []sample{
		{},
		{B: true, I8: -128, I: math.MinInt, I64: math.MaxInt64, U16: 65535, U64: math.MaxUint64, F32: 1.5, F64: -0.1,
			S: "héllo\x00\n", Bytes: []byte{0, 1, 255}, Arr: [3]int32{-1, 0, 1}, P: &inner{"k", -1}, PP: &ps,
			L: []inner{{"a", 0}, {}}, LL: [][]string{nil, {}, {""}}, M: map[string][]int{"b": nil, "a": {}, "": {3}},
			MI: map[int]string{-5: "x", 7: ""}, MB: map[bool]int{true: 1, false: 0}, MU: map[uint8]*inner{0: nil, 9: {}},
			promoted: promoted{"p"}},
		{Bytes: []byte{}, L: []inner{}, M: map[string][]int{}, P: &inner{}},
	}
}

func TestRoundTrip(t *testing.T) {
	for i, in := range samples() {
		data, err := Append(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		var back sample
		if err := Decode(data, &back); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		if !reflect.DeepEqual(back, in) {
			t.Fatalf("sample %d:\n%#v\ncame back as\n%#v", i, in, back)
		}
		// One value, one encoding: what Decode accepts re-encodes to the
		// same bytes.
		again, _ := Append(nil, back)
		if !bytes.Equal(again, data) {
			t.Fatalf("sample %d: encoded twice differently", i)
		}
	}
}

// A map's encoding does not depend on its insertion order (a cache key
// hashes it).
func TestMapCanonical(t *testing.T) {
	a, b := map[string]int{}, map[string]int{}
	keys := []string{"z", "a", "m", "b", "", "aa"}
	for i, k := range keys {
		a[k] = i
		b[keys[len(keys)-1-i]] = len(keys) - 1 - i
	}
	ea, _ := Append(nil, a)
	eb, _ := Append(nil, b)
	if !bytes.Equal(ea, eb) {
		t.Fatal("one map, two encodings")
	}
	// Keys out of order or repeated are not an encoding.
	bad := []byte{3, 1, 'b', 2, 1, 'a', 2}
	var m map[string]int
	if err := Decode(bad, &m); !errors.Is(err, ErrDamaged) {
		t.Fatalf("keys out of order: %v", err)
	}
	bad = []byte{3, 1, 'a', 2, 1, 'a', 2}
	if err := Decode(bad, &m); !errors.Is(err, ErrDamaged) {
		t.Fatalf("a key twice: %v", err)
	}
}

type withFunc struct{ F func() }
type withIface struct{ V any }
type withUnexported struct{ s string }
type withChan struct{ C []chan int }
type withStructKey struct{ M map[inner]int }
type cyclic struct{ Next *cyclic }

func TestRefused(t *testing.T) {
	loop := &cyclic{}
	loop.Next = loop
	for _, v := range []any{
		withFunc{func() {}}, withIface{1}, withIface{}, withUnexported{"x"}, withChan{[]chan int{nil}},
		withStructKey{map[inner]int{{}: 1}}, loop, complex(1, 2), nil,
	} {
		if _, err := Append(nil, v); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%T: Append says %v, want ErrUnsupported", v, err)
		}
	}
	for _, v := range []any{withFunc{}, withIface{}, withUnexported{}, withChan{}, withStructKey{}} {
		if err := CheckType(reflect.TypeOf(v)); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%T: CheckType says %v, want ErrUnsupported", v, err)
		}
	}
	if err := CheckType(reflect.TypeFor[sample]()); err != nil {
		t.Errorf("sample: %v", err)
	}
	if err := CheckType(reflect.TypeFor[cyclic]()); err != nil {
		t.Errorf("a recursive type is carried (its values, when finite): %v", err)
	}
	var s sample
	if err := Decode([]byte{0}, s); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Decode into a non-pointer: %v", err)
	}
}

// Every proper prefix of an encoding is refused; so is a byte more.
func TestDamaged(t *testing.T) {
	for _, in := range samples() {
		data, _ := Append(nil, in)
		for n := range len(data) {
			var back sample
			if err := Decode(data[:n], &back); !errors.Is(err, ErrDamaged) {
				t.Fatalf("%d of %d bytes: %v", n, len(data), err)
			}
		}
		var back sample
		if err := Decode(append(data, 0), &back); !errors.Is(err, ErrDamaged) {
			t.Fatalf("a byte after the value: %v", err)
		}
		// A flipped byte is refused or is another value's one encoding:
		// never a value that would encode otherwise (the store's checksum
		// is what tells a flip from an edit).
		for i := range data {
			flipped := bytes.Clone(data)
			flipped[i] ^= 0x41
			var back sample
			if Decode(flipped, &back) != nil {
				continue
			}
			if again, _ := Append(nil, back); !bytes.Equal(again, flipped) {
				t.Fatalf("byte %d flipped: decoded to a value that encodes otherwise", i)
			}
		}
	}
}

func TestHugeLengthRefused(t *testing.T) {
	// A slice of ten million elements announced in five bytes.
	data := []byte{0x80, 0xad, 0xe2, 0x04}
	var s []inner
	if err := Decode(data, &s); !errors.Is(err, ErrDamaged) {
		t.Fatalf("got %v", err)
	}
	var str string
	if err := Decode([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, &str); !errors.Is(err, ErrDamaged) {
		t.Fatalf("got %v", err)
	}
	var n int8
	if err := Decode([]byte{0x80, 0x02}, &n); !errors.Is(err, ErrDamaged) {
		t.Fatalf("int8 overflow: %v", err)
	}
	var u uint64
	if err := Decode([]byte{0x80, 0x00}, &u); !errors.Is(err, ErrDamaged) {
		t.Fatalf("a number not in its shortest form: %v", err)
	}
}

// FuzzDecode: arbitrary bytes never panic, never allocate beyond the
// input's proportion (lengths are bounded by it), and what decodes is
// the one encoding of what it decodes to.
func FuzzDecode(f *testing.F) {
	for _, in := range samples() {
		data, _ := Append(nil, in)
		f.Add(data)
	}
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		var v sample
		if err := Decode(data, &v); err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("not ErrDamaged: %v", err)
			}
			return
		}
		again, err := Append(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("%x decodes to a value that encodes as %x", data, again)
		}
	})
}

// benchEntry is shaped like the per-file cache's entries: findings with
// fixes, summaries, positions.
type benchEntry struct {
	Docs     int
	Findings []benchFinding
	IDs      []struct {
		Hash uint64
		File string
	}
	Ignores map[int][]string
}

type benchFinding struct {
	Rule, Message, Detail, File, Field string
	Line, Column, Doc, Item            int
	Fix                                *struct {
		Message string
		Edits   []struct {
			Op    int
			Path  []inner
			Value string
		}
	}
	Related []string
}

func benchValue(b testing.TB) (benchEntry, []byte, []byte) {
	var e benchEntry
	raw := `{"Docs":2,"Findings":[{"Rule":"latest-tag","Message":"image nginx:latest uses a mutable tag","File":"manifest.yaml","Field":"spec.template.spec.containers.0.image","Line":21,"Column":16,"Doc":0,"Item":-1,
	"Fix":{"Message":"pin it","Edits":[{"Op":1,"Path":[{"Key":"spec","Index":-1},{"Key":"containers","Index":-1},{"Index":0}],"Value":"nginx:1.27"}]},"Related":["spec.selector"]},
	{"Rule":"no-limits","Message":"container web has no memory limit","File":"manifest.yaml","Field":"spec.template.spec.containers.0","Line":19,"Column":9,"Doc":0,"Item":-1}],
	"IDs":[{"Hash":12345678901234,"File":"manifest.yaml"},{"Hash":42,"File":"manifest.yaml"}],"Ignores":{"3":["a","b"]}}`
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		b.Fatal(err)
	}
	j, _ := json.Marshal(e)
	bin, err := Append(nil, e)
	if err != nil {
		b.Fatal(err)
	}
	return e, j, bin
}

func BenchmarkEntry(b *testing.B) {
	e, j, bin := benchValue(b)
	b.Run("decode/bincodec", func(b *testing.B) {
		for b.Loop() {
			var v benchEntry
			if err := Decode(bin, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/json", func(b *testing.B) {
		for b.Loop() {
			var v benchEntry
			if err := json.Unmarshal(j, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/bincodec", func(b *testing.B) {
		for b.Loop() {
			Append(nil, e)
		}
	})
	b.Run("encode/json", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(e)
		}
	})
}

// handDecode is benchEntry's decoder written by hand over the same form:
// the alternative to the reflect walk, measured beside it (BenchmarkEntry).
func handDecode(data []byte) (benchEntry, error) {
	r := reader{data: string(data)}
	var e benchEntry
	num := func() int { n, _ := r.varint(); return int(n) }
	str := func() string { n, _ := r.length(); s := r.data[r.at : r.at+n]; r.at += n; return s }
	strs := func() []string {
		n, _ := r.nilOrLength()
		if n < 0 {
			return nil
		}
		out := make([]string, n)
		for i := range out {
			out[i] = str()
		}
		return out
	}
	e.Docs = num()
	if n, _ := r.nilOrLength(); n >= 0 {
		e.Findings = make([]benchFinding, n)
		for i := range e.Findings {
			f := &e.Findings[i]
			f.Rule, f.Message, f.Detail, f.File, f.Field = str(), str(), str(), str(), str()
			f.Line, f.Column, f.Doc, f.Item = num(), num(), num(), num()
			if b, _ := r.byte(); b == 1 {
				f.Fix = new(struct {
					Message string
					Edits   []struct {
						Op    int
						Path  []inner
						Value string
					}
				})
				f.Fix.Message = str()
				if n, _ := r.nilOrLength(); n >= 0 {
					f.Fix.Edits = make([]struct {
						Op    int
						Path  []inner
						Value string
					}, n)
					for j := range f.Fix.Edits {
						ed := &f.Fix.Edits[j]
						ed.Op = num()
						if n, _ := r.nilOrLength(); n >= 0 {
							ed.Path = make([]inner, n)
							for k := range ed.Path {
								ed.Path[k] = inner{str(), num()}
							}
						}
						ed.Value = str()
					}
				}
			}
			f.Related = strs()
		}
	}
	if n, _ := r.nilOrLength(); n >= 0 {
		e.IDs = make([]struct {
			Hash uint64
			File string
		}, n)
		for i := range e.IDs {
			e.IDs[i].Hash, _ = r.uvarint()
			e.IDs[i].File = str()
		}
	}
	if n, _ := r.nilOrLength(); n >= 0 {
		e.Ignores = make(map[int][]string, n)
		for range n {
			k := num()
			e.Ignores[k] = strs()
		}
	}
	if r.at != len(r.data) {
		return e, ErrDamaged
	}
	return e, nil
}

func TestHandDecodeAgrees(t *testing.T) {
	e, _, bin := benchValue(t)
	got, err := handDecode(bin)
	if err != nil || !reflect.DeepEqual(got, e) {
		t.Fatalf("the hand-written decoder disagrees: %v\n%+v\n%+v", err, got, e)
	}
}

func BenchmarkEntryHandWritten(b *testing.B) {
	_, _, bin := benchValue(b)
	for b.Loop() {
		if _, err := handDecode(bin); err != nil {
			b.Fatal(err)
		}
	}
}
