package views

import "fmt"

// Count is "1 entry" / "3 entries": n and the singular or plural noun.
func Count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
