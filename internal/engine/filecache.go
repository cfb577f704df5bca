package engine

// The per-file cache: what linting one file produced (its findings with
// their fixes, and what the cross-resource rules keep of it) is a
// function of the program, the configuration, the file's path and bytes,
// and the context it is read in (manifest.Context: the roots that read
// it, the labels they add, ...). A later run that finds the same key
// takes the result from the cache (internal/cache) instead of parsing and
// judging the file again; with the stat index (cache.Index) it need not
// even read a file that did not change. Only files whose result needs
// nothing else are cached: not standard input, not a file an overlay
// replaces (the fix driver's verification), not a file under a
// `templates` directory (whether it is a Helm chart's depends on a
// Chart.yaml elsewhere), not a file that could not be read, and not a
// result whose stored form does not decode to exactly what was stored.

import (
	"cmp"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/shipshape-dev/shipshape/internal/analysis"
	"github.com/shipshape-dev/shipshape/internal/bincodec"
	"github.com/shipshape-dev/shipshape/internal/cache"
	"github.com/shipshape-dev/shipshape/internal/manifest"
)

// fileCache is one run's use of the per-file cache.
type fileCache struct {
	store *cache.Store
	index *cache.Index
	// pack: the entries this run reads and writes, in one entry for the
	// next run from the same directory (cache.Pack)
	pack *cache.Pack
	// base: the key's parts every file shares (program, configuration,
	// rules on and their severities).
	base cache.Key
	// crossByID: the cross-resource rules' places in Engine.cross.
	crossByID map[string]int
}

