package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/odekmem/odekmem/memcore"
)

// minPrefix is the shortest id prefix a verb accepts.
const minPrefix = 4

// maxCandidates bounds the candidates an ambiguous prefix lists.
const maxCandidates = 10

// atomArg is the one argument of a verb that takes an atom id (usage
// names the verb's form), resolved as resolveAtomID does.
func atomArg(c *ctx, usage string) (string, error) {
	if err := needArgs(c, 1, usage); err != nil {
		return "", err
	}
	return resolveAtomID(c, c.p.pos[0])
}

// resolveAtomID turns what the person typed into a live or quarantined
// atom id: the full id, or any unique prefix of at least minPrefix
// characters. An ambiguous prefix lists the candidates; a pending-review id
// says so.
func resolveAtomID(c *ctx, arg string) (string, error) {
	want := strings.ToLower(strings.TrimSpace(arg))
	if want == "" {
		return "", usagef("expected an atom id")
	}
	live, quar, err := atomsWithPrefix(c, want)
	if err != nil {
		return "", err
	}
	for _, a := range append(live, quar...) {
		if a.ID == want {
			return a.ID, nil
		}
	}
	if len(want) < minPrefix {
		return "", usagef("id %q is too short: give at least %d characters of it", arg, minPrefix)
	}
	switch n := len(live) + len(quar); {
	case n == 1:
		return append(live, quar...)[0].ID, nil
	case n > 1:
		var lines []string
		for _, a := range live {
			lines = append(lines, candidateLine(a, false))
		}
		for _, a := range quar {
			lines = append(lines, candidateLine(a, true))
		}
		return "", ambiguous(want, "atoms", lines)
	}
	if ids, _ := pendingWithPrefix(c, want); len(ids) > 0 {
		return "", fmt.Errorf("%s is a pending review, not an atom: see odekmem pending, then confirm or reject it", ids[0])
	}
	return "", fmt.Errorf("%w: no atom %s", memcore.ErrNotFound, arg)
}

// resolvePendingID does the same for pending-review ids.
func resolvePendingID(c *ctx, arg string) (string, error) {
	want := strings.ToLower(strings.TrimSpace(arg))
	if want == "" {
		return "", usagef("expected a pending-review id")
	}
	ids, err := pendingWithPrefix(c, want)
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		if id == want {
			return id, nil
		}
	}
	if len(want) < minPrefix {
		return "", usagef("id %q is too short: give at least %d characters of it", arg, minPrefix)
	}
	switch {
	case len(ids) == 1:
		return ids[0], nil
	case len(ids) > 1:
		var lines []string
		um, err := c.store.UserModel(c)
		ps := um.Pending
		if err != nil {
			return "", err
		}
		for _, p := range ps {
			if strings.HasPrefix(p.ID, want) {
				lines = append(lines, fmt.Sprintf("%s  %s = %s", p.ID, p.Field, clip(p.Value, 50)))
			}
		}
		return "", ambiguous(want, "pending reviews", lines)
	}
	if live, quar, err := atomsWithPrefix(c, want); err != nil {
		return "", err
	} else if len(live)+len(quar) > 0 {
		return "", fmt.Errorf("%s is an atom id; %s takes a pending-review id (see odekmem pending)", want, c.cmd.Name())
	}
	return "", fmt.Errorf("%w: no pending review %s", memcore.ErrNotFound, arg)
}

func pendingWithPrefix(c *ctx, prefix string) ([]string, error) {
	um, err := c.store.UserModel(c)
	ps := um.Pending
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range ps {
		if strings.HasPrefix(p.ID, prefix) {
			out = append(out, p.ID)
		}
	}
	return out, nil
}

// atomsWithPrefix returns the live and the quarantined atoms whose ids
// start with prefix, oldest first; a full id is looked up directly.
func atomsWithPrefix(c *ctx, prefix string) (live, quar []memcore.Atom, err error) {
	if a, q, err := c.store.Get(c, prefix); err == nil {
		if q != nil {
			return nil, []memcore.Atom{a}, nil
		}
		return []memcore.Atom{a}, nil, nil
	}
	atoms, err := c.store.List(c, memcore.Filter{})
	if err != nil {
		return nil, nil, err
	}
	for i := len(atoms) - 1; i >= 0; i-- {
		if strings.HasPrefix(atoms[i].ID, prefix) {
			live = append(live, atoms[i])
		}
	}
	qs, err := c.store.Quarantined(c)
	if err != nil {
		return nil, nil, err
	}
	for _, q := range qs {
		if strings.HasPrefix(q.ID, prefix) {
			quar = append(quar, q.Atom)
		}
	}
	return live, quar, nil
}

func candidateLine(a memcore.Atom, quarantined bool) string {
	where := "live"
	if quarantined {
		where = "quarantined"
	}
	return fmt.Sprintf("%s  %-11s  %s", a.ID, where, clip(a.Text, 50))
}

func ambiguous(prefix, what string, lines []string) error {
	n := len(lines)
	if len(lines) > maxCandidates {
		lines = append(lines[:maxCandidates], fmt.Sprintf("… and %d more", n-maxCandidates))
	}
	return errors.New(fmt.Sprintf("id prefix %s is ambiguous: %d %s match; give more characters:\n  %s", prefix, n, what, strings.Join(lines, "\n  ")))
}
