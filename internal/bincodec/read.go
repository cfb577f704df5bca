package bincodec

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// reader reads data from at; data is a string so that the strings read
// share its bytes.
type reader struct {
	data string
	at   int
}

func (r *reader) damaged(what string) error {
	return fmt.Errorf("%w: %s at byte %d", ErrDamaged, what, r.at)
}

func (r *reader) left() int { return len(r.data) - r.at }

func (r *reader) byte() (byte, error) {
	if r.at >= len(r.data) {
		return 0, r.damaged("input ends")
	}
	b := r.data[r.at]
	r.at++
	return b, nil
}

// uvarint is binary.Uvarint over the string: no copy of the input.
func (r *reader) uvarint() (uint64, error) {
	var x uint64
	var s uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if r.at >= len(r.data) {
			return 0, r.damaged("input ends in a number")
		}
		b := r.data[r.at]
		r.at++
		if b < 0x80 {
			if i == binary.MaxVarintLen64-1 && b > 1 {
				return 0, r.damaged("number overflows")
			}
			if b == 0 && i > 0 { // one number, one encoding
				return 0, r.damaged("number not in its shortest form")
			}
			return x | uint64(b)<<s, nil
		}
		x |= uint64(b&0x7f) << s
		s += 7
	}
	return 0, r.damaged("number overflows")
}

func (r *reader) varint() (int64, error) {
	u, err := r.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x, err
}

// length reads a length written with writer.length or a string's, at
// most the bytes left: no element or byte takes less than a byte, so a
// damaged length cannot ask for more memory than the input justifies.
func (r *reader) length() (int, error) {
	n, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	if n > uint64(r.left()) {
		return 0, r.damaged(fmt.Sprintf("length %d with %d bytes left", n, r.left()))
	}
	return int(n), nil
}

// nilOrLength reads a slice's or map's length: -1 for nil.
func (r *reader) nilOrLength() (int, error) {
	n, err := r.length()
	return n - 1, err
}

func (r *reader) value(v reflect.Value, depth int) error {
	if depth > maxDepth {
		return r.damaged(fmt.Sprintf("nested more than %d deep", maxDepth))
	}
	switch v.Kind() {
	case reflect.Bool:
		b, err := r.byte()
		if err == nil && b > 1 {
			err = r.damaged("a boolean not 0 or 1")
		}
		v.SetBool(b == 1)
		return err
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := r.varint()
		if err == nil && v.OverflowInt(n) {
			err = r.damaged(fmt.Sprintf("%d overflows %v", n, v.Type()))
		}
		v.SetInt(n)
		return err
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := r.uvarint()
		if err == nil && v.OverflowUint(n) {
			err = r.damaged(fmt.Sprintf("%d overflows %v", n, v.Type()))
		}
		v.SetUint(n)
		return err
	case reflect.Float32, reflect.Float64:
		if r.left() < 8 {
			return r.damaged("input ends in a float")
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.data[r.at : r.at+8])))
		r.at += 8
		if v.Kind() == reflect.Float32 && math.Float64bits(float64(float32(f))) != math.Float64bits(f) {
			return r.damaged("a float32 with float64 precision")
		}
		v.SetFloat(f)
		return nil
	case reflect.String:
		n, err := r.length()
		if err != nil {
			return err
		}
		v.SetString(r.data[r.at : r.at+n])
		r.at += n
		return nil
	case reflect.Slice:
		return r.slice(v, depth)
	case reflect.Array:
		for i := range v.Len() {
			if err := r.value(v.Index(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer:
		b, err := r.byte()
		if err != nil || b == 0 {
			return err
		}
		if b != 1 {
			return r.damaged("a pointer flag not 0 or 1")
		}
		p := reflect.New(v.Type().Elem())
		v.Set(p)
		return r.value(p.Elem(), depth+1)
	case reflect.Map:
		return r.mapValue(v, depth)
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() { // see writer.value
				if err := carried(t.Field(i)); err != nil {
					return err
				}
			}
			if err := r.value(f, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%w: kind %v (%v)", ErrUnsupported, v.Kind(), v.Type())
}

func (r *reader) slice(v reflect.Value, depth int) error {
	n, err := r.nilOrLength()
	if err != nil || n < 0 {
		return err
	}
	if v.Type().Elem().Kind() == reflect.Uint8 {
		if n > r.left() {
			return r.damaged("input ends in bytes")
		}
		b := reflect.MakeSlice(v.Type(), n, n)
		copy(b.Bytes(), r.data[r.at:r.at+n])
		r.at += n
		v.Set(b)
		return nil
	}
	s := reflect.MakeSlice(v.Type(), n, n)
	for i := range n {
		if err := r.value(s.Index(i), depth+1); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

// mapValue reads a map whose keys must come in strictly increasing order,
// as the writer puts them: one encoding per map, no key twice.
func (r *reader) mapValue(v reflect.Value, depth int) error {
	n, err := r.nilOrLength()
	if err != nil || n < 0 {
		return err
	}
	t := v.Type()
	m := reflect.MakeMapWithSize(t, n)
	var prev reflect.Value
	for i := range n {
		k := reflect.New(t.Key()).Elem()
		if err := r.value(k, depth+1); err != nil {
			return err
		}
		if i > 0 {
			c, err := compareKeys(prev, k)
			if err != nil {
				return err
			}
			if c >= 0 {
				return r.damaged("map keys out of order")
			}
		}
		e := reflect.New(t.Elem()).Elem()
		if err := r.value(e, depth+1); err != nil {
			return err
		}
		m.SetMapIndex(k, e)
		prev = k
	}
	v.Set(m)
	return nil
}

func compareKeys(a, b reflect.Value) (int, error) {
	switch a.Kind() {
	case reflect.String:
		return strings.Compare(a.String(), b.String()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(a.Uint(), b.Uint()), nil
	case reflect.Bool:
		return boolInt(a.Bool()) - boolInt(b.Bool()), nil
	}
	return 0, fmt.Errorf("%w: map key %v (no order)", ErrUnsupported, a.Type())
}
