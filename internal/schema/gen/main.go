// Command gen writes zz_generated.go: the JSON field types of every kind
// registered in k8s.io/client-go/kubernetes/scheme, and of kustomize's
// Kustomization (a named type only: no API object), as constant-only
// arrays that the linker lays out in the data segment, so that importing
// package schema costs nothing at start-up.
//
// It walks the Go types by reflection with encoding/json's rules (which
// sigs.k8s.io/json, the API server's decoder, shares apart from being
// case-sensitive), and prints to stderr the types it met whose JSON form is
// defined by code rather than by fields, for a human to review.
package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"maps"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	kustomize "sigs.k8s.io/kustomize/api/types"
)

// Kind names as spelled in package schema; the generator does not import
// schema so that it still runs when zz_generated.go is stale or broken.
const (
	kUnknown     = "Unknown"
	kString      = "String"
	kBool        = "Bool"
	kInt         = "Int"
	kNumber      = "Number"
	kIntOrString = "IntOrString"
	kQuantity    = "Quantity"
	kBytes       = "Bytes"
	kTime        = "Time"
	kStruct      = "Struct"
	kList        = "List"
	kMap         = "Map"
)

// primitives are the first entries of the types table, in Kind order, so
// that a primitive's handle is its Kind and the zero handle is Unknown.
var primitives = []string{kUnknown, kString, kBool, kInt, kNumber, kIntOrString, kQuantity, kBytes, kTime}

// special types decode from JSON scalars through their own UnmarshalJSON.
var special = map[reflect.Type]string{
	reflect.TypeFor[metav1.Duration]():    kString,
	reflect.TypeFor[metav1.Time]():        kTime,
	reflect.TypeFor[metav1.MicroTime]():   kTime,
	reflect.TypeFor[intstr.IntOrString](): kIntOrString,
	reflect.TypeFor[resource.Quantity]():  kQuantity,
}

var metaV1Path = reflect.TypeFor[metav1.ObjectMeta]().PkgPath()

type node struct {
	kind   string
	name   string // Struct only
	elem   *node  // List and Map
	fields []field
	key    string // sort and dedup key
	index  int
}

type field struct {
	name string
	typ  *node
}

type object struct {
	apiVersion, kind string
	typ              *node
}

type gen struct {
	prims   map[string]*node
	named   map[reflect.Type]*node
	anon    map[string]*node // List and Map by key
	unknown map[string]string
}

func main() {
	out := flag.String("o", "zz_generated.go", "output file")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("schema/gen: ")

	g := &gen{
		prims:   map[string]*node{},
		named:   map[reflect.Type]*node{},
		anon:    map[string]*node{},
		unknown: map[string]string{},
	}
	for _, k := range primitives {
		g.prims[k] = &node{kind: k, key: k}
	}

	var objects []object
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == "__internal" || strings.HasSuffix(gvk.Kind, "List") ||
			t.PkgPath() == metaV1Path || !hasObjectMeta(t) {
			// Lists, meta kinds that every group registers, and request
			// options (PodLogOptions, DeploymentRollback...): not objects
			// that a manifest holds.
			continue
		}
		objects = append(objects, object{gvk.GroupVersion().String(), gvk.Kind, g.visit(t)})
	}
	slices.SortFunc(objects, func(a, b object) int {
		return cmpPair(a.apiVersion, a.kind, b.apiVersion, b.kind)
	})
	// kustomize decodes a kustomization with encoding/json into this type:
	// its string fields refuse a boolean or a number as the API's do.
	g.visit(reflect.TypeFor[kustomize.Kustomization]())

	src, err := format.Source(g.render(objects))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}

	fmt.Fprintf(os.Stderr, "schema/gen: %d kinds; types decoded by their own code:\n", len(objects))
	for _, n := range slices.Sorted(maps.Keys(g.unknown)) {
		fmt.Fprintf(os.Stderr, "\t%s: %s\n", n, g.unknown[n])
	}
}

