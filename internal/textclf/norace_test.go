//go:build !race

package textclf

const raceEnabled = false
