package views

// How the Atoms pane draws: the header, the list, search results and help.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/odekmem/odekmem/internal/score"
)

// View renders the pane.
func (a *Atoms) View() string {
	s := a.d.Styles
	var b strings.Builder
	head := s.Title.Render("Atoms")
	switch a.mode {
	case atomsDetail:
		head += s.Muted.Render(" › detail")
		if pos := a.detail.Position(); pos != "" {
			head += s.Muted.Render(" · " + pos)
		}
	case atomsSearch:
		head += s.Muted.Render(fmt.Sprintf(" › search %q · %s", Line(a.query), Count(len(a.search), "result", "results")))
		if a.sfilter != "" {
			head += " " + s.Accent.Render("within "+Line(a.sfilter))
		}
	default:
		head += s.Muted.Render(fmt.Sprintf(" · %d of %d live", len(a.view), len(a.rows)))
		if a.filter != "" {
			head += " " + s.Accent.Render("filter: "+Line(a.filter))
			if note := unknownNote(unknownKeys(a.filter, atomFilterKey), []string{"type", "source", "project", "session"}); note != "" {
				head += s.Danger.Render(note)
			}
		}
		if a.pinned {
			head += s.Muted.Render(" · ") + s.Pin.Render("*") + s.Muted.Render(" pinned")
		}
	}
	b.WriteString(Cut(head, a.width))
	b.WriteString("\n")
	var body string
	switch a.mode {
	case atomsDetail:
		body = a.detail.View()
	case atomsSearch:
		body = a.searchView()
	default:
		body = a.listView()
	}
	b.WriteString(body)
	out := FitLines(b.String(), a.width, a.height-1)
	if a.inKind != inputNone {
		out += "\n" + a.input.View(a.width, s.Prompt, s.Input, s.Selected)
	} else {
		out += "\n"
	}
	return out
}

// column widths of the list
const (
	colType = 11
	colSrc  = 13
	colConf = 4
	colAge  = 5
	colRet  = 4
	// colProject is the PROJECT column of wide terminals.
	colProject = 18
)

// projectName is the last element of a project path ("~/src/payments-api"
// → "payments-api"; odek on Windows stores C:\src\app), or "–".
func projectName(p string) string {
	p = strings.TrimRight(strings.ReplaceAll(p, "\\", "/"), "/")
	if p == "" {
		return "–"
	}
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

func (a *Atoms) listView() string {
	s := a.d.Styles
	if a.err != nil {
		return s.StatusErr.Render("cannot list atoms: " + Line(a.err.Error()))
	}
	if !a.loaded {
		return s.Muted.Render("loading…")
	}
	if len(a.view) == 0 {
		if len(a.rows) == 0 && a.damaged {
			return s.Danger.Render("No live atom could be read: the store reported damage (see the banner above).")
		}
		if len(a.rows) == 0 {
			return s.Muted.Render("No live atoms yet. Press a to add a note.")
		}
		return s.Muted.Render("No atoms match the filter. Press esc to clear it.")
	}
	textW := a.width - (2 + colType + 1 + colSrc + 1 + colConf + 1 + colAge + 1 + colRet + 1)
	// From 130 columns a PROJECT column (the project's base name) fits
	// beside a text column of 80 or more.
	projW := 0
	if a.width >= 130 {
		projW = colProject
		textW -= projW + 1
	}
	if textW < 10 {
		textW = 10
	}
	var b strings.Builder
	hdr := fmt.Sprintf("  %-*s %-*s %*s %*s %*s ", colType, "TYPE", colSrc, "SOURCE", colConf, "CONF", colAge, "AGE", colRet, "RET")
	if projW > 0 {
		hdr += fmt.Sprintf("%-*s ", projW, "PROJECT")
	}
	hdr += "TEXT"
	b.WriteString(s.Label.Render(Cut(hdr, a.width)))
	b.WriteString("\n")
	start, end := a.cur.Range()
	for vi := start; vi < end; vi++ {
		r := &a.rows[a.view[vi]]
		at := &r.Atom
		pin := " "
		if at.Pin {
			pin = "*"
		}
		sel := " "
		if vi == a.cur.Pos {
			sel = ">"
		}
		line := fmt.Sprintf("%s%s%-*s %-*s %*.2f %*s %*.2f ", sel, pin,
			colType, Cut(Line(at.Type), colType), colSrc, Cut(Line(at.SourceClass), colSrc),
			colConf, score.Confidence(at.Confidence), colAge, Age(r.Age), colRet, r.Retention)
		if projW > 0 {
			line += Fit(Cut(Line(projectName(at.Context.Project)), projW), projW) + " "
		}
		line += Cut(Line(at.Text), textW)
		if vi == a.cur.Pos {
			line = s.Selected.Render(Fit(line, a.width))
		} else if at.Pin {
			line = s.Pin.Render(sel+pin) + line[2:]
		}
		b.WriteString(line)
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (a *Atoms) searchView() string {
	s := a.d.Styles
	if len(a.search) == 0 {
		return s.Muted.Render("No trusted atom scored above the minimum. Press esc to go back.")
	}
	var b strings.Builder
	hdr := "  COMP   SIM   COS  LEX#   RET  TYPE        TEXT"
	b.WriteString(s.Label.Render(Cut(hdr, a.width)) + "\n")
	textW := a.width - 47
	start, end := a.scur.Range()
	for i := start; i < end; i++ {
		r := a.search[i]
		sel := " "
		if i == a.scur.Pos {
			sel = ">"
		}
		lex := "-"
		if r.LexRank > 0 {
			lex = fmt.Sprint(r.LexRank)
		}
		line := fmt.Sprintf("%s %5.3f %5.3f %5.3f %4s %5.3f  %-11s %s", sel, r.Composite, r.Sim, r.Cosine, lex,
			r.Retention, Cut(Line(r.Atom.Type), 11), Cut(Line(r.Atom.Text), textW))
		if i == a.scur.Pos {
			line = s.Selected.Render(Fit(line, a.width))
		}
		b.WriteString(line + "\n")
	}
	// The legend, and why the selected atom came back.
	matched := "no shared word (similar characters)"
	if a.scur.Pos < len(a.search) && len(a.search[a.scur.Pos].Matched) > 0 {
		matched = strings.Join(a.search[a.scur.Pos].Matched, ", ")
	}
	b.WriteString(s.Muted.Render(Cut("matched: "+matched+" · COMP = 0.6·SIM + 0.4·RET · SIM = vector COS fused with BM25 · LEX# = BM25 rank · RET = conf × decay × trust", a.width)))
	return b.String()
}

// ShortHelp lists the main keys.
func (a *Atoms) ShortHelp() []key.Binding {
	k := a.keys
	if a.inKind != inputNone {
		return []key.Binding{a.in.Submit, a.in.Cancel}
	}
	return []key.Binding{k.Filter, k.ClearFilter, k.Detail, k.Back, k.Pin, k.Forget, k.Add, k.Search}
}

// FullHelp lists every key of the pane.
func (a *Atoms) FullHelp() [][]key.Binding {
	k := a.keys
	if a.inKind != inputNone {
		return [][]key.Binding{{a.in.Submit, a.in.Cancel}}
	}
	return [][]key.Binding{
		{a.nav.Up, a.nav.Down, a.nav.PageUp, a.nav.PageDown, a.nav.Home, a.nav.End},
		{k.Filter, k.ClearFilter, k.Type, k.Source, k.Project, k.Session},
		{k.Detail, k.Back, k.Pin, k.Forget, k.Add, k.Search, k.Graph},
	}
}
