package memcore

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Unknown JSON fields survive every odekmem write (FORMATS.md): odek and
// newer odek versions add fields odekmem does not know, at any level. A
// record keeps the bytes it was read from; when odekmem writes the record
// again, keepUnknown copies every key of the old bytes that odekmem's type
// does not declare into the new ones, recursing into nested objects the
// type declares (an atom's context, the user model's sections). Keys the
// type declares are odekmem's to write or omit.

// keySchema is the set of JSON keys a type declares; a key whose value is a
// struct without its own MarshalJSON has a nested schema.
type keySchema map[string]keySchema

var schemaCache sync.Map // reflect.Type → keySchema

var marshalerType = reflect.TypeFor[json.Marshaler]()

// schemaOf derives the declared keys from a struct's json tags (embedded
// structs flatten, as encoding/json does).
func schemaOf(t reflect.Type) keySchema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v, ok := schemaCache.Load(t); ok {
		return v.(keySchema)
	}
	ks := keySchema{}
	if t.Kind() == reflect.Struct {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				for k, v := range schemaOf(f.Type) {
					ks[k] = v
				}
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			var child keySchema
			if ft.Kind() == reflect.Struct && !ft.Implements(marshalerType) && !reflect.PointerTo(ft).Implements(marshalerType) && ft.PkgPath() == t.PkgPath() {
				child = schemaOf(ft)
			}
			ks[name] = child
		}
	}
	schemaCache.Store(t, ks)
	return ks
}

// keepUnknown returns fresh (a JSON object) with the keys of old that ks
// does not declare appended, and nested declared objects merged the same
// way. A declared object key that fresh omits (an empty section) comes back
// holding only old's unknown keys, if it had any. When either input is not
// an object, fresh is returned unchanged.
func keepUnknown(fresh, old []byte, ks keySchema) []byte {
	if len(old) == 0 {
		return fresh
	}
	oldKV, ok := objectMembers(old)
	if !ok {
		return fresh
	}
	newKV, ok := objectMembers(fresh)
	if !ok {
		return fresh
	}
	changed := false
	have := make(map[string]int, len(newKV))
	for i, kv := range newKV {
		have[kv.key] = i
	}
	for _, o := range oldKV {
		child, declared := ks[o.key]
		if !declared {
			if _, dup := have[o.key]; !dup {
				newKV = append(newKV, o)
				have[o.key] = len(newKV) - 1
				changed = true
			}
			continue
		}
		if child == nil || !isObject(o.val) {
			continue
		}
		if i, ok := have[o.key]; ok {
			if merged := keepUnknown(newKV[i].val, o.val, child); !bytes.Equal(merged, newKV[i].val) {
				newKV[i].val = merged
				changed = true
			}
			continue
		}
		if kept := keepUnknown([]byte("{}"), o.val, child); len(kept) > 2 {
			newKV = append(newKV, member{key: o.key, val: kept})
			have[o.key] = len(newKV) - 1
			changed = true
		}
	}
	if !changed {
		return fresh
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, kv := range newKV {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(kv.val)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

type member struct {
	key string
	val json.RawMessage
}

func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// objectMembers splits a JSON object into its members in order; values are
// compacted.
func objectMembers(b []byte) ([]member, bool) {
	if !isObject(b) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, ok := tok.(string)
		if !ok {
			return nil, false
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, false
		}
		var c bytes.Buffer
		if json.Compact(&c, val) != nil {
			return nil, false
		}
		out = append(out, member{key: key, val: c.Bytes()})
	}
	return out, true
}
