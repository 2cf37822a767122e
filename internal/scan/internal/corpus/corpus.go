// Package corpus reads the scanner's evaluation data for its tests and
// for evalscan: line files holding one sample a line.
package corpus

import (
	"bufio"
	"os"
	"strings"
)

// Lines returns the lines of the file at path, trimmed, without the blank
// ones. A line may be up to 1 MiB long.
func Lines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}
