package memcore

import (
	"encoding/json"
	"sort"
)

// Association kinds, the values of Link.Kind.
const (
	linkTemporal = "temporal"
	linkTask     = "task"
	linkSemantic = "semantic"
)

// Link is one association from an atom to a neighbour.
type Link struct {
	ID string `json:"id"`
	// Kind is "temporal" (a few turns apart in one session), "task"
	// (goals, decisions … of one project), "semantic" (a search hit of
	// the atom's text) or "supersedes" (one replaced the other); empty
	// for a link whose kind was not recorded.
	Kind string `json:"kind,omitempty"`
}

// assocGraph is the symmetric association graph. associations.json keeps
// the plain id → [ids] shape; associations_kinds.json records each pair's
// kind keyed "a|b" with a < b.
type assocGraph struct {
	adj   map[string]map[string]struct{}
	kinds map[string]string
}

func newAssocGraph() *assocGraph {
	return &assocGraph{adj: map[string]map[string]struct{}{}, kinds: map[string]string{}}
}

func pairKey(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return a + "|" + b
}

func (g *assocGraph) link(a, b, kind string) bool {
	if a == b || a == "" || b == "" {
		return false
	}
	if _, ok := g.adj[a][b]; ok {
		if kind != "" && g.kinds[pairKey(a, b)] == "" {
			g.kinds[pairKey(a, b)] = kind
		}
		return false
	}
	for _, e := range [][2]string{{a, b}, {b, a}} {
		if g.adj[e[0]] == nil {
			g.adj[e[0]] = map[string]struct{}{}
		}
		g.adj[e[0]][e[1]] = struct{}{}
	}
	if kind != "" {
		g.kinds[pairKey(a, b)] = kind
	}
	return true
}

func (g *assocGraph) remove(id string) bool {
	ns, ok := g.adj[id]
	if !ok {
		return false
	}
	for n := range ns {
		delete(g.adj[n], id)
		if len(g.adj[n]) == 0 {
			delete(g.adj, n)
		}
		delete(g.kinds, pairKey(id, n))
	}
	delete(g.adj, id)
	return true
}

func (g *assocGraph) neighbours(id string) []Link {
	var out []Link
	for n := range g.adj[id] {
		out = append(out, Link{ID: n, Kind: g.kinds[pairKey(id, n)]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (g *assocGraph) count() int {
	n := 0
	for _, ns := range g.adj {
		n += len(ns)
	}
	return n / 2
}

func (g *assocGraph) marshal() ([]byte, []byte, error) {
	plain := map[string][]string{}
	for id, ns := range g.adj {
		list := make([]string, 0, len(ns))
		for n := range ns {
			list = append(list, n)
		}
		sort.Strings(list)
		plain[id] = list
	}
	a, err := json.MarshalIndent(plain, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	k, err := json.MarshalIndent(g.kinds, "", "  ")
	return a, k, err
}
