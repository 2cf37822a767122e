package memcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/jsonl"
	"github.com/odekmem/odekmem/memcore/scan"
)

// Import trusts nothing a file says blindly. It is a person's restore, so
// atoms keep the source class the file claims, but:
//   - every text field of every record kind passes the scanner and the
//     secret redaction: atom text (as any write), the quarantine reason,
//     context session and project, link kinds, pending-review ids, fields,
//     values and evidence, user-model values;
//   - every id must be in the store's id alphabet (ValidID);
//   - user-model values pass the checks an inferred value passes before it
//     may reach a prompt (known field, scan-clean, one short line);
//   - timestamps in the future are clamped to now (a far-future
//     created_at would dodge decay and eviction, a quarantined_at the TTL);
//   - a line naming a key twice, in any letter case, is refused;
//   - ImportOptions.AsUntrusted quarantines every atom and queues every
//     user-model value as a pending review;
//   - the result counts the trusted records the file brought in.
// The input streams: lines are bounded (jsonl.MaxLine) and atoms are
// committed in batches, so memory stays constant whatever the file's size.

// ImportOptions configures ImportWith.
type ImportOptions struct {
	// AsUntrusted puts every atom in quarantine (trusted claims become
	// agent_generated, the claim kept in the reason) and queues user-model
	// values as pending reviews instead of applying them.
	AsUntrusted bool
	// Source names the input in pending-review evidence ("" = "import").
	Source string
	// Progress, when set, is called every few thousand lines and at the end.
	Progress func(ImportProgress)
}

// ImportProgress is how far an import has come.
type ImportProgress struct {
	Lines int   `json:"lines"`
	Bytes int64 `json:"bytes"`
	Done  bool  `json:"done"`
}

// ImportResult counts what Import did.
type ImportResult struct {
	Live        int `json:"live"`
	Quarantined int `json:"quarantined"`
	Skipped     int `json:"skipped_existing"`
	Links       int `json:"links"`
	Pending     int `json:"pending"`
	// Refreshed counts atoms that matched a live one and refreshed it.
	Refreshed int `json:"refreshed"`
	// Evicted counts atoms removed to stay under the size cap.
	Evicted int `json:"evicted"`
	// ModelValues counts user-model values applied from the file.
	ModelValues int `json:"model_values"`
	// Trusted counts the records the file brought in as trusted: live
	// atoms (user_said or user_approved), refreshed ones and applied
	// user-model values. It is 0 with AsUntrusted.
	Trusted int `json:"trusted"`
	// Lines is how many lines were read.
	Lines int `json:"lines"`
	// Errors lists the records that were refused (at most maxImportErrors;
	// ErrorCount has the total).
	Errors     []string `json:"errors,omitempty"`
	ErrorCount int      `json:"error_count,omitempty"`
}

const (
	importBatch      = 2048 // atoms per AddBatch
	linkBatch        = 8192 // links per AddLinks
	maxImportErrors  = 100
	maxContextField  = 512 // bytes of a session id or project
	maxRelatedIDs    = 64
	maxReasonBytes   = 200
	maxPendingValue  = 300
	maxEvidenceBytes = 500
	progressEvery    = 4096
)

// Import reads JSONL written by Export; see ImportWith.
func (s *Store) Import(ctx context.Context, r io.Reader) (ImportResult, error) {
	return s.ImportWith(ctx, r, ImportOptions{})
}

// importer is one running import.
type importer struct {
	s     *Store
	opts  ImportOptions
	res   ImportResult
	reqs  []AddRequest
	lines []int // line of each req
	links []linkRequest
	now   time.Time
	// fields caches checkText of short repeated fields (session ids,
	// projects): a transcript names the same few thousands of times.
	fields map[string][2]string
}

// checkField is checkText with a bounded cache.
func (im *importer) checkField(v string) (string, string) {
	if v == "" {
		return v, ""
	}
	if r, ok := im.fields[v]; ok {
		return r[0], r[1]
	}
	clean, why := checkText(v)
	if len(im.fields) >= 4096 || im.fields == nil {
		im.fields = map[string][2]string{}
	}
	im.fields[v] = [2]string{clean, why}
	return clean, why
}

