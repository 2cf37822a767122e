package llm

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// ContradictPrompt is the system prompt for contradiction checks.
const ContradictPrompt = `You check whether a person's new statement replaces earlier statements of theirs about the same subject.
You receive the NEW statement and numbered EARLIER statements.
An earlier statement is replaced when it is about the same subject and the new one gives a different, incompatible answer
(for example "we use RabbitMQ for order events" is replaced by "we moved order events from RabbitMQ to Kafka").
Statements that add detail, agree, or are about a different subject are not replaced.
Output ONLY a JSON array of the numbers of the replaced earlier statements, or [] if none. Example:
[0, 2]`

// Contradicts asks the model which of the earlier statements the new one
// replaces and returns their indices into earlier (sorted, unique, in
// range; anything else in the reply is ignored). A nil Client returns
// ErrNoLLM; no earlier statements return nil without a call.
func Contradicts(ctx context.Context, c Client, newer string, earlier []string) ([]int, error) {
	if c == nil {
		return nil, ErrNoLLM
	}
	if len(earlier) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("NEW:\n" + cleanText(newer, 600) + "\n\nEARLIER:\n")
	for i, e := range earlier {
		fmt.Fprintf(&b, "[%d] %s\n", i, cleanText(e, 600))
	}
	arr, err := askArray(ctx, c, "contradict", prompt(ContradictPrompt, b.String()))
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	var out []int
	for _, x := range arr {
		f, ok := x.(float64)
		if !ok || f != math.Trunc(f) || f < 0 || int(f) >= len(earlier) || seen[int(f)] {
			continue
		}
		seen[int(f)] = true
		out = append(out, int(f))
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}
