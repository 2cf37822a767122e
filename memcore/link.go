package memcore

import (
	"context"
	"sort"
)

// linkRequest asks for one association.
type linkRequest struct {
	A, B, Kind string
}

// addLinks records associations between existing atoms (live or
// quarantined) in one write. Links are symmetric; links to unknown atoms
// are skipped. It returns how many were new.
func (s *Store) addLinks(ctx context.Context, links []linkRequest) (int, error) {
	n := 0
	err := s.update(ctx, func(t *tx) error {
		exists := func(id string) bool { return s.byID[id] != nil || s.quarIndex(id) >= 0 }
		for _, l := range links {
			if exists(l.A) && exists(l.B) && s.graph.link(l.A, l.B, l.Kind) {
				n++
			}
		}
		t.assoc = n > 0
		return nil
	})
	return n, err
}

// maxTaskLinks bounds task links per new atom: the most recent atoms of
// the same project with a task type, not every pair in a project.
const maxTaskLinks = 3

// temporalWindow is how many turns apart two atoms of one session may be
// and still be linked as temporal neighbours.
const temporalWindow = 2

var taskTypes = map[Type]bool{TypeGoal: true, TypeDecision: true, TypeConvention: true, TypeIntent: true}

// associate links a new live atom to its temporal neighbours (same
// session, nearby turns), task neighbours (same project, goal, decision,
// convention or intent; bounded) and semantic neighbours
// (association_semantic_top_k nearest above the min score). It does
// nothing when associations_enabled is false.
func (s *Store) associate(ctx context.Context, id string) (int, error) {
	if !s.cfg.AssociationsEnabled {
		return 0, nil
	}
	a, q, err := s.Get(ctx, id)
	if err != nil || q != nil {
		return 0, err
	}
	return s.addLinks(ctx, s.associationLinks(ctx, a))
}

// associationLinks plans associate's links for a live atom without
// writing them, so a batch (ingest) links many atoms in one write.
func (s *Store) associationLinks(ctx context.Context, a Atom) []linkRequest {
	var links []linkRequest
	s.read(ctx, func() {
		var task []Atom
		for i := len(s.order) - 1; i >= 0; i-- {
			b := s.order[i].atom
			if b.ID == a.ID {
				continue
			}
			if a.Context.SessionID != "" && b.Context.SessionID == a.Context.SessionID {
				if d := b.Context.Turn - a.Context.Turn; d >= -temporalWindow && d <= temporalWindow {
					links = append(links, linkRequest{a.ID, b.ID, linkTemporal})
				}
			}
			if taskTypes[a.Type] && taskTypes[b.Type] && a.Context.Project != "" && b.Context.Project == a.Context.Project && len(task) < maxTaskLinks {
				task = append(task, b)
			}
		}
		for _, b := range task {
			links = append(links, linkRequest{a.ID, b.ID, linkTask})
		}
	})
	if k := s.cfg.AssociationSemanticTopK; k > 0 {
		res, err := s.Search(ctx, a.Text, SearchOptions{K: k + 1})
		if err == nil {
			added := 0
			for _, r := range res {
				if r.Atom.ID == a.ID || added >= k {
					continue
				}
				links = append(links, linkRequest{a.ID, r.Atom.ID, linkSemantic})
				added++
			}
		}
	}
	sort.SliceStable(links, func(i, j int) bool { return links[i].B < links[j].B })
	return links
}
