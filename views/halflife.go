package views

import "github.com/odekmem/odekmem/memcore"

// halfLifeFor is the half-life that ages a in recall: its type's
// (decay_half_life_days_by_type, else decay_half_life_days), none when
// pinned. Without a store it is d.HalfLife.
func (d Deps) halfLifeFor(a memcore.Atom) float64 {
	if d.Store == nil {
		return d.HalfLife
	}
	return d.Store.Config().HalfLifeFor(a)
}
