//go:build baseline

package main

// Built with -tags baseline into an older tree (scripts/scan-eval-22.sh),
// which has no learned detector: no refits, no model scores.

type scorer func(text string) bool

func refit(root, name string) scorer { return nil }

func scoreLines() { must(errNoModel) }

var errNoModel = errorString("this build has no learned detector")

type errorString string

func (e errorString) Error() string { return string(e) }