func hasObjectMeta(t reflect.Type) bool {
	for _, f := range jsonFields(t) {
		if f.name == "metadata" {
			return f.typ == reflect.TypeFor[metav1.ObjectMeta]()
		}
	}
	return false
}

func cmpPair(a1, a2, b1, b2 string) int {
	if c := strings.Compare(a1, b1); c != 0 {
		return c
	}
	return strings.Compare(a2, b2)
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// visit returns the node for t, following encoding/json's decoding rules.
func (g *gen) visit(t reflect.Type) *node {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if k, ok := special[t]; ok {
		return g.prims[k]
	}
	if n, ok := g.named[t]; ok {
		return n
	}
	if implements(t, jsonUnmarshaler) {
		g.unknown[typeName(t)] = "json.Unmarshaler: unknown"
		return g.prims[kUnknown]
	}
	if implements(t, textUnmarshaler) {
		// encoding/json hands it the contents of a JSON string.
		g.unknown[typeName(t)] = "encoding.TextUnmarshaler: string"
		return g.prims[kString]
	}
	switch t.Kind() {
	case reflect.String:
		return g.prims[kString]
	case reflect.Bool:
		return g.prims[kBool]
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return g.prims[kInt]
	case reflect.Float32, reflect.Float64:
		return g.prims[kNumber]
	case reflect.Interface:
		return g.prims[kUnknown]
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), jsonUnmarshaler) && !implements(t.Elem(), textUnmarshaler) {
			return g.prims[kBytes]
		}
		return g.container(kList, g.visit(t.Elem()))
	case reflect.Array:
		return g.container(kList, g.visit(t.Elem()))
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			g.unknown[t.String()] = "map with non-string keys: unknown"
			return g.prims[kUnknown]
		}
		return g.container(kMap, g.visit(t.Elem()))
	case reflect.Struct:
		if t.Name() == "" {
			g.unknown[t.String()] = "anonymous struct: unknown"
			return g.prims[kUnknown]
		}
		n := &node{kind: kStruct, name: typeName(t)}
		n.key = n.name
		g.named[t] = n // before the fields: types may be recursive
		for _, f := range jsonFields(t) {
			if f.quoted {
				g.unknown[n.name+"."+f.name] = "`json:\",string\"` field: string"
				n.fields = append(n.fields, field{f.name, g.prims[kString]})
				continue
			}
			n.fields = append(n.fields, field{f.name, g.visit(f.typ)})
		}
		slices.SortFunc(n.fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
		return n
	}
	g.unknown[t.String()] = "no JSON form: unknown"
	return g.prims[kUnknown]
}

func (g *gen) container(kind string, elem *node) *node {
	key := "[]" + elem.key
	if kind == kMap {
		key = "map[string]" + elem.key
	}
	if n, ok := g.anon[key]; ok {
		return n
	}
	n := &node{kind: kind, elem: elem, key: key}
	g.anon[key] = n
	return n
}

// typeName is the OpenAPI definition name (as in kube-openapi and kubectl
// explain): the package path with its host reversed, then the type name.
func typeName(t reflect.Type) string {
	host, rest, _ := strings.Cut(t.PkgPath(), "/")
	labels := strings.Split(host, ".")
	slices.Reverse(labels)
	return strings.Join(labels, ".") + "." + strings.ReplaceAll(rest, "/", ".") + "." + t.Name()
}

// jsonField is a field as encoding/json's typeFields sees it.
type jsonField struct {
	name   string
	tagged bool
	quoted bool
	index  []int
	typ    reflect.Type
}

