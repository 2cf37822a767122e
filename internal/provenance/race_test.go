//go:build race

package provenance

// raceEnabled is true under the race detector: long corpus tests take
// a sample there (the full run is the plain go test).
const raceEnabled = true
