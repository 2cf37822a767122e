// Package mirror copies values between memcore's public types and the
// engine's, which have the same exported fields (the public ones may leave
// some out).
package mirror

import (
	"fmt"
	"reflect"
)

// Convert copies src into a T field by field, by name, recursively
// (pointers, slices and nested structs; values of one type are copied as
// they are, other basic values converted). Unexported fields are skipped.
// A field of T that src lacks is a programming error and panics: the
// tests of memcore and memcore/review convert a fully filled value of
// every pair both ways, so such a drift fails make test, not an agent.
func Convert[T any](src any) T {
	var dst T
	Copy(reflect.ValueOf(&dst).Elem(), reflect.ValueOf(src))
	return dst
}

// Copy is Convert into a settable value.
func Copy(dst, src reflect.Value) {
	if dst.Type() == src.Type() {
		dst.Set(src)
		return
	}
	switch dst.Kind() {
	case reflect.Struct:
		if src.Kind() != reflect.Struct {
			panic(fmt.Sprintf("mirror: cannot copy %s into %s", src.Type(), dst.Type()))
		}
		dt := dst.Type()
		for i := 0; i < dt.NumField(); i++ {
			f := dt.Field(i)
			if !f.IsExported() {
				continue
			}
			sf := src.FieldByName(f.Name)
			if !sf.IsValid() {
				panic(fmt.Sprintf("mirror: %s has no field %s of %s", src.Type(), f.Name, dt))
			}
			Copy(dst.Field(i), sf)
		}
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.New(dst.Type().Elem()))
		Copy(dst.Elem(), src.Elem())
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeSlice(dst.Type(), src.Len(), src.Len()))
		for i := 0; i < src.Len(); i++ {
			Copy(dst.Index(i), src.Index(i))
		}
	default:
		dst.Set(src.Convert(dst.Type()))
	}
}
