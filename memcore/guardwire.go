package memcore

import (
	"context"
	"strings"

	"github.com/odekmem/odekmem/internal/guard"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/vocab"
)

// guardRejectReason is the quarantine reason of an entry the guard judged
// an injection. The guard's own words are not stored: they are model
// output and could echo the attacker's text.
const guardRejectReason = "scan_rejected: guard: the guard endpoint judged it an injection"

// guardRejects asks the configured guard (Options.Guard) about text the
// local scanner let through. It returns true only on a definite "injection"
// verdict: without a guard, or when the guard is down (a timeout, an HTTP
// error, an unreadable reply), the local scanner's decision stands and the
// outage is counted in Stats().Guard. Secrets are redacted before the text
// leaves the process.
func (s *Store) guardRejects(ctx context.Context, text string) bool {
	g := s.opts.Guard
	if g == nil || strings.TrimSpace(text) == "" {
		return false
	}
	red, _ := scan.Redact(text)
	v, err := g.Check(ctx, red)
	return err == nil && v.Block
}

// guardWriteReason is the guard's part of a write: text on a tainted or
// inferred path that the local scanner passed gets the guard's verdict.
func (s *Store) guardWriteReason(ctx context.Context, text string, src Source, res scan.Result) string {
	if s.opts.Guard == nil || res.Blocked() || !vocab.IsTainted(src) {
		return ""
	}
	if s.guardRejects(ctx, text) {
		return guardRejectReason
	}
	return ""
}

// guardStats is Stats().Guard: nil without a guard.
func (s *Store) guardStats() *guard.Stats {
	if s.opts.Guard == nil {
		return nil
	}
	st := s.opts.Guard.Stats()
	return &st
}
