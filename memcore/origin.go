package memcore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/vocab"
)

// Origin records where a promoted atom came from: the source class and
// quarantine reason it had, what the scanner found in it, and what promote
// changed. It is stored on the atom's atoms.json record as "origin" (odek
// ignores the key) and shown by `odekmem show`, the TUI detail and export.
// It is provenance for the person, never text for a prompt.
type Origin struct {
	// SourceClass is the class the entry had in quarantine.
	SourceClass Source `json:"source_class"`
	// Reason is its quarantine reason ("tainted", "scan_rejected: …").
	Reason        string    `json:"reason,omitempty"`
	QuarantinedAt time.Time `json:"quarantined_at"`
	PromotedAt    time.Time `json:"promoted_at"`
	// Findings are the scanner's findings on the quarantined text.
	Findings []OriginFinding `json:"findings,omitempty"`
	// HiddenRemoved is true when promote removed characters a person
	// cannot see; Redacted when it redacted secrets the quarantined text
	// still held (an entry another writer put there unredacted).
	HiddenRemoved bool `json:"hidden_removed,omitempty"`
	Redacted      bool `json:"redacted,omitempty"`
	// StillBlocked is true when the promoted text still fails the scan: a
	// person promoted it after seeing the findings. Recall never injects
	// such an atom (its final scan drops it).
	StillBlocked bool `json:"still_blocked,omitempty"`
	// Evidence is the message a kept lane entry came from (secrets
	// redacted, bounded): what the person read before keeping it.
	Evidence string `json:"evidence,omitempty"`
}

// OriginFinding is one scanner finding, without offsets or matched text.
type OriginFinding struct {
	Kind     string `json:"kind"`
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Reason   string `json:"reason,omitempty"`
}

// maxOriginFindings bounds the findings kept on an atom record.
const maxOriginFindings = 8

func originFindings(fs []scan.Finding) []OriginFinding {
	var out []OriginFinding
	for _, f := range fs {
		if len(out) == maxOriginFindings {
			break
		}
		out = append(out, OriginFinding{Kind: string(f.Kind), Rule: f.Rule, Severity: f.Severity.String(), Reason: f.Reason})
	}
	return out
}

// cleanOrigin makes an origin fit to store: a known source class, bounded
// strings with secrets redacted. An origin from an import file is a claim
// like any other field; it is shown, never trusted.
func cleanOrigin(o *Origin) *Origin {
	if o == nil {
		return nil
	}
	c := *o
	if !vocab.ValidSource(c.SourceClass) {
		c.SourceClass = SourceAgentGenerated
	}
	short := func(s string, n int) string { return textutil.Truncate(strings.TrimSpace(scanRedact(s)), n) }
	c.Reason = short(c.Reason, 200)
	c.Evidence = textutil.TruncateChars(strings.TrimSpace(scanRedact(c.Evidence)), maxLaneMessageChars)
	c.Findings = nil
	for _, f := range o.Findings {
		if len(c.Findings) == maxOriginFindings {
			break
		}
		c.Findings = append(c.Findings, OriginFinding{Kind: short(f.Kind, 40), Rule: short(f.Rule, 80), Severity: short(f.Severity, 10), Reason: short(f.Reason, 200)})
	}
	c.QuarantinedAt, c.PromotedAt = c.QuarantinedAt.UTC(), c.PromotedAt.UTC()
	return &c
}

// cloneOrigin copies o so callers cannot alias the store's state.
func cloneOrigin(o *Origin) *Origin {
	if o == nil {
		return nil
	}
	c := *o
	c.Findings = append([]OriginFinding(nil), o.Findings...)
	return &c
}

// promotedAtom builds the live atom a promote of q writes: the text with
// hidden characters removed and secrets redacted again, re-scanned, as
// user_approved, with q's provenance kept in Origin. With allowBlocked
// false a text that still fails the scan is refused (ErrBlocked): only a
// person who has seen the findings may promote it.
func (s *Store) promotedAtom(q *QuarantinedAtom, allowBlocked bool) (Atom, error) {
	a := cloneAtom(q.Atom)
	before := strings.TrimSpace(q.Text)
	text := strings.TrimSpace(stripHidden(q.Text))
	if text == "" {
		return Atom{}, fmt.Errorf("promote %s: %w after removing hidden characters", q.ID, errEmptyText)
	}
	res := scan.Scan(text)
	redacted := res.Redacted != text
	text = strings.TrimSpace(textutil.Truncate(res.Redacted, s.cfg.AtomMaxChars))
	after := scan.Scan(text)
	if after.Blocked() && !allowBlocked {
		return Atom{}, fmt.Errorf("promote %s: %w: %s", q.ID, ErrBlocked, after.RejectReason())
	}
	a.Text = text
	a.SourceClass = SourceUserApproved
	a.Origin = &Origin{
		SourceClass:   q.SourceClass,
		Reason:        textutil.Truncate(scanRedact(q.Reason), 200),
		QuarantinedAt: q.QuarantinedAt.UTC(),
		PromotedAt:    s.now().UTC(),
		Findings:      originFindings(scan.Scan(q.Text).Findings),
		HiddenRemoved: stripHidden(before) != before,
		Redacted:      redacted,
		StillBlocked:  after.Blocked(),
	}
	if q.Atom.Origin != nil && q.Atom.Origin.SourceClass != "" {
		// Promoted before, then put back in quarantine: the first origin
		// is the one that says where the text came from.
		a.Origin.SourceClass = q.Atom.Origin.SourceClass
	}
	return a, nil
}

// promote moves a quarantined atom to the live store (see Promote) and
// returns the entry as it was.
func (s *Store) promote(ctx context.Context, id string, allowBlocked bool) (Atom, promoted, error) {
	_, q, err := s.Get(ctx, id)
	if err != nil {
		return Atom{}, promoted{}, err
	}
	if q == nil {
		return Atom{}, promoted{}, fmt.Errorf("%w: %s", errNotQuarantined, id)
	}
	a, err := s.promotedAtom(q, allowBlocked)
	if err != nil {
		return Atom{}, promoted{}, err
	}
	// A flagged entry gets the guard's second opinion (when configured).
	if strings.HasPrefix(q.Reason, "scan_rejected") && s.guardRejects(ctx, a.Text) {
		return Atom{}, promoted{}, fmt.Errorf("promote %s: %w; it stays in quarantine", id, errGuardRejected)
	}
	if err := s.vec.WaitReady(ctx); err != nil {
		return Atom{}, promoted{}, err
	}
	vec, err := s.vec.Embed(ctx, a.Text)
	if err != nil {
		return Atom{}, promoted{}, fmt.Errorf("embed atom: %w", err)
	}
	var before promoted
	err = s.update(ctx, func(t *tx) error {
		var err error
		before, err = s.commitPromoteLocked(t, id, a, vec)
		return err
	})
	return a, before, err
}
