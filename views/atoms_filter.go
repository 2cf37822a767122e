package views

// The Atoms pane's filter: key:value tokens and words, the view they select, and semantic search within them.

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/odekmem/odekmem/memcore"
)

// atomFilter is a parsed filter: key:value tokens plus free text.
type atomFilter struct {
	Type, Source, Project, Session string
	Text                           []string
}

// atomFilterKey reports whether k is a key the Atoms filter knows.
func atomFilterKey(k string) bool {
	switch k {
	case "type", "t", "source", "src", "project", "p", "session", "S":
		return true
	}
	return false
}

func parseFilter(s string) atomFilter {
	var f atomFilter
	for _, tok := range strings.Fields(s) {
		k, v, ok := strings.Cut(tok, ":")
		lv := strings.ToLower(v)
		switch {
		case ok && (k == "type" || k == "t"):
			f.Type = lv
		case ok && (k == "source" || k == "src"):
			f.Source = lv
		case ok && (k == "project" || k == "p"):
			f.Project = lv
		case ok && (k == "session" || k == "S"):
			f.Session = lv
		default:
			f.Text = append(f.Text, strings.ToLower(tok))
		}
	}
	return f
}

func (f atomFilter) match(r *AtomRow) bool {
	if f.Type != "" && !strings.HasPrefix(string(r.Atom.Type), f.Type) {
		return false
	}
	if f.Source != "" && !strings.HasPrefix(string(r.Atom.SourceClass), f.Source) {
		return false
	}
	if f.Project != "" && !strings.Contains(strings.ToLower(r.Atom.Context.Project), f.Project) {
		return false
	}
	if f.Session != "" && !strings.Contains(strings.ToLower(r.Atom.Context.SessionID), f.Session) {
		return false
	}
	for _, t := range f.Text {
		if !strings.Contains(r.lower, t) {
			return false
		}
	}
	return true
}

// apply recomputes the filtered view and reselects the atom by id.
func (a *Atoms) apply() {
	a.parsed = parseFilter(a.filter)
	a.view = a.view[:0]
	a.pinned = false
	empty := a.filter == ""
	for i := range a.rows {
		if empty || a.parsed.match(&a.rows[i]) {
			a.view = append(a.view, i)
			a.pinned = a.pinned || a.rows[i].Atom.Pin
		}
	}
	a.cur.SetN(len(a.view))
	if a.filter != a.applied {
		// A changed filter starts at the first (newest) match.
		a.applied = a.filter
		a.cur.Set(0)
		a.selID = ""
	} else if a.selID != "" {
		for vi, ri := range a.view {
			if a.rows[ri].Atom.ID == a.selID {
				a.cur.Set(vi)
				break
			}
		}
	}
	a.remember()
	a.refreshKeys()
}

func (a *Atoms) remember() {
	if len(a.view) > 0 && a.mode == atomsList {
		a.selID = a.rows[a.view[a.cur.Pos]].Atom.ID
	}
}

// setToken replaces the key:value token for k in the filter.
func (a *Atoms) setToken(k, v string) {
	var out []string
	for _, tok := range strings.Fields(a.filter) {
		if strings.HasPrefix(tok, k+":") {
			continue
		}
		out = append(out, tok)
	}
	if v != "" {
		out = append([]string{k + ":" + v}, out...)
	}
	a.filter = strings.Join(out, " ")
	a.apply()
}

// cycle moves the k filter to the next value present in the data.
func (a *Atoms) cycle(k string) {
	var cur string
	switch k {
	case "type":
		cur = a.parsed.Type
	case "source":
		cur = a.parsed.Source
	case "project":
		cur = a.parsed.Project
	case "session":
		cur = a.parsed.Session
	}
	vals := a.values[k]
	next := ""
	if cur == "" && len(vals) > 0 {
		next = vals[0]
	} else {
		for i, v := range vals {
			if strings.ToLower(v) == cur && i+1 < len(vals) {
				next = vals[i+1]
			}
		}
	}
	if strings.ContainsAny(next, " \t") {
		next = strings.Fields(next)[0]
	}
	a.setToken(k, next)
}

// SearchCmd runs a semantic search within the Atoms filter (type, source,
// project, session and words, as the list applies them): it asks for more
// candidates and keeps the top semantic_search_top_k that pass.
func SearchCmd(d Deps, q, filter string) func() tea.Msg {
	return func() tea.Msg {
		if filter == "" {
			res, err := d.Store.Search(d.Ctx, q, memcore.SearchOptions{})
			return SearchResultMsg{Query: q, Results: res, Err: err}
		}
		k := d.Store.Config().SemanticSearchTopK
		if k <= 0 {
			k = 10
		}
		res, err := d.Store.Search(d.Ctx, q, memcore.SearchOptions{K: 50 * k})
		f := parseFilter(filter)
		kept := res[:0]
		for _, r := range res {
			row := AtomRow{Atom: r.Atom, lower: strings.ToLower(r.Atom.Text)}
			if f.match(&row) && len(kept) < k {
				kept = append(kept, r)
			}
		}
		return SearchResultMsg{Query: q, Filter: filter, Results: kept, Err: err}
	}
}
