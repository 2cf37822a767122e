package memcore

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	"github.com/odekmem/odekmem/internal/guard"
)

// Stats describes a store: disk use per component against the cap, counts
// and the state of the vector index.
type Stats struct {
	Dir        string           `json:"dir"`
	CapBytes   int64            `json:"cap_bytes"`
	TotalBytes int64            `json:"total_bytes"`
	Components map[string]int64 `json:"components"`
	Live       int              `json:"live"`
	Pinned     int              `json:"pinned"`
	Quarantine int              `json:"quarantine"`
	Pending    int              `json:"pending"`
	Links      int              `json:"links"`
	ByType     map[Type]int     `json:"by_type"`
	BySource   map[Source]int   `json:"by_source"`
	ByReason   map[string]int   `json:"by_reason"`
	ByProject  map[string]int   `json:"by_project"`
	// Index describes the vector index and its cache.
	Index struct {
		Kind        string `json:"kind"`
		Fingerprint string `json:"fingerprint"`
		Dims        int    `json:"dims"`
		Vectors     int    `json:"vectors"`
		// Stale counts index changes not yet in the on-disk cache.
		Stale int `json:"stale"`
		// Rebuilding is set while a background rebuild runs; Done of
		// Total atoms are embedded so far.
		Rebuilding bool  `json:"rebuilding"`
		Done       int64 `json:"rebuild_done,omitempty"`
		Total      int64 `json:"rebuild_total,omitempty"`
	} `json:"index"`
	Problems []Problem `json:"problems,omitempty"`
	// Guard counts the guard's checks, blocks, cache hits and outages
	// (nil when no guard is configured).
	Guard *guard.Stats `json:"guard,omitempty"`
	// OtherBytes and OtherFiles are the files odekmem does not know (for
	// example odek's nudges.json): left untouched, counted against the cap.
	OtherBytes int64    `json:"other_bytes"`
	OtherFiles []string `json:"other_files,omitempty"`
}

// Stats measures the store.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	if err := s.read(ctx, func() {
		st = Stats{Dir: s.dir, CapBytes: s.cfg.capBytes(), Components: map[string]int64{},
			ByType: map[Type]int{}, BySource: map[Source]int{}, ByReason: map[string]int{}, ByProject: map[string]int{}}
		if n := s.size.lazySum; n > 0 {
			st.Components[componentOf(chunkRel("x"))] += n
			st.TotalBytes += n
		}
		for rel, n := range s.size.usage {
			c := componentOf(rel)
			st.Components[c] += n
			st.TotalBytes += n
			if c == "other" {
				st.OtherBytes += n
				if !strings.Contains(rel, string(filepath.Separator)) {
					st.OtherFiles = append(st.OtherFiles, rel)
				}
			}
		}
		sort.Strings(st.OtherFiles)
		for _, e := range s.order {
			st.Live++
			if e.atom.Pin {
				st.Pinned++
			}
			st.ByType[e.atom.Type]++
			st.BySource[e.atom.SourceClass]++
			if p := e.atom.Context.Project; p != "" {
				st.ByProject[p]++
			}
		}
		for _, q := range s.quar {
			st.Quarantine++
			st.BySource[q.SourceClass]++
			r := q.Reason
			if len(r) > 13 && r[:13] == "scan_rejected" {
				r = "scan_rejected"
			}
			st.ByReason[r]++
		}
		st.Pending = len(s.model.Pending)
		st.Links = s.graph.count()
		st.Problems = append([]Problem(nil), s.problems...)
	}); err != nil {
		return Stats{}, err
	}
	st.Index.Kind, st.Index.Fingerprint = s.cfg.Index, s.vec.Embedder().Fingerprint()
	st.Index.Vectors, st.Index.Dims, st.Index.Stale = s.vec.Stats()
	st.Index.Done, st.Index.Total, st.Index.Rebuilding = s.vec.Progress()
	st.Guard = s.guardStats()
	return st, nil
}

// NextEvictions lists the n unpinned live atoms with the lowest retention
// (each at its type's half-life), in the order eviction would take them;
// none for n ≤ 0. Each Scored carries the atom and its Retention; the
// fields of a search (similarities, ranks, Composite) are zero.
func (s *Store) NextEvictions(ctx context.Context, n int) ([]Scored, error) {
	var out []Scored
	if err := s.read(ctx, func() {
		now := s.now()
		for _, e := range s.order {
			if !e.atom.Pin {
				out = append(out, Scored{Atom: cloneAtom(e.atom), Retention: e.atom.retention(now, s.evictHalfLife(e))})
			}
		}
	}); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Retention != out[j].Retention {
			return out[i].Retention < out[j].Retention
		}
		return out[i].Atom.CreatedAt.Before(out[j].Atom.CreatedAt)
	})
	if len(out) > max(n, 0) {
		out = out[:max(n, 0)]
	}
	return out, nil
}

// CompactResult reports what Compact reclaimed.
type CompactResult struct {
	Before    int64 `json:"before_bytes"`
	After     int64 `json:"after_bytes"`
	Reclaimed int64 `json:"reclaimed_bytes"`
	Expired   int   `json:"expired_quarantine"`
	Vectors   int   `json:"vectors"`
}

// Compact drops the quarantine entries past quarantine_ttl_days (the only
// act besides the size cap that does; see CompactResult.Expired), rewrites
// the vector cache from the live atoms and every metadata file, and
// reports bytes reclaimed. A surface should show the person what is
// expired before it compacts.
func (s *Store) Compact(ctx context.Context) (CompactResult, error) {
	return s.compact(ctx, true)
}

// compact is Compact; expire false keeps expired quarantine entries (the
// store's own background compaction after a large eviction is not a
// person's act).
func (s *Store) compact(ctx context.Context, expire bool) (CompactResult, error) {
	if err := s.vec.WaitReady(ctx); err != nil {
		return CompactResult{}, err
	}
	var r CompactResult
	s.mu.Lock()
	s.fullNext = true // compaction is maintenance: every chunk is checked
	s.mu.Unlock()
	err := s.update(ctx, func(t *tx) error {
		s.measureLocked()
		r.Before = s.totalLocked()
		if expire {
			before := len(s.quar)
			s.expireLocked(t)
			r.Expired = before - len(s.quar)
		}
		t.vectors, t.atoms = true, true
		// Files that do not exist yet are only created when they have
		// content: compaction must not grow the store past its cap.
		t.quar = t.quar || s.presentOr(fileQuarantine, len(s.quar) > 0)
		t.assoc = t.assoc || s.presentOr(fileAssoc, s.graph.count() > 0)
		t.onCommit(func() {
			s.measureLocked()
			r.After = s.totalLocked()
			r.Reclaimed = r.Before - r.After
			r.Vectors = len(s.order)
		})
		return nil
	})
	if err != nil {
		return r, err
	}
	// Atoms another process added since this one last read are loaded by
	// the write above and embedded once it has committed, after the cache
	// was written: write it again, or every later open embeds them.
	if _, _, unsaved := s.vec.Stats(); unsaved > 0 {
		err = s.update(ctx, func(t *tx) error {
			t.vectors = true
			return nil
		})
	}
	return r, err
}

// presentOr reports whether the file exists or has content to hold.
func (s *Store) presentOr(name string, hasContent bool) bool {
	return hasContent || s.files.Exists(name)
}
