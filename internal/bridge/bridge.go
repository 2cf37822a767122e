// Package bridge hands the engine under a public memcore.Store to the
// packages of this module that need more than memcore's agent surface
// (memcore/review), without adding that surface to memcore's API.
package bridge

import "github.com/odekmem/odekmem/internal/engine"

// Engine returns the engine of a *memcore.Store (nil for anything else).
// Package memcore sets it when it is initialised; since every importer of
// the public packages imports memcore, it is set before any of them runs.
var Engine func(store any) *engine.Store
