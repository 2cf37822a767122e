// Package mirrortest checks that a public type mirrors the engine's: a
// fully filled value converts with every field, under the same JSON key.
package mirrortest

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/odekmem/odekmem/internal/mirror"
)

// fill sets every exported field of v, recursively, to a distinct non-zero
// value, so that a field a conversion drops or swaps shows.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Unix(int64(1_700_000_000+*n), 0).UTC()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), n)
		fill(v.Index(1), n)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k := reflect.New(v.Type().Key()).Elem()
		fill(k, n)
		e := reflect.New(v.Type().Elem()).Elem()
		if e.Kind() == reflect.Interface {
			e.Set(reflect.ValueOf("value"))
		} else {
			fill(e, n)
		}
		v.SetMapIndex(k, e)
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)) + string(rune('a'+*n/26%26)))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	default:
		panic("fill: " + v.Type().String())
	}
}

// Filled is a T with every exported field set, recursively, to a
// distinct non-zero value.
func Filled[T any]() T {
	var v T
	n := 0
	fill(reflect.ValueOf(&v).Elem(), &n)
	return v
}

// JSON is v marshalled and read back as a map.
func JSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Outward checks that the engine's value E, fully filled, converts to the
// public T with every public field carried over under the same JSON key,
// and that the only keys the public type leaves out are those it means to.
func Outward[E, T any](t *testing.T, leftOut ...string) {
	t.Helper()
	e := Filled[E]()
	pub := mirror.Convert[T](e)
	missing := map[string]bool{}
	compareJSON(t, JSON(t, pub), JSON(t, e), "", missing)
	var got []string
	for k := range missing {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, leftOut) {
		t.Errorf("%T leaves out %v of the engine's fields, want %v", pub, got, leftOut)
	}
}

// compareJSON reports where pub differs from eng and collects the keys eng
// has and pub lacks, at any depth.
func compareJSON(t *testing.T, pub, eng any, path string, missing map[string]bool) {
	t.Helper()
	switch p := pub.(type) {
	case map[string]any:
		e, _ := eng.(map[string]any)
		for k, v := range p {
			compareJSON(t, v, e[k], path+"."+k, missing)
		}
		for k := range e {
			if _, ok := p[k]; !ok {
				missing[k] = true
			}
		}
	case []any:
		e, _ := eng.([]any)
		if len(e) != len(p) {
			t.Errorf("%s: %d elements, the engine's %d", path, len(p), len(e))
			return
		}
		for i := range p {
			compareJSON(t, p[i], e[i], path, missing)
		}
	default:
		if !reflect.DeepEqual(pub, eng) {
			t.Errorf("%s is %v, the engine's %v", path, pub, eng)
		}
	}
}

// Inward checks that the public T, fully filled, reaches the engine whole.
func Inward[T, E any](t *testing.T) {
	t.Helper()
	pub := Filled[T]()
	back := mirror.Convert[T](mirror.Convert[E](pub))
	if !reflect.DeepEqual(back, pub) {
		t.Errorf("%T does not survive the engine's type:\n%+v\n%+v", pub, pub, back)
	}
}

// TestConvertCoversEveryPublicType: memcore's types mirror the engine's; a
// field added on one side only, or a JSON key spelled differently, fails
// here rather than in an agent.
