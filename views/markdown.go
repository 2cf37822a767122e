package views

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/reflow/wordwrap"
)

// The detail view's markdown is the small document AtomMarkdown writes:
// headings ("# ", "## "), list items ("- "), paragraphs and blank lines,
// with every piece of store text escaped by mdEscape. renderMarkdown lays
// exactly that out as glamour's standard styles did (the "notty" style
// byte for byte: TestRenderMarkdownMatchesGlamour), without linking
// glamour: glamour's chroma lexers and styles, goldmark and bluemonday
// initialised 6 MB of tables in every odekmem process, `odekmem version`
// and the agent hook included, for a document that needs none of them.

// mdStyles are the detail view's text styles for one glamour style name
// ("dark", "light"; anything else is "notty": no styling).
type mdStyles struct {
	h1, h2, text lipgloss.Style
	plain        bool
}

func mdStylesFor(name string) mdStyles {
	switch name {
	case "dark":
		return mdStyles{
			h1:   lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("228")).Background(lipgloss.Color("63")),
			h2:   lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("39")),
			text: lipgloss.NewStyle().Foreground(lipgloss.Color("252")),
		}
	case "light":
		return mdStyles{
			h1:   lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("228")).Background(lipgloss.Color("63")),
			h2:   lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("27")),
			text: lipgloss.NewStyle().Foreground(lipgloss.Color("234")),
		}
	}
	return mdStyles{plain: true}
}

// mdBlock is one block of the document: a heading of level 1 or 2, a list
// item, or a paragraph (level 0), with its text unescaped.
type mdBlock struct {
	level int
	item  bool
	text  string
}

// parseMarkdown splits AtomMarkdown's document into blocks. Consecutive
// non-blank lines that are not headings or items join into one paragraph.
func parseMarkdown(md string) []mdBlock {
	var out []mdBlock
	para := false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.TrimSpace(l) == "":
			para = false
		case strings.HasPrefix(l, "# "):
			out = append(out, mdBlock{level: 1, text: mdUnescape(l[2:])})
			para = false
		case strings.HasPrefix(l, "## "):
			out = append(out, mdBlock{level: 2, text: mdUnescape(l[3:])})
			para = false
		case strings.HasPrefix(l, "- "):
			out = append(out, mdBlock{item: true, text: mdUnescape(l[2:])})
			para = false
		case para:
			out[len(out)-1].text += " " + mdUnescape(strings.TrimSpace(l))
		default:
			out = append(out, mdBlock{text: mdUnescape(strings.TrimSpace(l))})
			para = true
		}
	}
	return out
}

// mdUnescape undoes mdEscape's backslashes.
func mdUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_{}[]()#+-.!|<>", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// wrapText breaks a heading or paragraph as glamour did (reflow's word
// wrap: at spaces and after hyphens; a longer word keeps its own line).
func wrapText(s string, w int) []string {
	return strings.Split(wordwrap.String(s, w), "\n")
}

// wrapList breaks lines as glamour's lists and document did (x/ansi's
// word wrap: at spaces and after , . ; - + |).
func wrapList(items []string, w int) []string {
	return strings.Split(ansi.Wordwrap(strings.Join(items, "\n"), w, " ,.;-+|"), "\n")
}

// renderMarkdown lays out AtomMarkdown's document for a word-wrap width,
// as glamour.NewTermRenderer(glamour.WithStandardStyle(style),
// glamour.WithWordWrap(width)) did: a two-cell margin, text wrapped to
// width-4 cells and padded to width-2, a blank line between blocks.
func renderMarkdown(md, style string, width int) string {
	st := mdStylesFor(style)
	inner := max(width-4, 1)
	pad := func(s string) string {
		if n := lipgloss.Width(s); n < inner {
			s += strings.Repeat(" ", inner-n)
		}
		return "  " + s
	}
	blank := pad("")
	var b strings.Builder
	b.WriteByte('\n')
	blocks := parseMarkdown(md)
	for i := 0; i < len(blocks); i++ {
		if i > 0 {
			b.WriteString(blank + "\n")
		}
		blk := blocks[i]
		var lines []string
		style := st.text
		switch {
		case blk.item:
			// A list: its items, one block.
			var items []string
			for ; i < len(blocks) && blocks[i].item; i++ {
				items = append(items, "• "+blocks[i].text)
			}
			i--
			lines = wrapList(items, inner)
		case blk.level == 1:
			style = st.h1
			if st.plain {
				lines = wrapText("# "+blk.text, inner)
			} else {
				lines = wrapText(" "+blk.text+" ", inner)
			}
		case blk.level == 2:
			style = st.h2
			lines = wrapText("## "+blk.text, inner)
		default:
			lines = wrapText(blk.text, inner)
		}
		// The document wraps its blocks again (x/ansi's word wrap), which
		// breaks a word longer than the line after one of , . ; - + |.
		for _, l := range wrapList(lines, inner) {
			if !st.plain {
				l = style.Render(l)
			}
			b.WriteString(pad(l) + "\n")
		}
	}
	b.WriteByte('\n')
	return b.String()
}
