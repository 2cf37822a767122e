package memcore

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/jsonl"
	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/vocab"
)

// The decoding and checking half of import (see import.go): it turns one
// line into an importItem without touching the store, so the pipeline's
// workers run it in parallel. The atom text itself is scanned and
// redacted by the store's write path (AddBatch), like every write.

const (
	maxContextField  = 512 // bytes of a session id or project
	maxRelatedIDs    = 64
	maxReasonBytes   = 200
	maxPendingValue  = 300
	maxEvidenceBytes = 500
	fieldCacheSize   = 4096
)

const (
	itemNone = iota
	itemAtom
	itemLink
	itemModel
)

// importItem is one decoded line: what to commit and the errors to report,
// in order.
type importItem struct {
	line  int
	kind  int
	req   AddRequest
	link  linkRequest
	model *modelPlan
	errs  []string
}

func (it *importItem) fail(format string, a ...any) {
	it.errs = append(it.errs, fmt.Sprintf(format, a...))
}

// recordParser is one worker's decoder; each has its own cache.
type recordParser struct {
	opts ImportOptions
	now  time.Time
	// fields caches checkText of short repeated fields (session ids,
	// projects): a transcript names the same few thousands of times.
	fields map[string][2]string
}

// checkField is checkText with a bounded cache.
func (p *recordParser) checkField(v string) (string, string) {
	if v == "" {
		return v, ""
	}
	if r, ok := p.fields[v]; ok {
		return r[0], r[1]
	}
	clean, why := checkText(v)
	if len(p.fields) >= fieldCacheSize || p.fields == nil {
		p.fields = map[string][2]string{}
	}
	p.fields[v] = [2]string{clean, why}
	return clean, why
}

func (p *recordParser) parse(line int, b []byte) importItem {
	it := importItem{line: line}
	if err := jsonl.CheckKeys(b); err != nil {
		it.fail("invalid record: %v", err)
		return it
	}
	var rec exportRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		it.fail("invalid JSON: %v", err)
		return it
	}
	switch rec.Kind {
	case "atom", "quarantine", "":
		if req, ok := p.atomRequest(&it, rec); ok {
			it.kind, it.req = itemAtom, req
		}
	case "link":
		if !vocab.ValidID(rec.A) || !vocab.ValidID(rec.B) {
			it.fail("link with an id outside the store's id alphabet")
			return it
		}
		switch rec.LinkKind {
		case "", linkTemporal, linkTask, linkSemantic:
		default:
			it.fail("unknown link kind %q: allowed %s, %s, %s", truncateRunes(rec.LinkKind, 40), linkTemporal, linkTask, linkSemantic)
			return it
		}
		it.kind, it.link = itemLink, linkRequest{A: rec.A, B: rec.B, Kind: rec.LinkKind}
	case "user_model":
		if rec.UserModel == nil {
			it.fail("user_model record without a user_model")
			return it
		}
		it.kind, it.model = itemModel, p.modelPlan(&it, (*UserModel)(rec.UserModel))
	default:
		it.fail("unknown kind %q", truncateRunes(rec.Kind, 40))
	}
	return it
}

func truncateRunes(s string, n int) string { return textutil.TruncateChars(s, n) }

// checkText redacts a text field and reports why the scanner blocks it
// ("" when it does not).
func checkText(v string) (string, string) {
	if v == "" {
		return v, ""
	}
	r := scan.Scan(v)
	out := v
	if r.Redacted != v {
		out = r.Redacted
	}
	if r.Blocked() {
		// A credential alone is handled by the redaction: only what still
		// blocks after it refuses the field.
		if out != v {
			if r2 := scan.Scan(out); !r2.Blocked() {
				return out, ""
			}
		}
		return out, r.RejectReason()
	}
	return out, ""
}

