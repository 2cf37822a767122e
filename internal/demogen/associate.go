package main

// The association graph of the demo store: links between atoms that share
// tags, sessions or projects, and each atom's related ids.

import (
	"sort"
	"strings"
)

// associate derives link pairs. Kinds, in order of precedence:
//   - supersedes: each contradiction's older and newer atom, as memcore
//     links them when it records the contradiction;
//   - temporal: consecutive atoms of one session at most 3 turns apart;
//   - task: same project, a goal linked to each decision/convention/intent that
//     shares a tag, and an intent linked to the decisions sharing a tag;
//   - semantic: per topic tag, the first atom of each session carrying the
//     tag is linked to the first one of the next such session.
func associate(atoms []*liveAtom, pairs []supersedePair) (map[string]map[string]bool, map[string]string) {
	links := map[string]map[string]bool{}
	kinds := map[string]string{}
	link := func(a, b *liveAtom, kind string) bool {
		if a.ID == b.ID {
			return false
		}
		key := pairKey(a.ID, b.ID)
		if _, ok := kinds[key]; ok {
			return false
		}
		kinds[key] = kind
		for _, p := range [][2]string{{a.ID, b.ID}, {b.ID, a.ID}} {
			if links[p[0]] == nil {
				links[p[0]] = map[string]bool{}
			}
			links[p[0]][p[1]] = true
		}
		return true
	}
	shares := func(a, b *liveAtom) bool {
		for _, t := range a.Tags {
			for _, u := range b.Tags {
				if t == u {
					return true
				}
			}
		}
		return false
	}
	for _, p := range pairs {
		link(p.older, p.newer, linkSupersedes)
	}
	for i := 1; i < len(atoms); i++ {
		a, b := atoms[i-1], atoms[i]
		if a.session == b.session && b.turn-a.turn <= 3 {
			link(a, b, "temporal")
		}
	}
	taskType := map[string]bool{"decision": true, "convention": true, "intent": true}
	for _, a := range atoms {
		for _, b := range atoms {
			if a.project != b.project || !shares(a, b) {
				continue
			}
			if a.Type == "goal" && taskType[b.Type] || a.Type == "intent" && b.Type == "decision" {
				link(a, b, "task")
			}
		}
	}
	var tags []string
	byTag := map[string][]*liveAtom{}
	for _, a := range atoms {
		for _, t := range a.Tags {
			if byTag[t] == nil {
				tags = append(tags, t)
			}
			byTag[t] = append(byTag[t], a)
		}
	}
	for _, t := range tags {
		if t == "stack" || t == "style" { // too generic to be a topic
			continue
		}
		// The atoms of this tag, one representative (the earliest) per session,
		// chained in time order.
		var reps []*liveAtom
		for _, a := range byTag[t] {
			if len(reps) == 0 || reps[len(reps)-1].session != a.session {
				reps = append(reps, a)
			}
		}
		for i := 1; i < len(reps); i++ {
			link(reps[i-1], reps[i], "semantic")
		}
	}
	return links, kinds
}

// setRelated fills related_atom_ids for decisions, conventions and errors with
// up to three of their links. A supersedes link is not one: memcore records
// it after the newer atom was stored, and leaves related_atom_ids alone.
func setRelated(atoms []*liveAtom, links map[string]map[string]bool, kinds map[string]string) {
	for _, a := range atoms {
		switch a.Type {
		case "decision", "convention", "error":
		default:
			continue
		}
		var ids []string
		for o := range links[a.ID] {
			if kinds[pairKey(a.ID, o)] != linkSupersedes {
				ids = append(ids, o)
			}
		}
		sort.Strings(ids)
		if len(ids) > 3 {
			ids = ids[:3]
		}
		a.Context.RelatedAtomIDs = ids
	}
}

// pairKey is the associations_kinds.json key of a link: "a|b" with a < b.
func pairKey(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + "|" + b
}

// tagChars hides s in Unicode tag characters (U+E0000 + ASCII).
func tagChars(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(0xE0000 + r)
	}
	return b.String()
}

// linkSupersedes is the Link.Kind memcore records between a superseded
// atom and its successor (see memcore.Link).
const linkSupersedes = "supersedes"
