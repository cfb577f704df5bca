package helmrender

import (
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	sigsyaml "sigs.k8s.io/yaml"
)

// Values coalescing, written to Helm v3.22's behaviour (chartutil's
// CoalesceValues and MergeValues) without its package, which links
// client-go's scheme (docs/helm.md, Weight). What a template sees must be
// exactly Helm's: TestRenderEqualsHelmTemplate compares with `helm template`.

// Values is a values table, as .Values.
type Values map[string]interface{}

const globalKey = "global"

// readValues reads values text as Helm does (sigs.k8s.io/yaml: YAML 1.1
// through go-yaml v2, so `yes` is true and `1.10` is the number 1.1).
func readValues(data []byte) (Values, error) {
	var vals Values
	err := sigsyaml.Unmarshal(data, &vals)
	if len(vals) == 0 {
		vals = Values{}
	}
	return vals, err
}

func isTable(v interface{}) bool {
	_, ok := v.(map[string]interface{})
	return ok
}

// table is the table at a dotted path, or false when a segment is missing or
// not a table.
func (v Values) table(dotted string) (Values, bool) {
	t := v
	for _, seg := range strings.Split(dotted, ".") {
		next, ok := t[seg]
		if !ok {
			return nil, false
		}
		switch m := next.(type) {
		case map[string]interface{}:
			t = m
		case Values:
			t = m
		default:
			return nil, false
		}
	}
	return t, true
}

// pathValue is the non-table value at a dotted path (a dependency's
// condition), or false.
func (v Values) pathValue(dotted string) (interface{}, bool) {
	segs := strings.Split(dotted, ".")
	t := v
	if len(segs) > 1 {
		var ok bool
		if t, ok = v.table(strings.Join(segs[:len(segs)-1], ".")); !ok {
			return nil, false
		}
	}
	val, ok := t[segs[len(segs)-1]]
	if !ok || isTable(val) {
		return nil, false
	}
	return val, true
}

// deepCopy copies a values tree (maps, slices, scalars as YAML gives them).
func deepCopy(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, item := range x {
			out[k] = deepCopy(item)
		}
		return out
	case Values:
		return deepCopy(map[string]interface{}(x))
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, item := range x {
			out[i] = deepCopy(item)
		}
		return out
	}
	return v
}

func copyTable(m map[string]interface{}) map[string]interface{} {
	if m == nil {
		return map[string]interface{}{}
	}
	return deepCopy(m).(map[string]interface{})
}

// coalesceValues gives the chart's values with the user's over them: each
// chart's values.yaml under its name, globals copied down into subcharts,
// a null from the user deleting a default (unless merging, as import-values
// does, which keeps nulls).
func coalesceValues(c *chart.Chart, user map[string]interface{}, merge bool) (Values, error) {
	return coalesceChart(c, copyTable(user), merge)
}

func coalesceChart(c *chart.Chart, dest map[string]interface{}, merge bool) (map[string]interface{}, error) {
	coalesceChartDefaults(c, dest, merge)
	for _, sub := range c.Dependencies() {
		existing, ok := dest[sub.Name()]
		if !ok {
			existing = map[string]interface{}{}
			dest[sub.Name()] = existing
		}
		subVals, ok := existing.(map[string]interface{})
		if !ok {
			return dest, fmt.Errorf("type mismatch on %s: %t", sub.Name(), existing)
		}
		coalesceGlobals(subVals, dest)
		var err error
		if dest[sub.Name()], err = coalesceChart(sub, subVals, merge); err != nil {
			return dest, err
		}
	}
	return dest, nil
}

// coalesceGlobals copies the parent's globals into the subchart's, the
// parent winning, tables merged key by key.
func coalesceGlobals(dest, src map[string]interface{}) {
	var dg, sg map[string]interface{}
	if g, ok := dest[globalKey]; !ok {
		dg = map[string]interface{}{}
	} else if dg, ok = g.(map[string]interface{}); !ok {
		return // Helm warns and skips: the subchart's global is not a table
	}
	if g, ok := src[globalKey]; !ok {
		sg = map[string]interface{}{}
	} else if sg, ok = g.(map[string]interface{}); !ok {
		return
	}
	for key, val := range sg {
		if vt, ok := val.(map[string]interface{}); ok {
			vv := shallowCopy(vt)
			if dv, ok := dg[key]; !ok {
				dg[key] = vv
			} else if dvt, ok := dv.(map[string]interface{}); ok {
				coalesceTables(vv, dvt, true)
				dg[key] = vv
			}
		} else if dv, ok := dg[key]; ok && isTable(dv) {
			continue // Helm keeps a table over a scalar
		} else {
			dg[key] = val
		}
	}
	dest[globalKey] = dg
}

func shallowCopy(src map[string]interface{}) map[string]interface{} {
	m := make(map[string]interface{}, len(src))
	for k, v := range src {
		m[k] = v
	}
	return m
}

// coalesceChartDefaults puts the chart's own values.yaml under v: a key v
// lacks takes the default, a null in v deletes it (unless merging), tables
// are coalesced key by key.
func coalesceChartDefaults(c *chart.Chart, v map[string]interface{}, merge bool) {
	defaults := copyTable(c.Values)
	for key, def := range defaults {
		value, ok := v[key]
		if !ok {
			v[key] = def
			continue
		}
		if value == nil && !merge {
			delete(v, key)
			continue
		}
		dest, ok := value.(map[string]interface{})
		if !ok {
			continue
		}
		src, ok := def.(map[string]interface{})
		if !ok {
			continue // Helm warns: a default that is not a table is skipped
		}
		// A subchart's table is always merged, so that its own nulls survive
		// to its own coalescing.
		coalesceTables(dest, src, merge || isDependencyName(c, key))
	}
}

func isDependencyName(c *chart.Chart, key string) bool {
	for _, sub := range c.Dependencies() {
		if sub.Name() == key {
			return true
		}
	}
	return false
}

// coalesceTables fills dst with what src has and dst lacks, dst winning; a
// null in dst over a value in src deletes the key, unless merging.
func coalesceTables(dst, src map[string]interface{}, merge bool) map[string]interface{} {
	if src == nil {
		return dst
	}
	if dst == nil {
		return src
	}
	srcNonNil := map[string]bool{}
	for key, val := range src {
		if val != nil {
			srcNonNil[key] = true
		}
	}
	// A null in dst is recorded in src too (Helm does so), so that it stays
	// null when src is itself coalesced further.
	for key, val := range dst {
		if val == nil {
			src[key] = nil
		}
	}
	for key, val := range src {
		dv, ok := dst[key]
		switch {
		case ok && !merge && dv == nil && srcNonNil[key]:
			delete(dst, key)
		case !ok:
			dst[key] = val
		case isTable(val):
			if isTable(dv) {
				coalesceTables(dv.(map[string]interface{}), val.(map[string]interface{}), merge)
			}
		}
	}
	return dst
}
