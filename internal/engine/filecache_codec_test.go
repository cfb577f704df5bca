package engine

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/cache"
	"github.com/shipshape-dev/shipshape/internal/config"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// oneLeafVariants returns values of t that each differ from t's zero
// value in one place (a field, an element, a pointer's target): every
// leaf of the type is set in one of them.
func oneLeafVariants(t reflect.Type) []reflect.Value {
	one := func(set func(v reflect.Value)) reflect.Value {
		v := reflect.New(t).Elem()
		set(v)
		return v
	}
	var out []reflect.Value
	switch t.Kind() {
	case reflect.String:
		out = append(out, one(func(v reflect.Value) { v.SetString("x") }))
	case reflect.Bool:
		out = append(out, one(func(v reflect.Value) { v.SetBool(true) }))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		out = append(out, one(func(v reflect.Value) { v.SetInt(1) }))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		out = append(out, one(func(v reflect.Value) { v.SetUint(1) }))
	case reflect.Pointer:
		for _, e := range append([]reflect.Value{reflect.New(t.Elem()).Elem()}, oneLeafVariants(t.Elem())...) {
			out = append(out, one(func(v reflect.Value) { p := reflect.New(t.Elem()); p.Elem().Set(e); v.Set(p) }))
		}
	case reflect.Slice:
		for _, e := range append([]reflect.Value{reflect.New(t.Elem()).Elem()}, oneLeafVariants(t.Elem())...) {
			out = append(out, one(func(v reflect.Value) { v.Set(reflect.Append(reflect.MakeSlice(t, 0, 1), e)) }))
		}
	case reflect.Map:
		k := oneLeafVariants(t.Key())[0]
		for _, e := range append([]reflect.Value{reflect.New(t.Elem()).Elem()}, oneLeafVariants(t.Elem())...) {
			out = append(out, one(func(v reflect.Value) { v.Set(reflect.MakeMap(t)); v.SetMapIndex(k, e) }))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			for _, f := range oneLeafVariants(t.Field(i).Type) {
				out = append(out, one(func(v reflect.Value) { v.Field(i).Set(f) }))
			}
		}
	default:
		panic("oneLeafVariants: add kind " + t.Kind().String())
	}
	return out
}

