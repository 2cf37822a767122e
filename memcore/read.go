package memcore

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/vocab"
)

// ---- readers ----

// Filter selects atoms for List. Empty fields match everything. Type is
// one of the Type constants, in any letter case (another is
// ErrInvalidArgument). Project is compared as the Hook compares projects: by
// base name, case-insensitive, so "/src/app" and "App" match.
type Filter struct {
	Type             Type
	Source           Source
	Project, Session string
}

func (f Filter) match(a Atom) bool {
	return (f.Type == "" || a.Type == f.Type) && (f.Source == "" || a.SourceClass == f.Source) &&
		(f.Project == "" || projectKey(a.Context.Project) == projectKey(f.Project)) && (f.Session == "" || a.Context.SessionID == f.Session)
}

// List returns live atoms matching f, newest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Atom, error) {
	var out []Atom
	var err error
	if f.Type, err = atomType(f.Type); err != nil {
		return nil, err
	}
	if err := s.read(ctx, func() {
		out = make([]Atom, 0, len(s.order))
		for i := len(s.order) - 1; i >= 0; i-- {
			if a := s.order[i].atom; f.match(a) {
				out = append(out, cloneAtom(a))
			}
		}
	}); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, nil
}

func cloneAtom(a Atom) Atom {
	a.Context.RelatedAtomIDs = append([]string(nil), a.Context.RelatedAtomIDs...)
	a.Origin = cloneOrigin(a.Origin)
	return a
}

// Get returns a live or quarantined atom by id. For a quarantined atom, q is
// non-nil.
func (s *Store) Get(ctx context.Context, id string) (a Atom, q *QuarantinedAtom, err error) {
	err = missingAtom(id)
	if rerr := s.read(ctx, func() {
		if e := s.byID[id]; e != nil {
			a, err = cloneAtom(e.atom), nil
			return
		}
		for _, qa := range s.quar {
			if qa.ID == id {
				c := *qa
				c.Atom = cloneAtom(qa.Atom)
				a, q, err = c.Atom, &c, nil
				return
			}
		}
	}); rerr != nil {
		return Atom{}, nil, rerr
	}
	return
}

// Quarantined returns the quarantine, oldest first.
func (s *Store) Quarantined(ctx context.Context) ([]QuarantinedAtom, error) {
	var out []QuarantinedAtom
	if err := s.read(ctx, func() {
		for _, q := range s.quar {
			c := *q
			c.Atom = cloneAtom(q.Atom)
			out = append(out, c)
		}
	}); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].QuarantinedAt.Before(out[j].QuarantinedAt) })
	return out, nil
}

// UserModel returns a copy of the user model, with the inferences that
// wait for a person in Pending, oldest first.
func (s *Store) UserModel(ctx context.Context) (UserModel, error) {
	var m UserModel
	if err := s.read(ctx, func() { m = s.model.clone() }); err != nil {
		return UserModel{}, err
	}
	sortPending(m.Pending)
	return m, nil
}

// Links returns a live or quarantined atom's associations; ErrNotFound
// when there is no such atom.
func (s *Store) Links(ctx context.Context, id string) ([]Link, error) {
	var out []Link
	var missing error
	err := s.read(ctx, func() {
		if s.byID[id] == nil && s.quarIndex(id) < 0 {
			missing = missingAtom(id)
			return
		}
		out = s.graph.neighbours(id)
	})
	if err == nil {
		err = missing
	}
	return out, err
}

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// atomType reads a type as Add and the type filters take it: any letter
// case, "" (the caller's default), or one of the Type constants; another
// is errUnknownType.
func atomType(t Type) (Type, error) {
	lt := Type(strings.ToLower(strings.TrimSpace(string(t))))
	if lt == "" || vocab.ValidType(lt) {
		return lt, nil
	}
	return "", fmt.Errorf("%w %q: allowed %s", errUnknownType, t, strings.Join(vocab.AtomTypes, ", "))
}
