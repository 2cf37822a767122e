package agentsetup

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The edits of a JSON settings file. Each changes only odekmem's own
// entries and returns odekmem's part (for --print) and notes on what it
// replaced.

// hookEvent is one event a hook entry is added for.
type hookEvent struct {
	name    string
	matcher string // "" = none
}

// events are the hook events odekmem listens to for o.
func events(o Options) []hookEvent {
	if o.Agent == "gemini" {
		ev := []hookEvent{{name: "BeforeAgent"}, {name: "SessionStart"}}
		if o.ToolResults {
			ev = append(ev, hookEvent{name: "AfterTool", matcher: ".*"})
		}
		return ev
	}
	ev := []hookEvent{{name: "UserPromptSubmit"}, {name: "SessionStart"}}
	if o.ToolResults {
		ev = append(ev, hookEvent{name: "PostToolUse", matcher: "*"})
	}
	return ev
}

// mcpEdit sets (or removes) <key>.odekmem. An existing entry is replaced
// whole: its env, cwd or extra arguments could point odekmem at another
// store (a cloned repository's pre-seeded "memories" served as trusted),
// so none is carried over, and the notes say what was dropped.
func mcpEdit(root *object, path, key string, entry map[string]any, remove bool) (*object, []string, error) {
	snip := newObject()
	if remove {
		if v, ok := root.get(key); ok {
			if servers, isObj := v.(*object); isObj {
				servers.del("odekmem")
			}
		}
		return snip, nil, nil
	}
	servers, err := root.child(key, path)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	if old, ok := servers.get("odekmem"); ok {
		notes = droppedNotes(path, key, old, entry)
	}
	e := toObject(entry)
	servers.set("odekmem", e)
	s := newObject()
	s.set("odekmem", e)
	snip.set(key, s)
	return snip, notes, nil
}

