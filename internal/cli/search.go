package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/odekmem/odekmem/internal/demo"
	"github.com/odekmem/odekmem/internal/jsonl"
	"github.com/odekmem/odekmem/internal/procstart"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/memcore"
)

func cmdSearch(c *ctx) error {
	query, err := textArg(c, "search", "search <query>")
	if err != nil {
		return err
	}
	opts := memcore.SearchOptions{Type: memcore.Type(c.p.flags["type"]), Source: memcore.Source(c.p.flags["source"]), Project: c.p.flags["project"]}
	k, err := c.intFlag("k", 0, 1)
	if err != nil {
		return err
	}
	opts.K = k
	res, err := c.store.Search(c, query, opts)
	if err != nil {
		return err
	}
	if c.json {
		if res == nil {
			res = []memcore.Scored{}
		}
		return c.emitJSON(res)
	}
	tw := tabwriter.NewWriter(c.env.Stdout, 0, 0, 2, ' ', 0)
	if c.p.bools["explain"] {
		// composite = 0.6·SIM + 0.4·RETENTION; SIM fuses the calibrated
		// cosine (VEC) and the BM25 share (BM25); RETENTION = CONF × DECAY
		// (0.5^(AGE/HALF-LIFE)) × TRUST.
		fmt.Fprintln(tw, "ID\tCOMPOSITE\tSIM\tVEC\tCOSINE\tBM25\tLEXRANK\tRETENTION\tCONF\tAGE\tHALF-LIFE\tDECAY\tTRUST\tTYPE\tMATCHED\tTEXT")
		for _, s := range res {
			lr := "-"
			if s.LexRank > 0 {
				lr = strconv.Itoa(s.LexRank)
			}
			hl := "none"
			if s.HalfLife > 0 {
				hl = fmt.Sprintf("%gd", s.HalfLife)
			}
			matched := "-"
			if len(s.Matched) > 0 {
				matched = strings.Join(s.Matched, ",")
			}
			fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%.3f\t%.2f\t%.1fd\t%s\t%.3f\t%.0f\t%s\t%s\t%s\n", s.Atom.ID, s.Composite, s.Sim, s.VecSim, s.Cosine, s.Lexical, lr, s.Retention, s.Confidence, s.AgeDays, hl, s.Decay, s.Trust, s.Atom.Type, clip(matched, 30), clip(s.Atom.Text, 50))
		}
	} else {
		fmt.Fprintln(tw, "ID\tSCORE\tTYPE\tTEXT")
		for _, s := range res {
			fmt.Fprintf(tw, "%s\t%.3f\t%s\t%s\n", s.Atom.ID, s.Composite, s.Atom.Type, clip(s.Atom.Text, 80))
		}
	}
	tw.Flush()
	if len(res) == 0 {
		fmt.Fprintln(c.env.Stderr, "(no atoms above the min score)")
	}
	return nil
}

// ScanLine is scan's --json output: one object per input line.
type ScanLine struct {
	Line     int            `json:"line"`
	Blocked  bool           `json:"blocked"`
	Reason   string         `json:"reason,omitempty"`
	Redacted string         `json:"redacted,omitempty"`
	Findings []scan.Finding `json:"findings"`
}

func cmdScan(c *ctx) error {
	if len(c.p.pos) > 0 && !(len(c.p.pos) == 1 && c.p.pos[0] == "-") {
		text := strings.Join(c.p.pos, " ")
		if len(text) > jsonl.MaxLine {
			return fmt.Errorf("scan: the text is %d bytes; at most %d are scanned", len(text), jsonl.MaxLine)
		}
		r := scan.Scan(text)
		if err := scanReport(c, 1, text, r, false); err != nil {
			return err
		}
		if r.Blocked() {
			return blockedError{"the scanner blocks this text: " + r.RejectReason()}
		}
		return nil
	}
	// stdin: one input per line, streamed (constant memory).
	lr := jsonl.NewReader(c.env.Stdin, jsonl.MaxLine)
	blocked, n := 0, 0
	for {
		b, err := lr.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, jsonl.ErrLineTooLong) {
			c.warn("scan: %v", err)
			continue
		}
		if err != nil {
			return fmt.Errorf("scan: read stdin: %w", err)
		}
		n++
		r := scan.Scan(string(b))
		if r.Blocked() {
			blocked++
		}
		if err := scanReport(c, lr.Line(), string(b), r, true); err != nil {
			return err
		}
	}
	if blocked > 0 {
		return blockedError{fmt.Sprintf("%d of %d lines blocked", blocked, n)}
	}
	if !c.json && n > 1 {
		fmt.Fprintf(c.env.Stderr, "%d of %d lines blocked\n", blocked, n)
	}
	return nil
}

func scanReport(c *ctx, line int, in string, r scan.Result, many bool) error {
	if c.json {
		l := ScanLine{Line: line, Blocked: r.Blocked(), Reason: r.RejectReason(), Findings: r.Findings}
		if l.Findings == nil {
			l.Findings = []scan.Finding{}
		}
		if r.Redacted != in {
			l.Redacted = r.Redacted
		}
		return jsonLine(c).Encode(l)
	}
	prefix := ""
	if many {
		prefix = fmt.Sprintf("line %d: ", line)
	}
	if len(r.Findings) == 0 {
		c.out("%sclean\n", prefix)
		return nil
	}
	for _, f := range r.Findings {
		c.out("%s%s %s/%s: %s  %q\n", prefix, f.Severity, f.Kind, f.Rule, f.Reason, f.Match)
		if f.Hidden != "" {
			c.out("%s  hidden text: %q\n", prefix, f.Hidden)
		}
	}
	if r.Redacted != in {
		c.out("%sredacted: %s\n", prefix, scan.Visible(r.Redacted))
	}
	return nil
}

func cmdDemo(c *ctx) error {
	if c.env.Demo == nil {
		return fmt.Errorf("this build has no bundled demo store")
	}
	tmp, err := os.MkdirTemp("", "odekmem-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	keep := c.p.bools["print"] || c.env.RunTUI == nil
	if !keep {
		// The TUI's copy is the session's scratch store: it goes when the
		// person quits, and they are told where it was.
		defer func() {
			if err := os.RemoveAll(tmp); err != nil {
				c.warn("demo: could not remove %s: %v", tmp, err)
				return
			}
			c.out("odekmem demo: removed the demo store copy at %s (odekmem demo --print keeps one)\n", tmp)
		}()
	}
	dir := filepath.Join(tmp, "memory", "extended")
	if err := copyFS(dir, c.env.Demo); err != nil {
		return fmt.Errorf("demo: copy store: %w", err)
	}
	// One clock: the copy is re-dated to now, so the TUI, the CLI and the
	// hook (all on the real clock) agree on ages and quarantine expiry.
	if err := demo.Redate(dir, demo.Epoch, time.Now()); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	st, err := openStore(c, dir)
	if err != nil {
		return err
	}
	defer st.Close(context.Background())
	c.store = st
	c.settings.Home = tmp
	if keep {
		c.out("demo store copied to %s\n", dir)
		c.out("try: odekmem --home %s list\n", shellQuote(tmp))
		c.out("it stays until you remove it: rm -rf %s\n\n", shellQuote(tmp))
		return cmdStats(c)
	}
	procstart.RestoreGC() // a long-lived process (procstart.DeferGC)
	return c.env.RunTUI(c, st, c.settings, "demo")
}

// copyFS copies a directory tree with store permissions (0700/0600).
func copyFS(dst string, src fs.FS) error {
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o600)
	})
}
