package helmrender

import (
	"math/big"
	"regexp"
	"sort"
	"strconv"
)

// The number, array, object and applicator keywords of schema.go's
// validator.

func (c *schemaCheck) checkNumber(s map[string]interface{}, v interface{}, path []string) verdict {
	n, ok := ratOf(v)
	if !ok {
		return valid
	}
	out := valid
	bound := func(key string, broken func(cmp int) bool, rel string) verdict {
		raw, ok := s[key]
		if !ok {
			return valid
		}
		if _, isBool := raw.(bool); isBool {
			return valid // draft-04's exclusive modifiers, read with their bound below
		}
		limit, ok := ratOf(raw)
		if !ok {
			return unknown
		}
		if broken(n.Cmp(limit)) {
			return c.fail(path, "must be %s %s, but got %s", rel, limit.RatString(), n.RatString())
		}
		return valid
	}
	exclusive := func(key string) bool { b, _ := s[key].(bool); return b && c.draft == 4 }
	minRel, maxRel := ">=", "<="
	minBroken, maxBroken := func(cmp int) bool { return cmp < 0 }, func(cmp int) bool { return cmp > 0 }
	if exclusive("exclusiveMinimum") {
		minRel, minBroken = ">", func(cmp int) bool { return cmp <= 0 }
	}
	if exclusive("exclusiveMaximum") {
		maxRel, maxBroken = "<", func(cmp int) bool { return cmp >= 0 }
	}
	for _, r := range []verdict{
		bound("minimum", minBroken, minRel),
		bound("maximum", maxBroken, maxRel),
		bound("exclusiveMinimum", func(cmp int) bool { return cmp <= 0 }, ">"),
		bound("exclusiveMaximum", func(cmp int) bool { return cmp >= 0 }, "<"),
	} {
		if r == invalid {
			return invalid
		}
		out = max(out, r)
	}
	if raw, ok := s["multipleOf"]; ok {
		m, ok := ratOf(raw)
		if !ok || m.Sign() <= 0 {
			return unknown
		}
		if !new(big.Rat).Quo(n, m).IsInt() {
			return c.fail(path, "%s is not a multiple of %s", n.RatString(), m.RatString())
		}
	}
	return out
}

func (c *schemaCheck) checkArray(s map[string]interface{}, v interface{}, path []string) verdict {
	arr, ok := v.([]interface{})
	if !ok {
		return valid
	}
	out := valid
	if min, set, ok := intKeyword(s, "minItems"); !ok {
		out = unknown
	} else if set && len(arr) < min {
		return c.fail(path, "must have at least %d items, but has %d", min, len(arr))
	}
	if lim, set, ok := intKeyword(s, "maxItems"); !ok {
		out = unknown
	} else if set && len(arr) > lim {
		return c.fail(path, "must have at most %d items, but has %d", lim, len(arr))
	}
	if u, _ := s["uniqueItems"].(bool); u {
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				if jsonEqual(arr[i], arr[j]) {
					return c.fail(path, "items at %d and %d are equal", j, i)
				}
			}
		}
	}
	tuple, rest, restSet := c.itemSchemas(s)
	for i, item := range arr {
		var sub interface{}
		switch {
		case i < len(tuple):
			sub = tuple[i]
		case restSet:
			sub = rest
		default:
			continue
		}
		r := c.check(sub, item, appendPath(path, "["+strconv.Itoa(i)+"]"))
		if r == invalid {
			return invalid
		}
		out = max(out, r)
	}
	return out
}

// itemSchemas: the schemas of the first items, and of the rest.
func (c *schemaCheck) itemSchemas(s map[string]interface{}) (tuple []interface{}, rest interface{}, restSet bool) {
	items, hasItems := s["items"]
	if c.draft == 2020 {
		tuple, _ = s["prefixItems"].([]interface{})
		if _, isTuple := items.([]interface{}); isTuple {
			return nil, nil, false // not 2020-12: the validator refuses the schema
		}
		return tuple, items, hasItems
	}
	if list, isTuple := items.([]interface{}); isTuple {
		rest, restSet = s["additionalItems"]
		return list, rest, restSet
	}
	return nil, items, hasItems
}