// openFileCache is the run's per-file cache; nil without a cache, and for
// a run that keeps the files' bytes (fix needs them, so reads them all).
func (e *Engine) openFileCache() *fileCache {
	if e.Cache == nil || e.KeepSource {
		return nil
	}
	// The configuration in bincodec's canonical form (map keys sorted):
	// every field, without encoding/json's per-type start-up cost.
	cfg, err := bincodec.Append(nil, e.cfg)
	if err != nil {
		return nil
	}
	h := cache.NewHasher("shipshape file lint v2")
	h.String(cache.Version())
	h.Bytes(cfg)
	h.Int(e.MaxFileSize)
	for _, r := range e.rules {
		h.String(r.ID)
		h.Int(int64(e.severity[r.ID]))
		h.String(boolText(e.overridden[r.ID]))
	}
	c := &fileCache{store: e.Cache, base: h.Key(), crossByID: map[string]int{}}
	for i, r := range e.cross {
		c.crossByID[r.ID] = i
	}
	scope, _ := e.wd.Abs(".")
	c.index = e.Cache.OpenIndex(scope)
	ph := cache.NewHasher("shipshape file lint pack v1")
	ph.Bytes(c.base[:])
	ph.String(scope)
	c.pack = e.Cache.OpenPack(ph.Key())
	return c
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// key is the entry of in's result read in ctx, with bytes of hash sum.
func (c *fileCache) key(e *Engine, in manifest.Input, ctx manifest.Context, sum [32]byte) cache.Key {
	h := cache.NewHasher("shipshape file lint entry v1")
	h.Bytes(c.base[:])
	h.String(in.Path)
	h.String(boolText(in.Context))
	app := e.application(in.Path)
	h.String(app.Dir)
	h.String(boolText(ctx.Patch))
	h.String(boolText(ctx.Unrendered))
	h.String(boolText(ctx.Beside))
	h.String(ctx.Application)
	h.Int(int64(len(ctx.Kustomize)))
	for _, k := range ctx.Kustomize {
		h.String(k)
	}
	h.Int(int64(len(ctx.SelectorLabels)))
	for _, k := range slices.Sorted(maps.Keys(ctx.SelectorLabels)) {
		h.String(k)
		h.String(ctx.SelectorLabels[k])
	}
	h.String(boolText(ctx.SelectorLabels != nil))
	h.Bytes(sum[:])
	return h.Key()
}

// cacheable reports whether in's result depends on nothing but what key
// hashes.
func cacheable(in manifest.Input) bool {
	if in.Path == manifest.Stdin || in.Path == "" {
		return false
	}
	// manifest.Parse asks whether a `templates` directory is beside a
	// Chart.yaml: a file below one is judged afresh.
	return !slices.Contains(strings.Split(filepath.ToSlash(filepath.Dir(in.Path)), "/"), "templates")
}

// lintInput reads and lints in, in ctx: the overlay's bytes when it has
// them, else the file's, through the per-file cache when c is not nil.
func (e *Engine) lintInput(c *fileCache, in manifest.Input, ctx manifest.Context, overlay map[string][]byte, apps []analysis.AppID) *FileResult {
	if data, ok := overlay[in.Path]; ok {
		return e.lintFileIn(in, data, ctx, apps)
	}
	readErr := func(err error) *FileResult {
		return &FileResult{Input: in, own: []analysis.Finding{e.fileFinding(in.Path, InputErrorID, err.Error())}}
	}
	// A file Argo CD Applications apply is judged in each of them, and
	// their identities are pointers no entry can carry: not cached.
	if c == nil || !cacheable(in) || len(apps) > 0 {
		data, err := e.read(in)
		if err != nil {
			return readErr(err)
		}
		return e.lintFileIn(in, data, ctx, apps)
	}
	sum, data, err := c.index.Sum(in.Path, func() ([]byte, error) { return e.read(in) })
	if err != nil {
		return readErr(err)
	}
	key := c.key(e, in, ctx, sum)
	if v, ok := c.pack.Get(key); ok {
		if fr, ok := c.decode(e, v, in, ctx); ok {
			e.fileHits.Add(1)
			return fr
		}
		c.pack.Forget(key)
	}
	if data == nil { // the index knew the bytes, the cache lost the result
		if data, err = e.read(in); err != nil {
			return readErr(err)
		}
		key = c.key(e, in, ctx, cache.Sum(data))
	}
	fr := e.lintFileIn(in, data, ctx, apps)
	if v, ok := c.encode(e, fr); ok {
		c.pack.Put(key, v)
	}
	return fr
}

// entryFormat starts every entry: bincodec's form of fileEntry, whose
// fields are not named in it. A change of fileEntry (or of a type in it)
// that one program identity could span (cache.Version: a release's
// build information, with a development build's executable file too)
// bumps it, so that old entries are misses, never misread.
const entryFormat byte = 2

// fileEntry is a FileResult as stored: what later stages read of it
// (gather, Finish, the printers). Input and File.Context are the key's.
type fileEntry struct {
	Docs      int
	BOM       bool
	Own       []analysis.Finding
	Objects   int
	Summaries []summaryEntry
	Origins   []originEntry
	UnreadApp analysis.AppID
	IDs       []idEntry
	IDApp     analysis.AppID
	Ignores   lineIgnores
	OptOuts   []optOutEntry
}

type summaryEntry struct {
	Rule              string
	Origin, Doc, Item int32
	Value             []byte // Cross.Encode's
}

type originEntry struct {
	File     string
	Rendered bool
	App      analysis.AppID
}

type idEntry struct {
	Hash     uint64
	File     string
	Rendered bool
}

type optOutEntry struct {
	Doc, Item int
	Rules     analysis.RuleSet
}

// encode is fr's entry; false when fr cannot be stored exactly (a value
// bincodec does not carry: an interface, an unexported field).
func (c *fileCache) encode(e *Engine, fr *FileResult) ([]byte, bool) {
	if fr.File == nil {
		return nil, false
	}
	ent := fileEntry{Docs: fr.File.Docs, BOM: fr.File.BOM, Own: fr.own, Objects: fr.objects, UnreadApp: fr.unreadApp, IDApp: fr.idApp, Ignores: fr.ignores}
	for _, s := range fr.summaries {
		v, err := e.cross[s.rule].Cross.Encode(s.value)
		if err != nil {
			return nil, false
		}
		ent.Summaries = append(ent.Summaries, summaryEntry{e.cross[s.rule].ID, s.origin, s.doc, s.item, v})
	}
	for _, o := range fr.origins {
		ent.Origins = append(ent.Origins, originEntry{o.file.path, o.file.rendered, o.app})
	}
	for _, id := range fr.ids {
		ent.IDs = append(ent.IDs, idEntry{id.hash, id.file.path, id.file.rendered})
	}
	for _, k := range slices.SortedFunc(maps.Keys(fr.optOuts), compareObjectKeys) {
		ent.OptOuts = append(ent.OptOuts, optOutEntry{k.doc, k.item, fr.optOuts[k]})
	}
	data, err := bincodec.Append([]byte{entryFormat}, ent)
	if err != nil {
		return nil, false
	}
	// Exactness: what a later run would take from the entry is what this
	// run made, or the entry is not stored.
	back, ok := c.decode(e, data, fr.Input, fr.File.Context)
	if !ok || !sameResult(back, fr) {
		return nil, false
	}
	return data, true
}

// decode is the FileResult of entry data, for in read in ctx.
func (c *fileCache) decode(e *Engine, data []byte, in manifest.Input, ctx manifest.Context) (*FileResult, bool) {
	var ent fileEntry
	if len(data) == 0 || data[0] != entryFormat || bincodec.Decode(data[1:], &ent) != nil {
		return nil, false
	}
	fr := &FileResult{Input: in, File: &manifest.File{Path: in.Path, Docs: ent.Docs, BOM: ent.BOM, Context: ctx},
		own: ent.Own, objects: ent.Objects, unreadApp: ent.UnreadApp, idApp: ent.IDApp, ignores: ent.Ignores}
	for _, s := range ent.Summaries {
		i, ok := c.crossByID[s.Rule]
		if !ok {
			return nil, false
		}
		v, err := e.cross[i].Cross.Decode(s.Value)
		if err != nil {
			return nil, false
		}
		if s.Origin < 0 || int(s.Origin) >= len(ent.Origins) {
			return nil, false
		}
		fr.summaries = append(fr.summaries, summary{value: v, doc: s.Doc, item: s.Item, rule: int32(i), origin: s.Origin})
	}
	for _, o := range ent.Origins {
		fr.origins = append(fr.origins, summaryOrigin{objectFile{o.File, o.Rendered}, o.App})
	}
	for _, id := range ent.IDs {
		fr.ids = append(fr.ids, objectID{id.Hash, objectFile{id.File, id.Rendered}})
	}
	for i, o := range ent.OptOuts {
		// In the order encode writes them: no object twice.
		if i > 0 && compareObjectKeys(objectKey{ent.OptOuts[i-1].Doc, ent.OptOuts[i-1].Item}, objectKey{o.Doc, o.Item}) >= 0 {
			return nil, false
		}
		if fr.optOuts == nil {
			fr.optOuts = map[objectKey]analysis.RuleSet{}
		}
		fr.optOuts[objectKey{o.Doc, o.Item}] = o.Rules
	}
	return fr, true
}

func compareObjectKeys(a, b objectKey) int {
	if a.doc != b.doc {
		return cmp.Compare(a.doc, b.doc)
	}
	return cmp.Compare(a.item, b.item)
}

// sameResult reports whether a and b hold the same result, field by field
// (Findings is empty in both before gather).
func sameResult(a, b *FileResult) bool {
	return reflect.DeepEqual(*a.File, *b.File) && reflect.DeepEqual(a.own, b.own) && a.objects == b.objects &&
		reflect.DeepEqual(a.summaries, b.summaries) && reflect.DeepEqual(a.origins, b.origins) && a.unreadApp == b.unreadApp && reflect.DeepEqual(a.ids, b.ids) &&
		a.idApp == b.idApp && reflect.DeepEqual(a.ignores, b.ignores) && reflect.DeepEqual(a.optOuts, b.optOuts) &&
		len(a.Findings) == 0 && len(b.Findings) == 0
}

// saveIndex stores the stat index once the run has hashed its files, and
// the pack of the entries it used.
func (c *fileCache) saveIndex() {
	if c != nil {
		c.index.Save()
		c.pack.Save()
	}
}
