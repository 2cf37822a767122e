package llm

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// RerankItem is one candidate for Rerank.
type RerankItem struct {
	ID   string
	Text string
}

// RerankPrompt is the system prompt for reranking.
const RerankPrompt = `You rank stored memories by how useful they are for answering the user's current message.
You receive the message and numbered candidates, each with an id.
Output ONLY a JSON array of the candidate ids, most useful first. Example:
["a1","c3","b2"]`

const maxRerankText = 300

// Rerank asks the model to order cands by relevance to query and returns
// their ids in the new order. The model may answer with ids or with the
// 0-based indices shown in the prompt (1-based answers are recognised when
// no 0 appears and the highest index equals len(cands)); ids not in the
// input are ignored, duplicates removed, and candidates the model left out
// are appended in their original order, so the result is always a
// permutation of the input ids. A nil Client returns ErrNoLLM; fewer than
// two candidates are returned as they are without a call.
func Rerank(ctx context.Context, c Client, query string, cands []RerankItem) ([]string, error) {
	ids := make([]string, len(cands))
	for i, it := range cands {
		ids[i] = it.ID
	}
	if c == nil {
		return nil, ErrNoLLM
	}
	if len(cands) < 2 {
		return ids, nil
	}
	var b strings.Builder
	b.WriteString("Message:\n" + cleanText(query, 2000) + "\n\nCandidates:\n")
	for i, it := range cands {
		fmt.Fprintf(&b, "[%d] id=%s: %s\n", i, cleanText(it.ID, 80), cleanText(it.Text, maxRerankText))
	}
	arr, err := askArray(ctx, c, "rerank", prompt(RerankPrompt, b.String()))
	if err != nil {
		return nil, err
	}
	return applyOrder(ids, arr), nil
}

// applyOrder turns the model's list of ids/indices into a permutation of ids.
func applyOrder(ids []string, arr []any) []string {
	byID := map[string]int{}
	for i, id := range ids {
		if _, ok := byID[id]; !ok {
			byID[id] = i
		}
	}
	// Resolve each entry to a candidate position, or -1.
	var nums []float64
	for _, e := range arr {
		if f, ok := e.(float64); ok {
			nums = append(nums, f)
		}
	}
	oneBased := len(nums) > 0
	maxN := 0.0
	for _, f := range nums {
		if f == 0 {
			oneBased = false
		}
		maxN = math.Max(maxN, f)
	}
	if maxN != float64(len(ids)) {
		oneBased = false
	}
	index := func(f float64) int {
		if f != math.Trunc(f) {
			return -1
		}
		if oneBased {
			f--
		}
		if f < 0 || f >= float64(len(ids)) {
			return -1
		}
		return int(f)
	}
	var pos []int
	for _, e := range arr {
		p := -1
		switch t := e.(type) {
		case string:
			s := strings.TrimSpace(t)
			if i, ok := byID[s]; ok {
				p = i
			} else if n, err := strconv.Atoi(strings.Trim(s, "[]#")); err == nil {
				p = index(float64(n))
			}
		case float64:
			p = index(t)
		case map[string]any:
			if v, ok := lookup(t, "id"); ok {
				if i, ok := byID[str(v)]; ok {
					p = i
				}
			} else if v, ok := lookup(t, "index"); ok {
				if f, ok := v.(float64); ok {
					p = index(f)
				}
			}
		}
		if p >= 0 {
			pos = append(pos, p)
		}
	}
	used := make([]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, p := range pos {
		if !used[p] {
			used[p] = true
			out = append(out, ids[p])
		}
	}
	for i, id := range ids {
		if !used[i] {
			out = append(out, id)
		}
	}
	return out
}