func (im *importer) fail(line int, format string, a ...any) {
	im.res.ErrorCount++
	if len(im.res.Errors) < maxImportErrors {
		msg := fmt.Sprintf(format, a...)
		if line > 0 {
			msg = fmt.Sprintf("line %d: %s", line, msg)
		}
		im.res.Errors = append(im.res.Errors, scanRedact(msg))
	}
}

// ImportWith reads JSONL written by Export. Atoms whose id exists already
// are skipped. A bad line is reported with its number and skipped; nothing
// already stored is touched. See the comment at the top of import.go for
// what is checked.
func (s *Store) ImportWith(ctx context.Context, r io.Reader, opts ImportOptions) (ImportResult, error) {
	if s.isClosed() {
		return ImportResult{}, ErrClosed
	}
	im := &importer{s: s, opts: opts, now: s.now().UTC()}
	lr := jsonl.NewReader(r, jsonl.MaxLine)
	progress := func(done bool) {
		if opts.Progress != nil {
			opts.Progress(ImportProgress{Lines: lr.Line(), Bytes: lr.Bytes(), Done: done})
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return im.finish(lr), err
		}
		b, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, jsonl.ErrLineTooLong) {
				im.fail(0, "%v", err)
				continue
			}
			return im.finish(lr), fmt.Errorf("import: %w", err)
		}
		if lr.Line()%progressEvery == 0 {
			progress(false)
		}
		if len(b) == 0 {
			continue
		}
		if err := im.record(ctx, lr.Line(), b); err != nil {
			return im.finish(lr), err
		}
	}
	if err := im.flushAtoms(ctx); err != nil {
		return im.finish(lr), err
	}
	if err := im.flushLinks(ctx); err != nil {
		return im.finish(lr), err
	}
	res := im.finish(lr)
	progress(true)
	return res, nil
}

func (im *importer) finish(lr *jsonl.Reader) ImportResult {
	im.res.Lines = lr.Line()
	return im.res
}

func (im *importer) record(ctx context.Context, line int, b []byte) error {
	if err := jsonl.CheckKeys(b); err != nil {
		im.fail(line, "invalid record: %v", err)
		return nil
	}
	var rec ExportRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		im.fail(line, "invalid JSON: %v", err)
		return nil
	}
	switch rec.Kind {
	case "atom", "quarantine", "":
		req, ok := im.atomRequest(line, rec)
		if !ok {
			return nil
		}
		im.reqs = append(im.reqs, req)
		im.lines = append(im.lines, line)
		if len(im.reqs) >= importBatch {
			return im.flushAtoms(ctx)
		}
	case "link":
		if !ValidID(rec.A) || !ValidID(rec.B) {
			im.fail(line, "link with an id outside the store's id alphabet")
			return nil
		}
		switch rec.LinkKind {
		case "", LinkTemporal, LinkTask, LinkSemantic:
		default:
			im.fail(line, "unknown link kind %q: allowed %s, %s, %s", truncateRunes(rec.LinkKind, 40), LinkTemporal, LinkTask, LinkSemantic)
			return nil
		}
		im.links = append(im.links, linkRequest{A: rec.A, B: rec.B, Kind: rec.LinkKind})
		if len(im.links) >= linkBatch {
			// The atoms a link names come before it in an export.
			if err := im.flushAtoms(ctx); err != nil {
				return err
			}
			return im.flushLinks(ctx)
		}
	case "user_model":
		if rec.UserModel == nil {
			im.fail(line, "user_model record without a user_model")
			return nil
		}
		return im.userModel(ctx, line, rec.UserModel)
	default:
		im.fail(line, "unknown kind %q", truncateRunes(rec.Kind, 40))
	}
	return nil
}

func truncateRunes(s string, n int) string { return TruncateChars(s, n) }

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

