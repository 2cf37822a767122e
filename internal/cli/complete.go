package cli

import (
	"context"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/agentsetup"
	"github.com/odekmem/odekmem/internal/config"
	"github.com/odekmem/odekmem/internal/vocab"
	"github.com/odekmem/odekmem/memcore"
)

// Shell completion is cobra's: the scripts call `odekmem __complete …`,
// which answers from the command tree (verbs, flags) and from the
// functions below (flag values, arguments, ids from the store).

func (a *app) cmdCompletion(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return withVerb(usagef("expected completion bash|zsh|fish|powershell"), "completion")
	}
	root, w := cmd.Root(), a.env.Stdout
	switch args[0] {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	case "powershell":
		return root.GenPowerShellCompletionWithDesc(w)
	}
	return withVerb(usagef("unknown shell %q: bash, zsh, fish or powershell", args[0]), "completion")
}

// maxIDCompletions bounds the ids offered at once.
const maxIDCompletions = 200

// completeLockTimeout bounds the wait for a store another process holds:
// a completion never hangs the shell.
const completeLockTimeout = 300 * time.Millisecond

// fixed completes the i-th positional argument from a list of words, each
// optionally "word\tdescription".
func fixed(lists ...[]cobra.Completion) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) < len(lists) {
			return lists[len(args)], cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

func words(ws []string) []cobra.Completion { return append([]cobra.Completion(nil), ws...) }

// values completes a flag's value from a list of words.
func values(ws []string) cobra.CompletionFunc {
	return cobra.FixedCompletions(words(ws), cobra.ShellCompDirectiveNoFileComp)
}

// registerCompletions attaches value completion to every command of the
// tree under root.
func (a *app) registerCompletions(root *cobra.Command) {
	root.RegisterFlagCompletionFunc("home", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if isVerb(c) {
			a.completeVerb(c)
		}
	}
	walk(root)
}

func (a *app) completeVerb(c *cobra.Command) {
	noFiles := func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	files := func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	switch c.Name() {
	case "help":
		var ws []cobra.Completion
		for _, v := range c.Root().Commands() {
			if isVerb(v) && !v.Hidden {
				ws = append(ws, cobra.CompletionWithDesc(v.Name(), v.Short))
			}
		}
		for _, t := range topicNames() {
			ws = append(ws, cobra.CompletionWithDesc(t, topics[t].summary))
		}
		c.ValidArgsFunction = fixed(ws)
	case "completion":
		c.ValidArgsFunction = fixed(words([]string{"bash", "zsh", "fish", "powershell"}))
	case "setup":
		c.ValidArgsFunction = fixed(words(agentsetup.Agents))
	case "hook":
		c.ValidArgsFunction = fixed(words(agenthook.Agents))
	case "eval":
		kinds := []cobra.Completion{cobra.CompletionWithDesc("locomo", "evidence recall@k on a LoCoMo-format FILE"),
			cobra.CompletionWithDesc("aged", "long-lived memories among recent chat ([FILE], default the bundled fixture)"),
			cobra.CompletionWithDesc("judgement", "the judgement of messages on its held-out split ([FILE] in the corpus format)")}
		c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return kinds, cobra.ShellCompDirectiveNoFileComp
			}
			if len(args) == 1 {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
	case "show", "forget":
		c.ValidArgsFunction = a.atomIDs(true, true)
	case "pin", "unpin":
		c.ValidArgsFunction = a.atomIDs(true, false)
	case "promote":
		c.ValidArgsFunction = a.atomIDs(false, true)
	case "confirm", "reject":
		c.ValidArgsFunction = a.pendingIDs
	case "resolve":
		c.ValidArgsFunction = a.contradictionIDs
	case "ingest", "import", "export":
		c.ValidArgsFunction = files
	default:
		c.ValidArgsFunction = noFiles
	}
	flag := func(name string, f cobra.CompletionFunc) {
		if c.Flags().Lookup(name) != nil {
			c.RegisterFlagCompletionFunc(name, f)
		}
	}
	flag("type", values(vocab.AtomTypes))
	flag("source", values(vocab.SourceClasses))
	flag("project", a.projects)
	flag("token-file", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveDefault
	})
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() != "bool" && f.Name != "type" && f.Name != "source" && f.Name != "project" && f.Name != "token-file" {
			c.RegisterFlagCompletionFunc(f.Name, noFiles)
		}
	})
}