// droppedNotes names what an existing odekmem entry had that the new one
// does not: settings that could change which store or binary is used.
func droppedNotes(path, key string, old any, entry map[string]any) []string {
	o, ok := old.(*object)
	if !ok {
		return []string{fmt.Sprintf("%s: %s.odekmem was not an object; replaced", path, key)}
	}
	var dropped []string
	for _, k := range o.keys {
		v := o.vals[k]
		switch k {
		case "type":
			continue
		case "command", "args":
			if fmt.Sprint(plain(v)) != fmt.Sprint(plain(entry[k])) {
				dropped = append(dropped, fmt.Sprintf("%s %s", k, compact(v)))
			}
		case "env":
			if e, ok := v.(*object); ok && len(e.keys) == 0 {
				continue
			}
			dropped = append(dropped, "env "+compact(v))
		default:
			dropped = append(dropped, fmt.Sprintf("%s %s", k, compact(v)))
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: replaced the existing odekmem entry, dropping %s: none is carried over, since an env, cwd or argument could change which store is served", path, strings.Join(dropped, ", "))}
}

// plain turns a parsed value back into ordinary Go values for comparison.
func plain(v any) any {
	switch t := v.(type) {
	case *object:
		m := map[string]any{}
		for _, k := range t.keys {
			m[k] = plain(t.vals[k])
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	case json.Number:
		return t.String()
	}
	return v
}

func compact(v any) string {
	b, _ := json.Marshal(plain(v))
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// hooksEdit makes odekmem's command hooks exactly the events of o, in
// Claude Code's shape: hooks.<Event>[] = {matcher?, hooks: [{type,
// command, timeout}]}. Every odekmem hook elsewhere is removed (turning
// --tool-results off removes the capture), a group holding only odekmem's
// hook is replaced in place (so a second run changes nothing), and
// odekmem's hook inside someone else's group moves to its own group.
func hooksEdit(root *object, path string, o Options, timeout int) (*object, []string, error) {
	snip := newObject()
	if _, exists := root.get("hooks"); !exists && o.Remove {
		return snip, nil, nil
	}
	hooks, err := root.child("hooks", path)
	if err != nil {
		return nil, nil, err
	}
	want := map[string]hookEvent{}
	var order []string
	if !o.Remove {
		for _, ev := range events(o) {
			want[ev.name] = ev
			order = append(order, ev.name)
		}
	}
	cmd := o.hookCommand(o.Agent)
	canon := func(ev hookEvent) *object {
		h := toObject(map[string]any{"type": "command", "command": cmd, "timeout": timeout})
		g := newObject()
		if ev.matcher != "" {
			g.set("matcher", ev.matcher)
		}
		g.set("hooks", []any{h})
		return g
	}
	var notes []string
	placed := map[string]bool{}
	for _, name := range append([]string(nil), hooks.keys...) {
		v := hooks.vals[name]
		groups, isArr := v.([]any)
		if !isArr {
			if _, mine := want[name]; mine {
				return nil, nil, fmt.Errorf("hooks.%s is not an array; not touching it", name)
			}
			continue
		}
		var out []any
		touched := false
		for _, g := range groups {
			gob, ok := g.(*object)
			if !ok {
				out = append(out, g)
				continue
			}
			lv, _ := gob.get("hooks")
			list, ok := lv.([]any)
			if !ok {
				out = append(out, g)
				continue
			}
			var keep []any
			ours := 0
			for _, x := range list {
				if xo, ok := x.(*object); ok {
					if c, _ := xo.get("command"); c != nil {
						if cs, ok := c.(string); ok && IsOurs(cs) {
							ours++
							if cs != cmd && !o.Remove {
								notes = append(notes, fmt.Sprintf("%s: hooks.%s: replaced %q", path, name, cs))
							}
							continue
						}
					}
				}
				keep = append(keep, x)
			}
			if ours == 0 {
				out = append(out, g)
				continue
			}
			touched = true
			ev, wanted := want[name]
			if len(keep) == 0 {
				// A group of odekmem's own: it becomes the canonical group
				// at the same place (or goes).
				if wanted && !placed[name] {
					out = append(out, canon(ev))
					placed[name] = true
				}
				continue
			}
			if keep == nil {
				keep = []any{}
			}
			gob.set("hooks", keep)
			out = append(out, gob)
		}
		if ev, wanted := want[name]; wanted && !placed[name] {
			out = append(out, canon(ev))
			placed[name] = true
			touched = true
		}
		if !touched {
			continue
		}
		if len(out) == 0 {
			hooks.del(name)
		} else {
			hooks.set(name, out)
		}
	}
	for _, name := range order {
		if !placed[name] {
			hooks.set(name, []any{canon(want[name])})
			placed[name] = true
		}
	}
	if !o.Remove {
		s := newObject()
		for _, name := range order {
			s.set(name, []any{canon(want[name])})
		}
		snip.set("hooks", s)
	}
	sort.Strings(notes)
	return snip, dedupe(notes), nil
}

func dedupe(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// listEdit adds (or removes) odekmem's names in the string array at path
// (permissions.allow, tools.allowed), keeping every other entry and its
// order.
func listEdit(root *object, file string, path, names []string, remove bool) (*object, []string, error) {
	snip := newObject()
	parent := root
	for i, k := range path[:len(path)-1] {
		if remove {
			v, ok := parent.get(k)
			p, isObj := v.(*object)
			if !ok || !isObj {
				return snip, nil, nil
			}
			parent = p
			continue
		}
		c, err := parent.child(k, file)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", strings.Join(path[:i+1], "."), err)
		}
		parent = c
	}
	last := path[len(path)-1]
	v, ok := parent.get(last)
	var list []any
	if ok {
		arr, isArr := v.([]any)
		if !isArr {
			if remove {
				return snip, nil, nil
			}
			return nil, nil, fmt.Errorf("%s is not an array; not touching it", strings.Join(path, "."))
		}
		list = arr
	}
	ours := map[string]bool{}
	for _, n := range names {
		ours[n] = true
	}
	if remove {
		if !ok {
			return snip, nil, nil
		}
		out := []any{}
		for _, x := range list {
			if s, isStr := x.(string); isStr && ours[s] {
				continue
			}
			out = append(out, x)
		}
		parent.set(last, out)
		return snip, nil, nil
	}
	have := map[string]bool{}
	for _, x := range list {
		if s, isStr := x.(string); isStr {
			have[s] = true
		}
	}
	for _, n := range names {
		if !have[n] {
			list = append(list, n)
		}
	}
	if list == nil {
		list = []any{}
	}
	parent.set(last, list)
	// The snippet: the path down to odekmem's names alone.
	var arr []any
	for _, n := range names {
		arr = append(arr, n)
	}
	var node any = arr
	for i := len(path) - 1; i >= 0; i-- {
		o := newObject()
		o.set(path[i], node)
		node = o
	}
	return node.(*object), nil, nil
}