func (p *recordParser) atomRequest(it *importItem, rec exportRecord) (AddRequest, bool) {
	if rec.Atom == nil || strings.TrimSpace(rec.Atom.Text) == "" {
		it.fail("atom without text")
		return AddRequest{}, false
	}
	a := rec.Atom
	if a.ID != "" && !vocab.ValidID(a.ID) {
		it.fail("invalid id %q: ids are lowercase letters, digits, '-' and '_' (see odekmem help ids)", truncateRunes(a.ID, 40))
		return AddRequest{}, false
	}
	if math.IsNaN(a.Confidence) || a.Confidence < 0 || a.Confidence > 1 {
		it.fail("confidence %v is outside 0..1", a.Confidence)
		return AddRequest{}, false
	}
	// A restore keeps the file's atoms as they were: only the same id or
	// the same normalised text counts as already present (exactDedup).
	req := AddRequest{id: a.ID, Text: a.Text, Type: a.Type, Source: a.SourceClass, Confidence: a.Confidence, Pin: a.Pin, Context: a.Context, CreatedAt: a.CreatedAt, origin: importedOrigin(a.Origin),
		quote: importedQuote(a.Quote), exactDedup: true}
	if req.Source == "" {
		req.Source = SourceAgentGenerated // unknown provenance is never trusted
	}
	if req.CreatedAt.After(p.now) {
		req.CreatedAt = p.now
	}
	var blocked []string
	// Context strings: bounded, scanned, redacted. A blocked one is dropped
	// and sends the atom to quarantine.
	for _, f := range []struct {
		name string
		v    *string
	}{{"context.session_id", &req.Context.SessionID}, {"context.project", &req.Context.Project}} {
		if len(*f.v) > maxContextField {
			it.fail("%s is longer than %d bytes", f.name, maxContextField)
			return AddRequest{}, false
		}
		clean, why := p.checkField(*f.v)
		*f.v = clean
		if why != "" {
			*f.v = ""
			blocked = append(blocked, f.name)
		}
	}
	var rel []string
	for _, id := range req.Context.RelatedAtomIDs {
		if vocab.ValidID(id) && len(rel) < maxRelatedIDs {
			rel = append(rel, id)
		}
	}
	req.Context.RelatedAtomIDs = rel
	quarantine := rec.Kind == "quarantine" || rec.Kind == "" && (rec.QuarantinedAt != nil || rec.Reason != "")
	if quarantine {
		// The reason reaches reviewers and the agent's list_quarantine
		// tool, so it is scanned like every field. A text the scanner
		// blocks gets the scanner's own reason from the write path, which
		// overrides any reason but an import's "scan_rejected" history: so
		// only a reason claiming that history needs the text scanned here,
		// to replace the claim with the scanner's findings.
		clean, why := checkText(rec.Reason)
		reason := strings.Join(strings.Fields(clean), " ")
		if why != "" {
			reason = "scan_rejected: the imported reason was blocked by the scanner"
		}
		if strings.HasPrefix(reason, "scan_rejected") {
			if r := scan.Scan(strings.TrimSpace(req.Text)); r.Blocked() {
				reason = r.RejectReason()
			}
		}
		req.quarantineReason = textutil.Truncate(reason, maxReasonBytes)
		if rec.QuarantinedAt != nil {
			req.quarantinedAt = *rec.QuarantinedAt
			if req.quarantinedAt.After(p.now) {
				req.quarantinedAt = p.now
			}
		}
		if req.quarantineReason == "" {
			req.quarantineReason = "tainted"
		}
	}
	if len(blocked) > 0 {
		req.quarantineReason = textutil.Truncate("scan_rejected: the scanner blocked the imported "+strings.Join(blocked, " and ")+" (dropped)", maxReasonBytes)
	}
	if p.opts.AsUntrusted {
		req.Pin = false
		claim := req.Source
		if !vocab.IsTainted(req.Source) {
			req.Source = SourceAgentGenerated
		}
		if req.quarantineReason == "" || req.quarantineReason == "tainted" {
			req.quarantineReason = "imported as untrusted; the file claimed " + string(claim)
		}
	}
	return req, true
}

// importedQuote scans an atom's quote like its text; a blocked quote is
// dropped (the atom keeps its text).
func importedQuote(q string) string {
	if clean, why := checkText(q); why == "" {
		return clean
	}
	return ""
}

// importedOrigin scans an origin record's texts like every other field
// (the store bounds and redacts them too): a blocked reason is replaced, a
// blocked finding description dropped.
func importedOrigin(o *Origin) *Origin {
	if o == nil {
		return nil
	}
	c := *o
	if clean, why := checkText(c.Reason); why != "" {
		c.Reason = "the imported reason was blocked by the scanner"
	} else {
		c.Reason = clean
	}
	if clean, why := checkText(c.Evidence); why != "" {
		c.Evidence = ""
	} else {
		c.Evidence = clean
	}
	c.Findings = nil
	for _, f := range o.Findings {
		for _, p := range []*string{&f.Kind, &f.Rule, &f.Severity, &f.Reason} {
			if clean, why := checkText(*p); why != "" {
				*p = ""
			} else {
				*p = clean
			}
		}
		c.Findings = append(c.Findings, f)
	}
	return &c
}
