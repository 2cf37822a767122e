package memcore

import (
	"context"
	"math"
	"strings"

	"github.com/odekmem/odekmem/internal/textutil"
	"github.com/odekmem/odekmem/internal/umfield"
	"github.com/odekmem/odekmem/internal/vocab"
)

// The user_model record of an import: checked by a pipeline worker
// (modelPlan), applied in file order by the committer (applyModel).

// modelPlan is a checked user_model record: the values to apply and the
// pending reviews to queue.
type modelPlan struct {
	apply   [][2]string // field, value
	queue   []PendingReview
	version string
}

func (p *recordParser) modelPlan(it *importItem, model *UserModel) *modelPlan {
	source := p.opts.Source
	if source == "" {
		source = "import"
	}
	plan := &modelPlan{version: model.Version}
	for _, pair := range model.Values() {
		v, err := checkUserModelValue(pair[0], pair[1])
		if err != nil {
			it.fail("user model %v", err)
			continue
		}
		if v == "" {
			continue
		}
		if p.opts.AsUntrusted {
			plan.queue = append(plan.queue, PendingReview{Field: pair[0], Value: v, Evidence: "imported from " + source + " as untrusted", Confidence: 0.5, CreatedAt: p.now})
			continue
		}
		plan.apply = append(plan.apply, [2]string{pair[0], v})
	}
	for _, pr := range model.Pending {
		if !vocab.ValidID(pr.ID) {
			it.fail("pending review with invalid id %q", truncateRunes(pr.ID, 40))
			continue
		}
		if umfield.Canonical(pr.Field) == "" {
			it.fail("pending review %s: %v %q", pr.ID, errUnknownField, truncateRunes(pr.Field, 60))
			continue
		}
		val, why := checkText(strings.Join(strings.Fields(pr.Value), " "))
		ev, why2 := checkText(pr.Evidence)
		if why != "" || why2 != "" {
			it.fail("pending review %s: blocked by the scanner: %s", pr.ID, why+why2)
			continue
		}
		if _, err := checkUserModelValue(pr.Field, val); err != nil {
			it.fail("pending review %s: %v", pr.ID, err)
			continue
		}
		if len(val) > maxPendingValue || val == "" {
			it.fail("pending review %s: value empty or longer than %d bytes", pr.ID, maxPendingValue)
			continue
		}
		if math.IsNaN(pr.Confidence) || pr.Confidence < 0 || pr.Confidence > 1 {
			pr.Confidence = 0.5
		}
		pr.Value, pr.Evidence = val, textutil.Truncate(ev, maxEvidenceBytes)
		if pr.CreatedAt.IsZero() || pr.CreatedAt.After(p.now) {
			pr.CreatedAt = p.now
		}
		plan.queue = append(plan.queue, pr)
	}
	return plan
}

// applyModel writes a checked user_model record to the store.
func (im *importer) applyModel(ctx context.Context, plan *modelPlan) error {
	return im.s.update(ctx, func(t *tx) error {
		m := im.s.model.clone()
		changed := false
		for _, x := range plan.apply {
			// A restore fills what is unset and extends lists; it does not
			// overwrite a value the person confirmed here.
			if cur, _ := m.Get(x[0]); cur != "" && !umfield.IsList(x[0]) {
				continue
			}
			if err := m.apply(x[0], x[1]); err == nil {
				im.res.ModelValues++
				im.res.Trusted++
				changed = true
			}
		}
		have := map[string]bool{}
		for _, p := range m.Pending {
			have[p.ID] = true
			have["v\x00"+umfield.Canonical(p.Field)+"\x00"+strings.ToLower(p.Value)] = true
		}
		for _, p := range plan.queue {
			key := "v\x00" + umfield.Canonical(p.Field) + "\x00" + strings.ToLower(p.Value)
			if p.ID == "" {
				p.ID = vocab.NewID()
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
			m.Version = plan.version
			changed = true
		}
		if !changed {
			return nil
		}
		sortPending(m.Pending)
		if max := im.s.cfg.UserStateMaxPending; max >= 0 && len(m.Pending) > max {
			m.Pending = m.Pending[len(m.Pending)-max:]
		}
		im.s.setModelLocked(t, m)
		return nil
	})
}