// jsonFields is encoding/json's typeFields reduced to what decoding needs:
// embedded structs without a tag name are flattened breadth-first, and of
// several fields with one name the shallowest wins, then the tagged one;
// a tie hides them all.
func jsonFields(t reflect.Type) []jsonField {
	var current []jsonField
	next := []jsonField{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	var fields []jsonField

	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := range f.typ.NumField() {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(slices.Clone(f.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					quoted := false
					if slices.Contains(strings.Split(opts, ","), "string") {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64, reflect.String:
							quoted = true
						}
					}
					jf := jsonField{name: name, tagged: name != "", quoted: quoted, index: index, typ: sf.Type}
					if jf.name == "" {
						jf.name = sf.Name
					}
					fields = append(fields, jf)
					if count[f.typ] > 1 {
						// The embedding struct appeared twice at this depth:
						// the duplicate annihilates the field below.
						fields = append(fields, jf)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, jsonField{name: ft.Name(), index: index, typ: ft})
				}
			}
		}
	}

	slices.SortStableFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := len(a.index) - len(b.index); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	var out []jsonField
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		dup := fields[i:j]
		if len(dup) == 1 || len(dup[0].index) < len(dup[1].index) || dup[0].tagged != dup[1].tagged {
			out = append(out, dup[0])
		}
		i = j
	}
	return out
}

// render numbers the nodes (primitives, then named structs by name so that
// Named is a binary search, then lists and maps) and prints the tables.
func (g *gen) render(objects []object) []byte {
	var all []*node
	for _, k := range primitives {
		all = append(all, g.prims[k])
	}
	firstNamed := len(all)
	for _, n := range g.named {
		all = append(all, n)
	}
	slices.SortFunc(all[firstNamed:], func(a, b *node) int { return strings.Compare(a.key, b.key) })
	endNamed := len(all)
	for _, n := range g.anon {
		all = append(all, n)
	}
	slices.SortFunc(all[endNamed:], func(a, b *node) int { return strings.Compare(a.key, b.key) })
	if len(all) > 1<<16 {
		log.Fatalf("%d types do not fit Type's uint16", len(all))
	}
	for i, n := range all {
		n.index = i
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by \"go run ./gen\"; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "// Generated from %s (kinds registered in %s kubernetes/scheme) and %s (Kustomization).\n\n",
		moduleVersion("k8s.io/api")+", "+moduleVersion("k8s.io/apimachinery"), moduleVersion("k8s.io/client-go"),
		moduleVersion("sigs.k8s.io/kustomize/api"))
	fmt.Fprintf(&b, "package schema\n\n")
	fmt.Fprintf(&b, "const (\n\tfirstNamed = %d\n\tendNamed = %d\n)\n\n", firstNamed, endNamed)

	var fb bytes.Buffer
	nfields := 0
	fmt.Fprintf(&b, "var types = [...]typeInfo{\n")
	for _, n := range all {
		switch n.kind {
		case kStruct:
			if len(n.fields) >= 1<<16 {
				log.Fatalf("%s has too many fields", n.name)
			}
			fmt.Fprintf(&b, "\t{name: %q, kind: Struct, first: %d, n: %d},\n", n.name, nfields, len(n.fields))
			fmt.Fprintf(&fb, "\t// %s\n", n.name)
			for _, f := range n.fields {
				fmt.Fprintf(&fb, "\t{%q, %d},\n", f.name, f.typ.index)
			}
			nfields += len(n.fields)
		case kList, kMap:
			fmt.Fprintf(&b, "\t{kind: %s, elem: %d}, // %s\n", n.kind, n.elem.index, n.key)
		default:
			fmt.Fprintf(&b, "\t{kind: %s},\n", n.kind)
		}
	}
	fmt.Fprintf(&b, "}\n\nvar fields = [...]field{\n%s}\n\n", fb.Bytes())

	fmt.Fprintf(&b, "var objects = [...]object{\n")
	for _, o := range objects {
		fmt.Fprintf(&b, "\t{%q, %q, %d},\n", o.apiVersion, o.kind, o.typ.index)
	}
	fmt.Fprintf(&b, "}\n")
	return b.Bytes()
}

func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		log.Fatal("no build info: run with go run")
	}
	for _, m := range bi.Deps {
		if m.Path == path {
			if m.Replace != nil {
				m = m.Replace
			}
			return path + " " + m.Version
		}
	}
	log.Fatalf("%s is not a dependency", path)
	return ""
}
