//go:generate go run ./gen

// Package schema tells, for every field of every built-in Kubernetes kind,
// which JSON type the API server decodes it into.
//
// The tables are generated from the Go types of k8s.io/api (the kinds that
// k8s.io/client-go/kubernetes/scheme registers) into arrays of constants,
// which the linker places in the data segment: importing this package does
// no work at start-up. Kinds outside that scheme (CustomResourceDefinition,
// APIService, every CRD's kinds) are not described. kustomize's
// Kustomization is, as a named type (Named("Kustomization")) that
// ForObject does not return: it is read by kustomize, never sent to an API
// server.
//
// Field names match exactly, as in the API server's case-sensitive decoder.
package schema

import (
	"slices"
	"strconv"
	"strings"
)

// Kind is the JSON shape a field decodes from.
type Kind uint8

const (
	Unknown     Kind = iota // not described: anything is accepted
	String                  // also metav1.Duration ("1h")
	Bool                    //
	Int                     // every Go integer type
	Number                  // float32, float64
	IntOrString             // intstr.IntOrString
	Quantity                // resource.Quantity: "500m", "1Gi" or a number
	Bytes                   // []byte: a base64 string
	Time                    // metav1.Time, metav1.MicroTime: RFC 3339 string or null
	Struct                  // an object with known fields
	List                    // an array
	Map                     // an object with string keys and one value type
)

var kindNames = [...]string{
	Unknown:     "unknown",
	String:      "string",
	Bool:        "boolean",
	Int:         "integer",
	Number:      "number",
	IntOrString: "int-or-string",
	Quantity:    "quantity",
	Bytes:       "bytes",
	Time:        "time",
	Struct:      "object",
	List:        "array",
	Map:         "map",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Type is a handle on a described type. The zero Type is Unknown.
type Type struct{ i uint16 }

// The generated tables are built from these so that they hold only
// constants: primitives come first, in Kind order, then named structs
// sorted by name, then lists and maps.
type typeInfo struct {
	name  string // Struct only
	kind  Kind
	elem  uint16 // List and Map
	n     uint16 // Struct: number of fields
	first uint32 // Struct: index of the first field in fields
}

type field struct {
	name string
	typ  uint16
}

type object struct {
	apiVersion, kind string
	typ              uint16
}

// ForObject returns the root type of a built-in kind, e.g. ("apps/v1",
// "Deployment") or ("v1", "Pod"). Lists, meta kinds (Status, DeleteOptions,
// ...) and custom resources are not built-in objects.
func ForObject(apiVersion, kind string) (Type, bool) {
	i, ok := slices.BinarySearchFunc(objects[:], object{apiVersion: apiVersion, kind: kind}, func(a, b object) int {
		if c := strings.Compare(a.apiVersion, b.apiVersion); c != 0 {
			return c
		}
		return strings.Compare(a.kind, b.kind)
	})
	if !ok {
		return Type{}, false
	}
	return Type{objects[i].typ}, true
}

// Named returns a struct type by its OpenAPI definition name, e.g.
// "io.k8s.api.core.v1.PodTemplateSpec", or by one of the short aliases
// "PodTemplateSpec", "PodSpec", "Container" (core/v1), "ObjectMeta",
// "LabelSelector" (meta/v1) and "Kustomization" (kustomize's
// sigs.k8s.io/kustomize/api/types).
func Named(name string) (Type, bool) {
	// A switch rather than a map: a map literal would be built at init.
	switch name {
	case "Kustomization":
		name = "io.k8s.sigs.kustomize.api.types.Kustomization"
	case "Container":
		name = "io.k8s.api.core.v1.Container"
	case "PodSpec":
		name = "io.k8s.api.core.v1.PodSpec"
	case "PodTemplateSpec":
		name = "io.k8s.api.core.v1.PodTemplateSpec"
	case "ObjectMeta":
		name = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	case "LabelSelector":
		name = "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"
	}
	i, ok := slices.BinarySearchFunc(types[firstNamed:endNamed], name, func(t typeInfo, name string) int {
		return strings.Compare(t.name, name)
	})
	if !ok {
		return Type{}, false
	}
	return Type{uint16(firstNamed + i)}, true
}

func (t Type) info() *typeInfo { return &types[t.i] }

// Kind returns t's kind.
func (t Type) Kind() Kind { return t.info().kind }

// Name returns the OpenAPI definition name of a Struct, "" for other kinds.
func (t Type) Name() string { return t.info().name }

func (t Type) fields() []field {
	ti := t.info()
	return fields[ti.first : ti.first+uint32(ti.n)]
}

// Field returns the type of t's field name. It is false when t is not a
// Struct or has no such field.
func (t Type) Field(name string) (Type, bool) {
	// Hand-rolled: this is the hot path, and twice as fast as
	// slices.BinarySearchFunc with a comparison func.
	fs := t.fields()
	lo, hi := 0, len(fs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if fs[m].name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(fs) || fs[lo].name != name {
		return Type{}, false
	}
	return Type{fs[lo].typ}, true
}

// IsFieldName reports whether some named struct has a field name: a
// field written at the wrong place is one of another type.
func IsFieldName(name string) bool {
	for i := firstNamed; i < endNamed; i++ {
		if t := (Type{uint16(i)}); t.info().kind == Struct {
			if _, ok := t.Field(name); ok {
				return true
			}
		}
	}
	return false
}

// Elem returns the element type of a List or Map, Unknown for other kinds.
func (t Type) Elem() Type {
	ti := t.info()
	if ti.kind != List && ti.kind != Map {
		return Type{}
	}
	return Type{ti.elem}
}

// FieldNames returns the JSON names of a Struct's fields, sorted.
func (t Type) FieldNames() []string {
	fs := t.fields()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// IsScalar reports whether t decodes from a JSON scalar.
func (t Type) IsScalar() bool {
	k := t.Kind()
	return k >= String && k <= Time
}
