// Package eval measures retrieval quality of the real recall path on
// conversation benchmarks in LoCoMo's format.
package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/odekmem/odekmem/internal/lazyre"
	"github.com/odekmem/odekmem/memcore"
)

// Conversation is one LoCoMo sample.
type Conversation struct {
	ID       string
	Speakers [2]string
	Turns    []Turn
	QA       []Question
	// SessionDates holds each session's date where the file gives one
	// (session_N_date_time); sessions without a readable date are absent.
	SessionDates map[int]time.Time
}

// LastDate is the date of the conversation's latest dated session, zero
// when no session has a date.
func (c Conversation) LastDate() time.Time {
	var last time.Time
	for _, d := range c.SessionDates {
		if d.After(last) {
			last = d
		}
	}
	return last
}

// Turn is one dialogue turn.
type Turn struct {
	DiaID   string
	Speaker string
	Text    string
	Session int
	Index   int
}

// Question is one QA item with its evidence dialogue ids.
type Question struct {
	Question string
	Category int
	Evidence []string
}

var (
	sessionKey     = lazyre.New(`^session_(\d+)$`)
	sessionDateKey = lazyre.New(`^session_(\d+)_date_time$`)
)

// sessionDateLayouts are the spellings LoCoMo uses ("1:56 pm on 8 May,
// 2023"), with and without the time of day.
var sessionDateLayouts = []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "2 January, 2006", "2 January 2006", time.RFC3339}

// parseSessionDate reads one session_N_date_time value (UTC); ok is false
// when it is not a date in a known spelling.
func parseSessionDate(v string) (time.Time, bool) {
	v = strings.Join(strings.Fields(v), " ")
	for _, l := range sessionDateLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t.UTC(), true
		}
		if t, err := time.Parse(l, strings.ToLower(v)); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// ParseLoCoMo reads a LoCoMo-format JSON file: an array of samples with a
// "conversation" object holding session_N turn lists and a "qa" list.
func ParseLoCoMo(r io.Reader) ([]Conversation, error) {
	var raw []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string          `json:"question"`
			Category json.RawMessage `json:"category"`
			Evidence json.RawMessage `json:"evidence"`
		} `json:"qa"`
	}
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("locomo: invalid JSON: %w", err)
	}
	var out []Conversation
	for i, s := range raw {
		c := Conversation{ID: s.SampleID}
		if c.ID == "" {
			c.ID = fmt.Sprintf("sample-%d", i+1)
		}
		for _, k := range []int{0, 1} {
			var name string
			json.Unmarshal(s.Conversation[[]string{"speaker_a", "speaker_b"}[k]], &name)
			c.Speakers[k] = name
		}
		var sessions []int
		for k, v := range s.Conversation {
			if m := sessionKey.FindStringSubmatch(k); m != nil {
				n, _ := strconv.Atoi(m[1])
				sessions = append(sessions, n)
			}
			if m := sessionDateKey.FindStringSubmatch(k); m != nil {
				var text string
				if json.Unmarshal(v, &text) == nil {
					if d, ok := parseSessionDate(text); ok {
						n, _ := strconv.Atoi(m[1])
						if c.SessionDates == nil {
							c.SessionDates = map[int]time.Time{}
						}
						c.SessionDates[n] = d
					}
				}
			}
		}
		sort.Ints(sessions)
		for _, n := range sessions {
			var turns []struct {
				Speaker string `json:"speaker"`
				DiaID   string `json:"dia_id"`
				Text    string `json:"text"`
			}
			if err := json.Unmarshal(s.Conversation["session_"+strconv.Itoa(n)], &turns); err != nil {
				continue // sessions that are not turn lists are skipped
			}
			for j, t := range turns {
				if strings.TrimSpace(t.Text) == "" {
					continue
				}
				c.Turns = append(c.Turns, Turn{DiaID: t.DiaID, Speaker: t.Speaker, Text: t.Text, Session: n, Index: j + 1})
			}
		}
		for _, q := range s.QA {
			cat, _ := strconv.Atoi(strings.Trim(string(q.Category), `"`))
			c.QA = append(c.QA, Question{Question: q.Question, Category: cat, Evidence: parseEvidence(q.Evidence)})
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("locomo: no conversations in file")
	}
	return out, nil
}

var diaID = lazyre.New(`D\d+:\d+`)

// parseEvidence accepts a list of ids, tolerating malformed entries: ids
// are extracted where recognisable; the rest count as unmatched.
func parseEvidence(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) != nil {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			list = []string{one}
		}
	}
	var out []string
	for _, e := range list {
		ids := diaID.FindAllString(strings.ReplaceAll(e, " ", ""), -1)
		if len(ids) == 0 {
			out = append(out, "malformed:"+e) // never matches a turn
			continue
		}
		out = append(out, ids...)
	}
	return out
}

// Options configure a run.
type Options struct {
	K int
	// Categories to ask (default 1–4).
	Categories []int
	// Config and Embedder build each conversation's store (nil = defaults).
	Config   *memcore.Config
	Embedder func() (memcore.Embedder, error)
	// Limit asks at most this many questions per conversation (0 = all).
	Limit int
	// Progress, when set, is called after each conversation.
	Progress func(done, total int)
	// Dated gives each turn's atom its session's date (turn i of a session
	// i seconds after it) and asks every question one day after the
	// conversation's last session, so age and decay take part in the
	// ranking. A conversation without session dates is an error.
	Dated bool
}

// Metrics are averages over questions.
type Metrics struct {
	Questions int     `json:"questions"`
	Recall    float64 `json:"recall_at_k"`
	Hit       float64 `json:"hit_at_k"`
	MRR       float64 `json:"mrr"`
}

