package index

import "testing"

// TestCorpusHash pins vectors_meta.json's corpus field (FORMATS.md): odek
// compares it, so the value for a given set of ids must never change.
func TestCorpusHash(t *testing.T) {
	if got := CorpusHash([]string{"b", "a"}); got != "2:ab40d7820d408076" {
		t.Fatal(got)
	}
	if got := CorpusHash(nil); got != "0:cbf29ce484222325" {
		t.Fatal(got)
	}
	ids := []string{"z", "y"}
	CorpusHash(ids)
	if ids[0] != "z" {
		t.Fatal("corpusHash sorted its argument in place")
	}
}