func (im *importer) atomRequest(line int, rec ExportRecord) (AddRequest, bool) {
	if rec.Atom == nil || strings.TrimSpace(rec.Atom.Text) == "" {
		im.fail(line, "atom without text")
		return AddRequest{}, false
	}
	a := rec.Atom
	if a.ID != "" && !ValidID(a.ID) {
		im.fail(line, "invalid id %q: ids are lowercase letters, digits, '-' and '_' (see odekmem help ids)", truncateRunes(a.ID, 40))
		return AddRequest{}, false
	}
	if math.IsNaN(a.Confidence) || a.Confidence < 0 || a.Confidence > 1 {
		im.fail(line, "confidence %v is outside 0..1", a.Confidence)
		return AddRequest{}, false
	}
	req := AddRequest{ID: a.ID, Text: a.Text, Type: a.Type, Source: a.SourceClass, Confidence: a.Confidence, Pin: a.Pin, Context: a.Context, CreatedAt: a.CreatedAt, Origin: importedOrigin(a.Origin)}
	if req.Source == "" {
		req.Source = SourceAgentGenerated // unknown provenance is never trusted
	}
	if req.CreatedAt.After(im.now) {
		req.CreatedAt = im.now
	}
	var blocked []string
	// Context strings: bounded, scanned, redacted. A blocked one is dropped
	// and sends the atom to quarantine.
	for _, f := range []struct {
		name string
		v    *string
	}{{"context.session_id", &req.Context.SessionID}, {"context.project", &req.Context.Project}} {
		if len(*f.v) > maxContextField {
			im.fail(line, "%s is longer than %d bytes", f.name, maxContextField)
			return AddRequest{}, false
		}
		clean, why := im.checkField(*f.v)
		*f.v = clean
		if why != "" {
			*f.v = ""
			blocked = append(blocked, f.name)
		}
	}
	var rel []string
	for _, id := range req.Context.RelatedAtomIDs {
		if ValidID(id) && len(rel) < maxRelatedIDs {
			rel = append(rel, id)
		}
	}
	req.Context.RelatedAtomIDs = rel
	quarantine := rec.Kind == "quarantine" || rec.Kind == "" && (rec.QuarantinedAt != nil || rec.Reason != "")
	if quarantine {
		// The reason reaches reviewers and the agent's list_quarantine
		// tool. A text the scanner blocks gets the scanner's own reason
		// (which may quote an injection rule's description, so it is not
		// rescanned); any other reason is scanned like every field.
		var reason string
		if r := scan.Scan(strings.TrimSpace(req.Text)); r.Blocked() {
			reason = r.RejectReason()
		} else {
			clean, why := checkText(rec.Reason)
			reason = strings.Join(strings.Fields(clean), " ")
			if why != "" {
				reason = "scan_rejected: the imported reason was blocked by the scanner"
			}
		}
		req.QuarantineReason = Truncate(reason, maxReasonBytes)
		if rec.QuarantinedAt != nil {
			req.QuarantinedAt = *rec.QuarantinedAt
			if req.QuarantinedAt.After(im.now) {
				req.QuarantinedAt = im.now
			}
		}
		if req.QuarantineReason == "" {
			req.QuarantineReason = "tainted"
		}
	}
	if len(blocked) > 0 {
		req.QuarantineReason = Truncate("scan_rejected: the scanner blocked the imported "+strings.Join(blocked, " and ")+" (dropped)", maxReasonBytes)
	}
	if im.opts.AsUntrusted {
		req.Pin = false
		claim := req.Source
		if !IsTainted(req.Source) {
			req.Source = SourceAgentGenerated
		}
		if req.QuarantineReason == "" || req.QuarantineReason == "tainted" {
			req.QuarantineReason = "imported as untrusted; the file claimed " + claim
		}
	}
	return req, true
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

func (im *importer) flushAtoms(ctx context.Context) error {
	if len(im.reqs) == 0 {
		return nil
	}
	results, errs, err := im.s.AddBatch(ctx, im.reqs)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	for i, r := range results {
		im.res.Evicted += len(r.Evicted)
		switch {
		case errs[i] != nil:
			im.fail(im.lines[i], "atom %s: %v", im.reqs[i].ID, errs[i])
		case r.Duplicate:
			im.res.Skipped++
		case r.Quarantined:
			im.res.Quarantined++
		case r.Refreshed:
			im.res.Refreshed++
			im.res.Trusted++
		default:
			im.res.Live++
			im.res.Trusted++
		}
	}
	im.reqs, im.lines = im.reqs[:0], im.lines[:0]
	return nil
}

func (im *importer) flushLinks(ctx context.Context) error {
	if len(im.links) == 0 {
		return nil
	}
	n, err := im.s.addLinks(ctx, im.links)
	if err != nil {
		return fmt.Errorf("import: links: %w", err)
	}
	im.res.Links += n
	im.links = im.links[:0]
	return nil
}

// ModelValueCheck is CheckUserModelValue: the one check a user-model value
// passes before it may be applied (and so reach a prompt).
func ModelValueCheck(field, value string) (string, error) { return CheckUserModelValue(field, value) }

func (im *importer) userModel(ctx context.Context, line int, model *UserModel) error {
	source := im.opts.Source
	if source == "" {
		source = "import"
	}
	type kv struct{ field, value string }
	var apply []kv
	var queue []PendingReview
	for _, pair := range model.Values() {
		v, err := ModelValueCheck(pair[0], pair[1])
		if err != nil {
			im.fail(line, "user model %v", err)
			continue
		}
		if v == "" {
			continue
		}
		if im.opts.AsUntrusted {
			queue = append(queue, PendingReview{Field: pair[0], Value: v, Evidence: "imported from " + source + " as untrusted", Confidence: 0.5, CreatedAt: im.now})
			continue
		}
		apply = append(apply, kv{pair[0], v})
	}
	for _, p := range model.Pending {
		if !ValidID(p.ID) {
			im.fail(line, "pending review with invalid id %q", truncateRunes(p.ID, 40))
			continue
		}
		if CanonicalField(p.Field) == "" {
			im.fail(line, "pending review %s: %v %q", p.ID, ErrUnknownField, truncateRunes(p.Field, 60))
			continue
		}
		val, why := checkText(strings.Join(strings.Fields(p.Value), " "))
		ev, why2 := checkText(p.Evidence)
		if why != "" || why2 != "" {
			im.fail(line, "pending review %s: blocked by the scanner: %s", p.ID, why+why2)
			continue
		}
		if _, err := CheckUserModelValue(p.Field, val); err != nil {
			im.fail(line, "pending review %s: %v", p.ID, err)
			continue
		}
		if len(val) > maxPendingValue || val == "" {
			im.fail(line, "pending review %s: value empty or longer than %d bytes", p.ID, maxPendingValue)
			continue
		}
		if math.IsNaN(p.Confidence) || p.Confidence < 0 || p.Confidence > 1 {
			p.Confidence = 0.5
		}
		p.Value, p.Evidence = val, Truncate(ev, maxEvidenceBytes)
		if p.CreatedAt.IsZero() || p.CreatedAt.After(im.now) {
			p.CreatedAt = im.now
		}
		queue = append(queue, p)
	}
	return im.s.withWrite(func() error {
		m := im.s.model.clone()
		changed := false
		for _, x := range apply {
			// A restore fills what is unset and extends lists; it does not
			// overwrite a value the person confirmed here.
			if cur, _ := m.Get(x.field); cur != "" && !isListField(x.field) {
				continue
			}
			if err := m.Apply(x.field, x.value); err == nil {
				im.res.ModelValues++
				im.res.Trusted++
				changed = true
			}
		}
		have := map[string]bool{}
		for _, p := range m.Pending {
			have[p.ID] = true
			have["v\x00"+CanonicalField(p.Field)+"\x00"+strings.ToLower(p.Value)] = true
		}
		for _, p := range queue {
			key := "v\x00" + CanonicalField(p.Field) + "\x00" + strings.ToLower(p.Value)
			if p.ID == "" {
				p.ID = NewID()
			}
			if have[p.ID] || have[key] {
				continue
			}
			have[p.ID], have[key] = true, true
			m.Pending = append(m.Pending, p)
			im.res.Pending++
			changed = true
		}
		if m.Version == "" {
			m.Version = model.Version
			changed = true
		}
		if !changed {
			return nil
		}
		sortPending(m.Pending)
		if max := im.s.cfg.UserStateMaxPending; max >= 0 && len(m.Pending) > max {
			m.Pending = m.Pending[len(m.Pending)-max:]
		}
		return im.s.saveModelLocked(m)
	})
}

func isListField(field string) bool {
	c := CanonicalField(field)
	return strings.HasPrefix(c, "technical.") || c == "interaction.common_openers"
}