func (c *schemaCheck) checkMap(s map[string]interface{}, v interface{}, path []string) verdict {
	obj, ok := v.(map[string]interface{})
	if !ok {
		return valid
	}
	out := valid
	if req, ok := s["required"].([]interface{}); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				if _, has := obj[name]; !has {
					return c.fail(path, "missing property %q", name)
				}
			}
		}
	}
	if min, set, ok := intKeyword(s, "minProperties"); !ok {
		out = unknown
	} else if set && len(obj) < min {
		return c.fail(path, "must have at least %d properties, but has %d", min, len(obj))
	}
	if lim, set, ok := intKeyword(s, "maxProperties"); !ok {
		out = unknown
	} else if set && len(obj) > lim {
		return c.fail(path, "must have at most %d properties, but has %d", lim, len(obj))
	}
	props, _ := s["properties"].(map[string]interface{})
	patterns, ok := c.patterns(s)
	if !ok {
		return unknown
	}
	extra, hasExtra := s["additionalProperties"]
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first violation is the same in every run
	for _, k := range keys {
		sub := appendPath(path, k)
		matched := false
		if ps, ok := props[k]; ok {
			matched = true
			if r := c.check(ps, obj[k], sub); r == invalid {
				return invalid
			} else {
				out = max(out, r)
			}
		}
		for _, p := range patterns {
			if p.re.MatchString(k) {
				matched = true
				if r := c.check(p.schema, obj[k], sub); r == invalid {
					return invalid
				} else {
					out = max(out, r)
				}
			}
		}
		if !matched && hasExtra {
			if b, ok := extra.(bool); ok && !b {
				return c.fail(sub, "property %q is not allowed (additionalProperties: false)", k)
			}
			if r := c.check(extra, obj[k], sub); r == invalid {
				return invalid
			} else {
				out = max(out, r)
			}
		}
	}
	return out
}

type patternSchema struct {
	re     *regexp.Regexp
	schema interface{}
}

func (c *schemaCheck) patterns(s map[string]interface{}) ([]patternSchema, bool) {
	raw, _ := s["patternProperties"].(map[string]interface{})
	var out []patternSchema
	for p, sub := range raw {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, false
		}
		out = append(out, patternSchema{re, sub})
	}
	return out, true
}

// checkApplicators: allOf, anyOf, oneOf, not, if/then/else.
func (c *schemaCheck) checkApplicators(s map[string]interface{}, v interface{}, path []string) verdict {
	out := valid
	if all, ok := s["allOf"].([]interface{}); ok {
		for _, sub := range all {
			if r := c.check(sub, v, path); r == invalid {
				return invalid
			} else {
				out = max(out, r)
			}
		}
	}
	if anyOf, ok := s["anyOf"].([]interface{}); ok {
		counts := c.branches(anyOf, v, path)
		switch {
		case counts[invalid] == len(anyOf):
			return c.fail(path, "matches none of the schemas of anyOf")
		case counts[valid] == 0:
			out = unknown
		}
	}
	if oneOf, ok := s["oneOf"].([]interface{}); ok {
		counts := c.branches(oneOf, v, path)
		switch {
		case counts[invalid] == len(oneOf):
			return c.fail(path, "matches none of the schemas of oneOf")
		case counts[valid] >= 2:
			return c.fail(path, "matches more than one of the schemas of oneOf")
		case counts[valid] != 1 || counts[unknown] > 0:
			out = unknown
		}
	}
	if not, ok := s["not"]; ok {
		switch c.branches([]interface{}{not}, v, path) {
		case [3]int{valid: 1}:
			return c.fail(path, "must not match the schema of not")
		case [3]int{unknown: 1}:
			out = unknown
		}
	}
	if cond, ok := s["if"]; ok && c.draft >= 7 {
		var r verdict
		switch c.branches([]interface{}{cond}, v, path) {
		case [3]int{valid: 1}:
			r = c.checkOptional(s, "then", v, path)
		case [3]int{invalid: 1}:
			r = c.checkOptional(s, "else", v, path)
		default:
			r = unknown
		}
		if r == invalid {
			return invalid
		}
		out = max(out, r)
	}
	return out
}

func (c *schemaCheck) checkOptional(s map[string]interface{}, key string, v interface{}, path []string) verdict {
	sub, ok := s[key]
	if !ok {
		return valid
	}
	return c.check(sub, v, path)
}

// branches counts the verdicts of the subschemas, whose own violations are
// not the schema's (anyOf fails only when all do).
func (c *schemaCheck) branches(subs []interface{}, v interface{}, path []string) [3]int {
	var counts [3]int
	saved := c.problem
	for _, sub := range subs {
		c.problem = nil
		counts[c.check(sub, v, path)]++
	}
	c.problem = saved
	return counts
}