// withStore opens the store the command line names, when that is cheap:
// it exists, the embedder is the local one (an HTTP embedder could be
// asked to embed), and no other process holds it for long.
func (a *app) withStore(cmd *cobra.Command, f func(st *memcore.Store) []cobra.Completion) ([]cobra.Completion, cobra.ShellCompDirective) {
	s, err := a.loadSettings(parsedFrom(cmd, nil))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	switch s.EffectiveEmbedding().Provider {
	case "", "hash", "local":
	default:
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	dir := s.StoreDir()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	emb, err := config.NewEmbedder(s.EffectiveEmbedding())
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	cfg := s.Extended // no memory LLM, no guard: completion only reads
	st, err := memcore.Open(context.Background(), dir, memcore.Options{Config: &cfg, Embedder: emb, LockTimeout: completeLockTimeout})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer st.Close(context.Background())
	return f(st), cobra.ShellCompDirectiveNoFileComp
}

// idCompletions keeps the ids that start with prefix, each with the start
// of its text, at most maxIDCompletions.
func idCompletions(prefix string, ids, texts []string) []cobra.Completion {
	var out []cobra.Completion
	for i, id := range ids {
		if strings.HasPrefix(id, prefix) && len(out) < maxIDCompletions {
			out = append(out, cobra.CompletionWithDesc(id, clip(texts[i], 50)))
		}
	}
	return out
}

// atomIDs completes the id of a live and/or quarantined atom.
func (a *app) atomIDs(live, quarantined bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return a.withStore(cmd, func(st *memcore.Store) []cobra.Completion {
			var ids, texts []string
			if live {
				atoms, _ := st.List(context.Background(), memcore.Filter{})
				for _, x := range atoms {
					ids, texts = append(ids, x.ID), append(texts, x.Text)
				}
			}
			if quarantined {
				qs, _ := st.Quarantined(context.Background())
				for _, x := range qs {
					ids, texts = append(ids, x.ID), append(texts, x.Text)
				}
			}
			return idCompletions(strings.ToLower(prefix), ids, texts)
		})
	}
}

func (a *app) pendingIDs(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return a.withStore(cmd, func(st *memcore.Store) []cobra.Completion {
		um, _ := st.UserModel(context.Background())
		ps := um.Pending
		var ids, texts []string
		for _, p := range ps {
			ids, texts = append(ids, p.ID), append(texts, p.Field+" = "+p.Value)
		}
		return idCompletions(strings.ToLower(prefix), ids, texts)
	})
}

func (a *app) contradictionIDs(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return a.withStore(cmd, func(st *memcore.Store) []cobra.Completion {
			cs, _ := st.Contradictions(context.Background(), false)
			var ids, texts []string
			for _, x := range cs {
				text := x.New
				if n, _, err := st.Get(context.Background(), x.New); err == nil {
					text = n.Text
				}
				ids, texts = append(ids, x.ID), append(texts, "newer: "+text)
			}
			return idCompletions(strings.ToLower(prefix), ids, texts)
		})
	case 1:
		return []cobra.Completion{
			cobra.CompletionWithDesc(memcore.ResolveKeepNew, "the older memory stays superseded"),
			cobra.CompletionWithDesc(memcore.ResolveKeepOld, "the newer one is superseded instead"),
			cobra.CompletionWithDesc(memcore.ResolveKeepBoth, "neither is superseded"),
		}, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// projects completes --project with the projects the store's atoms name.
func (a *app) projects(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return a.withStore(cmd, func(st *memcore.Store) []cobra.Completion {
		s, err := st.Stats(context.Background())
		if err != nil {
			return nil
		}
		var out []cobra.Completion
		for p := range s.ByProject {
			if p != "" {
				out = append(out, p)
			}
		}
		sort.Strings(out)
		return out
	})
}