// Report is the result of an evaluation.
type Report struct {
	K             int             `json:"k"`
	Conversations int             `json:"conversations"`
	Turns         int             `json:"turns"`
	Quarantined   int             `json:"quarantined_turns"`
	Overall       Metrics         `json:"overall"`
	ByCategory    map[int]Metrics `json:"by_category"`
	LatencyP50    time.Duration   `json:"latency_p50_ns"`
	LatencyP99    time.Duration   `json:"latency_p99_ns"`
	Fingerprint   string          `json:"fingerprint"`
	Dated         bool            `json:"dated"`
}

type acc struct{ n, recall, hit, mrr float64 }

func (a *acc) add(r, h, m float64) { a.n++; a.recall += r; a.hit += h; a.mrr += m }
func (a acc) metrics() Metrics {
	if a.n == 0 {
		return Metrics{}
	}
	return Metrics{Questions: int(a.n), Recall: a.recall / a.n, Hit: a.hit / a.n, MRR: a.mrr / a.n}
}

// Run builds one fresh store per conversation in a temporary directory —
// each turn an atom "Speaker: text" recorded with its dialogue id — asks
// every question of the chosen categories through Store.Search (the real
// recall path, min-score gate included) and scores evidence recall@k,
// hit@k and MRR.
func Run(ctx context.Context, convs []Conversation, o Options) (Report, error) {
	if o.K <= 0 {
		o.K = 10
	}
	cats := map[int]bool{}
	if len(o.Categories) == 0 {
		o.Categories = []int{1, 2, 3, 4}
	}
	for _, c := range o.Categories {
		cats[c] = true
	}
	rep := Report{K: o.K, Conversations: len(convs), ByCategory: map[int]Metrics{}, Dated: o.Dated}
	per := map[int]*acc{}
	var all acc
	var lat []time.Duration
	for ci, conv := range convs {
		dir, err := os.MkdirTemp("", "odekmem-eval-")
		if err != nil {
			return rep, err
		}
		err = func() error {
			defer os.RemoveAll(dir)
			opts := memcore.Options{Config: o.Config}
			var asked time.Time
			if o.Dated {
				last := conv.LastDate()
				if last.IsZero() {
					return fmt.Errorf("conversation %s has no session dates (session_N_date_time): --dated needs them", conv.ID)
				}
				asked = last.Add(24 * time.Hour)
				opts.Now = func() time.Time { return asked }
			}
			if o.Embedder != nil {
				emb, err := o.Embedder()
				if err != nil {
					return err
				}
				opts.Embedder = emb
			}
			st, err := memcore.Open(ctx, dir, opts)
			if err != nil {
				return err
			}
			defer st.Close(context.Background())
			stats, err := st.Stats(ctx)
			if err != nil {
				return err
			}
			rep.Fingerprint = stats.Index.Fingerprint
			reqs := make([]memcore.AddRequest, len(conv.Turns))
			base := st.Now()
			for i, t := range conv.Turns {
				at := base
				if o.Dated {
					d, ok := conv.SessionDates[t.Session]
					if !ok {
						return fmt.Errorf("conversation %s session %d has no date: --dated needs one per session", conv.ID, t.Session)
					}
					at = d.Add(time.Duration(t.Index) * time.Second)
				}
				reqs[i] = memcore.AddRequest{Text: t.Speaker + ": " + t.Text, Type: memcore.TypeFact, Source: memcore.SourceUserSaid,
					CreatedAt: at, Context: memcore.AtomContext{SessionID: fmt.Sprintf("session_%d", t.Session), Turn: t.Index, Project: conv.ID}}
			}
			results, errs, err := st.AddBatch(ctx, reqs)
			if err != nil {
				return err
			}
			turnAtom := map[string]string{}
			for i, r := range results {
				if errs[i] != nil {
					return fmt.Errorf("conversation %s turn %s: %w", conv.ID, conv.Turns[i].DiaID, errs[i])
				}
				if r.Quarantined {
					rep.Quarantined++
					continue
				}
				turnAtom[conv.Turns[i].DiaID] = r.Atom.ID
			}
			rep.Turns += len(conv.Turns)
			nasked := 0
			for _, q := range conv.QA {
				if !cats[q.Category] || len(q.Evidence) == 0 {
					continue
				}
				if o.Limit > 0 && nasked >= o.Limit {
					break
				}
				nasked++
				t0 := time.Now()
				res, err := st.Search(ctx, q.Question, memcore.SearchOptions{K: o.K})
				lat = append(lat, time.Since(t0))
				if err != nil {
					return err
				}
				rank := map[string]int{}
				for i, r := range res {
					if _, ok := rank[r.Atom.ID]; !ok {
						rank[r.Atom.ID] = i + 1
					}
				}
				found, first := 0, 0
				for _, ev := range q.Evidence {
					if r, ok := rank[turnAtom[ev]]; ok && turnAtom[ev] != "" {
						found++
						if first == 0 || r < first {
							first = r
						}
					}
				}
				recall := float64(found) / float64(len(q.Evidence))
				hit, mrr := 0.0, 0.0
				if first > 0 {
					hit, mrr = 1, 1/float64(first)
				}
				all.add(recall, hit, mrr)
				if per[q.Category] == nil {
					per[q.Category] = &acc{}
				}
				per[q.Category].add(recall, hit, mrr)
			}
			return nil
		}()
		if err != nil {
			return rep, err
		}
		if o.Progress != nil {
			o.Progress(ci+1, len(convs))
		}
	}
	rep.Overall = all.metrics()
	for c, a := range per {
		rep.ByCategory[c] = a.metrics()
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		rep.LatencyP50 = lat[len(lat)/2]
		rep.LatencyP99 = lat[min(len(lat)-1, len(lat)*99/100)]
	}
	return rep, nil
}

// CategoryNames are LoCoMo's category labels.
var CategoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
