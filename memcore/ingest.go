package memcore

import (
	"context"
	"strings"

	"github.com/odekmem/odekmem/internal/scan"
	"github.com/odekmem/odekmem/internal/textutil"
)

// RecordUserMessages runs RecordUserMessage's per-turn pipeline over many
// messages from the person, in order, with one store write for the atoms
// of the whole batch and one for their links instead of one each per
// message (ingest of a long transcript). A message with inline commands
// ("odek, remember …") first commits what the batch holds so far, so the
// approval sees exactly what a message-by-message run would. The links of
// a batch are counted on its last message. Results are in turn order.
func (h *Hook) RecordUserMessages(ctx context.Context, turns []Turn) ([]RecordResult, error) {
	results := make([]RecordResult, len(turns))
	if h.isClosed() {
		return results, ErrClosed
	}
	var reqs []AddRequest
	var owner []int // index into turns of each request
	var laneReqs []LaneEntry
	var laneOwner []int
	flush := func() error {
		// The lane's candidates, one write for the batch: each turn's
		// entries (and those the scanner sent to the quarantine instead)
		// in its result.
		if len(laneReqs) > 0 {
			byTurn := map[int][]LaneEntry{}
			var order []int
			for k, r := range laneReqs {
				if byTurn[laneOwner[k]] == nil {
					order = append(order, laneOwner[k])
				}
				byTurn[laneOwner[k]] = append(byTurn[laneOwner[k]], r)
			}
			laneReqs, laneOwner = laneReqs[:0], laneOwner[:0]
			for _, ti := range order {
				added, blocked, err := h.store.addLane(ctx, byTurn[ti])
				results[ti].Lane = append(results[ti].Lane, added...)
				results[ti].Added = append(results[ti].Added, blocked...)
				if err != nil {
					results[ti].Warnings = append(results[ti].Warnings, "lane: "+err.Error())
				}
			}
		}
		if len(reqs) == 0 {
			return nil
		}
		res, errs, err := h.store.AddBatch(ctx, reqs)
		if err != nil {
			return err
		}
		var links []linkRequest
		var fresh []int // indexes into res of new live atoms
		last := owner[len(owner)-1]
		for i, r := range res {
			ti := owner[i]
			if errs[i] != nil {
				results[ti].Warnings = append(results[ti].Warnings, "store atom: "+errs[i].Error())
				continue
			}
			results[ti].Added = append(results[ti].Added, r)
			if !r.Quarantined && !r.Duplicate && !r.Refreshed {
				fresh = append(fresh, i)
				if h.store.cfg.AssociationsEnabled {
					links = append(links, h.store.associationLinks(ctx, r.Atom)...)
				}
			}
		}
		// A new trusted atom may supersede an older one (see supersede.go).
		for _, i := range fresh {
			cs, err := h.store.detectContradictions(ctx, res[i].Atom.ID, h.llm, h.llmCtx)
			if err != nil {
				results[owner[i]].Warnings = append(results[owner[i]].Warnings, "contradictions: "+err.Error())
			}
			results[owner[i]].Contradictions = append(results[owner[i]].Contradictions, cs...)
		}
		reqs, owner = reqs[:0], owner[:0]
		if len(links) == 0 {
			return nil
		}
		n, err := h.store.addLinks(ctx, links)
		if err != nil {
			results[last].Warnings = append(results[last].Warnings, "associations: "+err.Error())
		}
		results[last].Links += n
		return nil
	}
	for i, t := range turns {
		rr := &results[i]
		// Secrets are redacted from the whole message before anything else
		// sees it: the extractor (a memory LLM, or the heuristic splitter
		// that would cut a PEM block's key lines away from its BEGIN
		// header) and the recent-message window.
		msg, _ := scan.Redact(strings.TrimSpace(scan.StripUntrusted(t.Message)))
		at := t.Time
		if at.IsZero() {
			at = h.now()
		}
		st := h.session(t)
		h.mu.Lock()
		if t.TurnIndex > 0 {
			st.turn = t.TurnIndex
		} else {
			st.turn++
		}
		turn := st.turn
		if msg != "" {
			st.recent = append(st.recent, textutil.TruncateChars(scanRedact(msg), 500)) // redacted whole, then cut
			if len(st.recent) > 6 {
				st.recent = st.recent[len(st.recent)-6:]
			}
		}
		st.lastTime = at
		st.resumed = true
		h.mu.Unlock()
		if msg == "" {
			rr.SkippedTurn = true
			continue
		}
		cmds := parseApprovals(t.Message, h.cfg.agentName())
		if len(cmds) > 0 {
			// The approval window must see every earlier message's atoms.
			if err := flush(); err != nil {
				return results, err
			}
		}
		// Inline commands ("odek, remember …") answer the agent turn since
		// the person's previous message; this message starts the next
		// window.
		prevMark := h.moveApprovalMark(ctx, st, t.SessionID)
		if len(cmds) > 0 {
			rr.Approval = true
			promoted, added, warns := h.applyApprovals(ctx, t, prevMark, turn, at, cmds)
			rr.Promoted, rr.Added = promoted, append(rr.Added, added...)
			rr.Warnings = append(rr.Warnings, warns...)
			msg = withoutStatements(msg, cmds)
		}
		if h.cfg.AutoExtractPerTurn && msg != "" {
			// The person's own sentences are user_said; what is found in
			// text they pasted is quarantined (extract.go).
			ex := h.extractTurn(ctx, msg, AtomContext{SessionID: t.SessionID, Turn: turn, Project: t.Project}, at)
			rr.Extractor = ex.how
			rr.Warnings = append(rr.Warnings, ex.warn...)
			for _, r := range ex.add {
				reqs = append(reqs, r)
				owner = append(owner, i)
			}
			for _, r := range ex.lane {
				laneReqs = append(laneReqs, r)
				laneOwner = append(laneOwner, i)
			}
		}
		rr.Inference = h.maybeInfer(turn, t.Project)
	}
	return results, flush()
}

// MayApprove reports whether RecordUserMessages would treat message, a
// message of the person's, as holding an inline command ("odek, remember
// …"): the same parse, so a caller that batches a transcript can keep file
// order exactly where it matters (odekmem's ingest checks every message
// with it before batching the rest).
func (h *Hook) MayApprove(message string) bool {
	// Every command says "remember"; the untrusted wrapper is the only
	// text the parse removes before looking (which could join a word).
	if !strings.Contains(strings.ToLower(message), "remember") && !strings.Contains(strings.ToLower(message), "<untrusted_content_") {
		return false
	}
	return len(parseApprovals(message, h.cfg.agentName())) > 0
}
