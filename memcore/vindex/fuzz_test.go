package vindex

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

func appendCRC(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func FuzzDecodeCache(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 1))
	e := NewExact(4, Options{})
	e.Add("a", randUnit(r, 4))
	e.Add("bb", randUnit(r, 4))
	var buf bytes.Buffer
	e.Snapshot("hash/1/4", func(id string) string { return "text " + id }).WriteTo(&buf)
	valid := buf.Bytes()
	f.Add(valid)
	f.Add(valid[:len(valid)-5])
	f.Add([]byte{})
	f.Add([]byte("ODKMVEC\x00"))
	f.Add([]byte(`{"fingerprint":"rp/256","corpus":"0:cbf29ce484222325"}`))
	hostile := append([]byte(nil), valid[:len(valid)-4]...)
	hostile[16] = 0xff
	f.Add(appendCRC(hostile))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Fix up the checksum half of the time so the fuzzer reaches the
		// field decoders, not just the CRC check.
		if len(b) > 28 && b[len(b)-1]&1 == 0 {
			b = appendCRC(b[:len(b)-4])
		}
		c, err := DecodeCache(b)
		if err != nil {
			return
		}
		if len(c.Vectors) != len(c.IDs)*c.Dims || len(c.Texts) != len(c.IDs) {
			t.Fatalf("inconsistent cache")
		}
		if len(c.Vectors)*4 > len(b) {
			t.Fatalf("decoded more than the input holds")
		}
		if _, err := c.Exact(Options{IDF: true}); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := c.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
	})
}
