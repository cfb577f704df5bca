package render

import (
	"github.com/shipshape-dev/shipshape/internal/cache"
)

// A root's rendering from the cache (internal/cache): kustomize's output
// for the root is a function of the program, the root and its load
// restrictions, and the answers its file system gave (readlog.go). Two
// entries: under the root's key, the questions the last build asked and
// the hashes of their answers; under that key and those answers, the
// objects it made. A later run asks the same questions again: the same
// answers find the objects, and kustomize is not run. Any other answer (a
// file edited, added, renamed, removed; a listing changed) misses, and
// the root is rendered and stored again. Only builds that succeeded are
// stored: a failure is reported from a fresh build, whatever it is.

// rootKey is the key of root's read log.
func (r *Renderer) rootKey(root *Kustomization) cache.Key {
	h := cache.NewHasher("shipshape render reads v1")
	h.String(cache.Version())
	h.String(root.Dir)
	h.String(root.File)
	h.String(boolText(r.restricted(root)))
	h.String(boolText(usesOpenAPI(r.graph, root)))
	// The cluster version charts are rendered for: roots that reach
	// helmCharts are not stored today (build's cacheable), but the day
	// they are, another kubernetesVersion must miss.
	h.String(r.KubernetesVersion)
	return h.Key()
}

// objectsKey is the key of the objects a build with reads made.
func objectsKey(rootKey cache.Key, reads []fsRead) cache.Key {
	h := cache.NewHasher("shipshape render objects v1")
	h.Bytes(rootKey[:])
	h.Bytes(encodeLog(reads))
	return h.Key()
}

// build renders root (kustomize within its budget) and returns its
// objects, from the cache when the same reads were rendered before.
func (r *Renderer) build(root *Kustomization, cacheable bool) ([]*Object, error) {
	// Not cacheable: a root that reads more than kustomize's file system
	// shows the read log (helmCharts' charts, an Argo CD variant's
	// kustomization made in memory).
	if r.Cache == nil || !cacheable {
		m, err := r.runWithin(root, nil)
		if err != nil {
			return nil, err
		}
		return objectsOf(m.Resources()), nil
	}
	key := r.rootKey(root)
	if objs, ok := r.cached(key); ok {
		return objs, nil
	}
	log := &readLog{}
	m, err := r.runWithin(root, log)
	if err != nil {
		return nil, err
	}
	objs := objectsOf(m.Resources())
	log.mu.Lock()
	reads, replayable := log.reads, log.unreplayed == ""
	log.mu.Unlock()
	if replayable {
		if data, err := encodeObjects(objs); err == nil {
			r.Cache.Put(objectsKey(key, reads), data)
			r.Cache.Put(key, encodeLog(reads))
		}
	}
	return objs, nil
}

// cached returns the objects stored for key's reads when each read gets
// the answer it got then.
func (r *Renderer) cached(key cache.Key) ([]*Object, bool) {
	data, ok := r.Cache.Get(key)
	if !ok {
		return nil, false
	}
	reads, err := decodeLog(data)
	if err != nil {
		return nil, false
	}
	for _, rd := range reads {
		if answer(r.fs, rd.op, rd.path) != rd.answer {
			return nil, false
		}
	}
	data, ok = r.Cache.Get(objectsKey(key, reads))
	if !ok {
		return nil, false
	}
	objs, err := decodeObjects(data)
	if err != nil {
		return nil, false
	}
	return objs, true
}