// The per-file cache's key covers every field of the configuration: a
// field added to config.Config (at any depth) gets a variant here, and
// the test fails if the key does not change with it, or cannot be made.
func TestFileCacheKeyCoversConfig(t *testing.T) {
	store := cache.Open(t.TempDir())
	baseKey := func(cfg *config.Config) cache.Key {
		e, err := New(cachedRules(), nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Cache, e.cfg = store, cfg
		c := e.openFileCache()
		if c == nil {
			t.Fatalf("no file cache for configuration %+v", cfg)
		}
		return c.base
	}
	seen := map[cache.Key]string{baseKey(&config.Config{}): "the zero configuration"}
	variants := oneLeafVariants(reflect.TypeFor[config.Config]())
	t.Logf("%d configurations, each with one field set", len(variants))
	if len(variants) < reflect.TypeFor[config.Config]().NumField() {
		t.Fatalf("%d variants for %d fields", len(variants), reflect.TypeFor[config.Config]().NumField())
	}
	for i, v := range variants {
		cfg := v.Interface().(config.Config)
		k := baseKey(&cfg)
		desc := fmt.Sprintf("variant %d (%+v)", i, cfg)
		if was, ok := seen[k]; ok {
			t.Errorf("configuration %s has the key of %s", desc, was)
		}
		seen[k] = desc
	}
	// The key is the configuration's, not the map's order.
	a := &config.Config{Rules: map[string]config.RuleConfig{}}
	b := &config.Config{Rules: map[string]config.RuleConfig{}}
	ids := []string{"z", "a", "m", "b"}
	for _, id := range ids {
		a.Rules[id] = config.RuleConfig{Severity: id}
	}
	for _, id := range slices.Backward(ids) {
		b.Rules[id] = config.RuleConfig{Severity: id}
	}
	if baseKey(a) != baseKey(b) {
		t.Error("one configuration, two keys")
	}
}

// fullFinding has every field of a finding set, with a fix of edits.
func fullFinding(file string) analysis.Finding {
	return analysis.Finding{Rule: "r", Severity: analysis.Error, Message: "m \x00 é", Detail: "d\nd",
		Resource: manifest.Resource{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "n"},
		Field:    "metadata.name", File: file, Line: 3, Column: 9,
		Fix: &analysis.Fix{Message: "quote it", Edits: []analysis.Edit{
			{Op: analysis.Set, Path: manifest.FieldPath{{Key: "metadata", Index: -1}, {Key: "name", Index: -1, Nth: 1}}, OnKey: true, Value: "v"},
			{Path: manifest.FieldPath{{Index: 2}}},
		}},
		Doc: 1, Item: -1, Roots: []string{"a", ""}, Related: []string{"spec.x"}, Rendered: true, Unrendered: analysis.RemoteBase}
}

// fullResult is a FileResult with every stored field set, and a
// summary of each kind the test rule makes.
func fullResult(t *testing.T, e *Engine) *FileResult {
	in := manifest.Input{Path: "dir/file.yaml"}
	ctx := manifest.Context{Application: "app", Kustomize: []string{"k"}, SelectorLabels: map[string]string{"a": "b"}}
	app := analysis.AppID{Dir: "/abs/dir", Unlisted: true, File: "f", Variant: "v"}
	fr := &FileResult{Input: in, File: &manifest.File{Path: in.Path, Docs: 3, BOM: true, Context: ctx},
		own: []analysis.Finding{fullFinding(in.Path), {Doc: -1, Item: -1}}, objects: 2,
		origins:   []summaryOrigin{{objectFile{"dir/file.yaml", false}, app}, {objectFile{"dir/kustomization.yaml", true}, analysis.AppID{Dir: "/x"}}},
		unreadApp: app, ids: []objectID{{1<<63 + 5, objectFile{"dir/file.yaml", true}}}, idApp: app,
		ignores: lineIgnores{0: nil, 4: {"a", "b"}}, optOuts: map[objectKey]analysis.RuleSet{{0, -1}: {"all"}, {1, 2}: nil}}
	i := slices.IndexFunc(e.cross, func(r *analysis.Rule) bool { return r.ID == sameName.ID })
	if i < 0 {
		t.Fatal("the test rule is not a cross-resource rule of the engine")
	}
	fr.summaries = []summary{
		{value: sameNameSummary{"ConfigMap", "n", map[string]string{"k": "v", "": ""}, fullFinding(in.Path)}, doc: 0, item: -1, rule: int32(i), origin: 0},
		{value: sameNameSummary{}, doc: 2, item: 7, rule: int32(i), origin: 1},
	}
	return fr
}

func codecEngine(t *testing.T) (*Engine, *fileCache) {
	e, err := New(cachedRules(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Cache = cache.Open(t.TempDir())
	return e, e.openFileCache()
}

// A result with findings with fixes, summaries, origins, ignores and
// opt-outs is stored and comes back equal, field by field; so does each
// result of linting the cache test tree.
func TestFileEntryRoundTrip(t *testing.T) {
	e, c := codecEngine(t)
	fr := fullResult(t, e)
	data, ok := c.encode(e, fr)
	if !ok {
		t.Fatal("the full result is not stored")
	}
	back, ok := c.decode(e, data, fr.Input, fr.File.Context)
	if !ok || !sameResult(back, fr) {
		t.Fatalf("the full result came back as %+v", back)
	}

	dir := cacheTree(t)
	inputs, _ := manifest.Collect([]string{dir})
	n := 0
	for _, in := range inputs {
		data, err := os.ReadFile(in.Path)
		if err != nil {
			t.Fatal(err)
		}
		fr := e.lintFileIn(in, data, manifest.Context{}, nil)
		ent, ok := c.encode(e, fr)
		if !ok {
			t.Errorf("%s: not stored", in.Path)
			continue
		}
		if back, ok := c.decode(e, ent, in, manifest.Context{}); !ok || !sameResult(back, fr) {
			t.Errorf("%s: came back otherwise", in.Path)
		}
		n += len(fr.own) + len(fr.summaries)
	}
	if n == 0 {
		t.Fatal("the tree gave no finding and no summary: nothing was checked")
	}
}

// A damaged entry is a miss, never another result, checked on the
// decoder alone (the store's checksum catches damage before it).
func TestFileEntryDamaged(t *testing.T) {
	e, c := codecEngine(t)
	fr := fullResult(t, e)
	data, ok := c.encode(e, fr)
	if !ok {
		t.Fatal("not stored")
	}
	for n := range len(data) {
		if _, ok := c.decode(e, data[:n], fr.Input, fr.File.Context); ok {
			t.Fatalf("an entry cut to %d of %d bytes decoded", n, len(data))
		}
	}
	old := bytes.Clone(data)
	old[0]--
	if _, ok := c.decode(e, old, fr.Input, fr.File.Context); ok {
		t.Fatal("an entry of another format version decoded")
	}
	// A flipped byte is refused, or is the one encoding of another
	// result (a changed letter of a message): never a result that would
	// be stored otherwise.
	for i := 1; i < len(data); i++ {
		flipped := bytes.Clone(data)
		flipped[i] ^= 0x41
		back, ok := c.decode(e, flipped, fr.Input, fr.File.Context)
		if !ok {
			continue
		}
		if again, ok := c.encode(e, back); ok && !bytes.Equal(again, flipped) {
			t.Fatalf("byte %d flipped: decoded to a result stored otherwise", i)
		}
	}
}
