// Package score holds the arithmetic of the design's ranking that the
// odekmem front ends show beside memcore's results: the decay factor, the
// trust factor and the two-decimal rounding every prompt uses.
package score

import (
	"math"
	"time"

	"github.com/odekmem/odekmem/internal/vocab"
)

// Decay is 0.5^(age_days/half_life_days). A non-positive half-life disables
// decay (factor 1).
func Decay(ageDays, halfLifeDays float64) float64 {
	if halfLifeDays <= 0 {
		return 1
	}
	return math.Pow(0.5, ageDays/halfLifeDays)
}

// Trust is 1 for the trusted source classes and 0 for every other class.
func Trust[S ~string](source S) float64 {
	if vocab.IsTainted(source) {
		return 0
	}
	return 1
}

// Round rounds a score to two decimals, the precision every prompt and
// tool output uses; NaN and infinities become 0.
func Round(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*100) / 100
}

// Confidence is a stored confidence as scoring uses it: a missing or
// non-positive value means 1.0, and values above 1 are clamped.
func Confidence(c float64) float64 {
	if c <= 0 || math.IsNaN(c) || c > 1 {
		return 1
	}
	return c
}

// AgeDays is the age in days at now of something created at created; never
// negative.
func AgeDays(created, now time.Time) float64 {
	d := now.Sub(created).Hours() / 24
	if d < 0 {
		return 0
	}
	return d
}

// Retention is confidence × decay × trust boost: the score that ranks atoms
// for recall and picks the next eviction victim.
func Retention[S ~string](confidence float64, created, now time.Time, halfLifeDays float64, source S) float64 {
	return Confidence(confidence) * Decay(AgeDays(created, now), halfLifeDays) * Trust(source)
}
