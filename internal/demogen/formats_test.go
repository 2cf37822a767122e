package main

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/odekmem/odekmem/memcore"
)

// TestRecordsReadBackThroughMemcore: the generator's own record types
// (Atom, QAtom, Pending) mirror FORMATS.md, not memcore's structs; every
// field they write must arrive in memcore's types as written, so a JSON
// tag that drifts on either side fails here.
func TestRecordsReadBackThroughMemcore(t *testing.T) {
	files, err := Generate(demoNow)
	if err != nil {
		t.Fatal(err)
	}
	ts := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("created_at %q: %v", s, err)
		}
		return v
	}
	ctxOf := func(c *Context) memcore.AtomContext {
		if c == nil {
			return memcore.AtomContext{}
		}
		return memcore.AtomContext{SessionID: c.SessionID, Turn: c.Turn, Project: c.Project, RelatedAtomIDs: c.RelatedAtomIDs}
	}
	asMemcore := func(a Atom) memcore.Atom {
		return memcore.Atom{ID: a.ID, SourceClass: memcore.Source(a.SourceClass), Type: memcore.Type(a.Type), CreatedAt: ts(a.CreatedAt), Context: ctxOf(a.Context), Pin: a.Pin, Confidence: a.Confidence}
	}

	var ours []Atom
	var theirs []memcore.Atom
	decodeBoth(t, files["atoms.json"], &ours, &theirs)
	for i, a := range ours {
		if want := asMemcore(a); !reflect.DeepEqual(theirs[i], want) {
			t.Fatalf("atoms.json record %d reads as\n%+v\nwant\n%+v", i, theirs[i], want)
		}
	}

	var qours []QAtom
	var qtheirs []memcore.QuarantinedAtom
	decodeBoth(t, files["quarantine.json"], &qours, &qtheirs)
	for i, q := range qours {
		got := qtheirs[i]
		want := asMemcore(Atom{ID: q.ID, SourceClass: q.SourceClass, Type: q.Type, CreatedAt: q.CreatedAt, Context: q.Context, Pin: q.Pin, Confidence: q.Confidence})
		want.Text = q.Text
		if !reflect.DeepEqual(got.Atom, want) || !got.QuarantinedAt.Equal(ts(q.QuarantinedAt)) || got.Reason != q.Reason {
			t.Fatalf("quarantine.json record %d reads as\n%+v\nwant\n%+v", i, got, q)
		}
	}

	var mours UserModel
	var mtheirs memcore.UserModel
	decodeBoth(t, files["user_model.json"], &mours, &mtheirs)
	if len(mtheirs.Pending) != len(mours.PendingReview) || mtheirs.Version != mours.Version || mtheirs.Focus.Task != mours.CurrentFocus.Task ||
		len(mtheirs.Interaction.CommonOpeners) != len(mours.InteractionPatterns.CommonOpeners) || mtheirs.Style != *mours.Style {
		t.Fatalf("user_model.json reads as %+v", mtheirs)
	}
	for i, p := range mours.PendingReview {
		got := mtheirs.Pending[i]
		if got.ID != p.ID || got.Field != p.Field || got.Value != p.Value || got.Evidence != p.Evidence ||
			got.Confidence != p.Confidence || !got.CreatedAt.Equal(ts(p.CreatedAt)) {
			t.Fatalf("pending %d reads as %+v, want %+v", i, got, p)
		}
	}
}

func decodeBoth(t *testing.T, b []byte, ours, theirs any) {
	t.Helper()
	if err := json.Unmarshal(b, ours); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, theirs); err != nil {
		t.Fatal(err)
	}
	if n, m := reflect.ValueOf(ours).Elem(), reflect.ValueOf(theirs).Elem(); n.Kind() == reflect.Slice && (n.Len() != m.Len() || n.Len() == 0) {
		t.Fatalf("decoded %d records as the generator's and %d as memcore's", n.Len(), m.Len())
	}
}
