package cli

import (
	"fmt"
	"sort"
	"strings"
)

// Shell completion scripts, generated from the verb table so a new verb
// completes without touching this file.

func cmdCompletion(c *ctx) error {
	if len(c.p.pos) != 1 {
		return usagef("expected completion bash|zsh|fish")
	}
	switch c.p.pos[0] {
	case "bash":
		c.out("%s", bashCompletion())
	case "zsh":
		c.out("%s", zshCompletion())
	case "fish":
		c.out("%s", fishCompletion())
	default:
		return usagef("unknown shell %q: bash, zsh or fish", c.p.pos[0])
	}
	return nil
}

func visibleVerbs() []*command {
	var out []*command
	for _, c := range commands {
		if !c.hidden {
			out = append(out, c)
		}
	}
	return out
}

func verbFlags(c *command) []string {
	out := []string{"--help", "--home"}
	for name := range c.flags {
		out = append(out, "--"+name)
	}
	if c.store == writesStore {
		out = append(out, "--create")
	}
	sort.Strings(out)
	return out
}

func topicNames() []string {
	var out []string
	for name := range topics {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// takesFile reports verbs whose positional argument is a file.
func takesFile(c *command) bool {
	return strings.Contains(c.args, "FILE")
}

func bashCompletion() string {
	var sb strings.Builder
	var names []string
	for _, c := range visibleVerbs() {
		names = append(names, c.name)
	}
	sb.WriteString("# bash completion for odekmem (odekmem completion bash)\n")
	sb.WriteString("_odekmem() {\n")
	sb.WriteString("  local cur verb i\n")
	sb.WriteString("  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n")
	sb.WriteString("  verb=\"\"\n")
	sb.WriteString("  for ((i=1; i<COMP_CWORD; i++)); do\n")
	sb.WriteString("    case \"${COMP_WORDS[i]}\" in\n")
	sb.WriteString("      --home) ((i++));;\n")
	sb.WriteString("      -*) ;;\n")
	sb.WriteString("      *) verb=\"${COMP_WORDS[i]}\"; break;;\n")
	sb.WriteString("    esac\n")
	sb.WriteString("  done\n")
	sb.WriteString("  if [[ \"${COMP_WORDS[COMP_CWORD-1]}\" == --home ]]; then\n")
	sb.WriteString("    COMPREPLY=($(compgen -d -- \"$cur\")); return\n")
	sb.WriteString("  fi\n")
	fmt.Fprintf(&sb, "  if [[ -z \"$verb\" ]]; then\n    COMPREPLY=($(compgen -W \"%s --home --help --version\" -- \"$cur\")); return\n  fi\n", strings.Join(names, " "))
	sb.WriteString("  case \"$verb\" in\n")
	for _, c := range visibleVerbs() {
		words := verbFlags(c)
		switch c.name {
		case "help":
			words = append(words, append(names, topicNames()...)...)
		case "completion":
			words = append(words, "bash", "zsh", "fish")
		}
		fmt.Fprintf(&sb, "    %s)\n", c.name)
		if takesFile(c) {
			fmt.Fprintf(&sb, "      if [[ \"$cur\" != -* ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); return; fi\n")
		}
		fmt.Fprintf(&sb, "      COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"));;\n", strings.Join(words, " "))
	}
	sb.WriteString("  esac\n}\ncomplete -F _odekmem odekmem\n")
	return sb.String()
}

func zshCompletion() string {
	var sb strings.Builder
	sb.WriteString("#compdef odekmem\n# zsh completion for odekmem (odekmem completion zsh)\n")
	sb.WriteString("_odekmem() {\n  local -a verbs\n  verbs=(\n")
	for _, c := range visibleVerbs() {
		fmt.Fprintf(&sb, "    '%s:%s'\n", c.name, zshQuote(c.summary))
	}
	sb.WriteString("  )\n  local verb=\"\" i\n")
	sb.WriteString("  for ((i=2; i<CURRENT; i++)); do\n")
	sb.WriteString("    case \"${words[i]}\" in\n      --home) ((i++));;\n      -*) ;;\n      *) verb=\"${words[i]}\"; break;;\n    esac\n  done\n")
	sb.WriteString("  if [[ \"${words[CURRENT-1]}\" == --home ]]; then _files -/; return; fi\n")
	sb.WriteString("  if [[ -z \"$verb\" ]]; then\n    _describe 'odekmem verb' verbs\n    compadd -- --home --help --version\n    return\n  fi\n")
	sb.WriteString("  case \"$verb\" in\n")
	for _, c := range visibleVerbs() {
		words := verbFlags(c)
		switch c.name {
		case "help":
			var ns []string
			for _, v := range visibleVerbs() {
				ns = append(ns, v.name)
			}
			words = append(words, append(ns, topicNames()...)...)
		case "completion":
			words = append(words, "bash", "zsh", "fish")
		}
		fmt.Fprintf(&sb, "    %s)\n", c.name)
		if takesFile(c) {
			sb.WriteString("      if [[ \"$PREFIX\" != -* ]]; then _files; return; fi\n")
		}
		fmt.Fprintf(&sb, "      compadd -- %s;;\n", strings.Join(words, " "))
	}
	sb.WriteString("  esac\n}\ncompdef _odekmem odekmem\n")
	return sb.String()
}

func zshQuote(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "'", "'\\''"), ":", "\\:")
}

func fishCompletion() string {
	var sb strings.Builder
	sb.WriteString("# fish completion for odekmem (odekmem completion fish | source)\n")
	sb.WriteString("complete -c odekmem -f\n")
	sb.WriteString("complete -c odekmem -l home -r -a '(__fish_complete_directories)' -d 'odek home'\n")
	sb.WriteString("complete -c odekmem -s h -l help -d 'show help'\n")
	for _, c := range visibleVerbs() {
		fmt.Fprintf(&sb, "complete -c odekmem -n __fish_use_subcommand -a %s -d '%s'\n", c.name, fishQuote(c.summary))
	}
	for _, c := range visibleVerbs() {
		cond := "__fish_seen_subcommand_from " + c.name
		for _, f := range verbFlags(c) {
			name := strings.TrimPrefix(f, "--")
			if name == "help" || name == "home" {
				continue
			}
			doc := flagDocs[name].help
			if h, ok := c.flagHelp[name]; ok {
				doc = h
			}
			req := ""
			if c.flags[name] {
				req = " -r"
			}
			fmt.Fprintf(&sb, "complete -c odekmem -n '%s' -l %s%s -d '%s'\n", cond, name, req, fishQuote(doc))
		}
		if takesFile(c) {
			fmt.Fprintf(&sb, "complete -c odekmem -n '%s' -F\n", cond)
		}
	}
	var args []string
	for _, v := range visibleVerbs() {
		args = append(args, v.name)
	}
	args = append(args, topicNames()...)
	fmt.Fprintf(&sb, "complete -c odekmem -n '__fish_seen_subcommand_from help' -a '%s'\n", strings.Join(args, " "))
	sb.WriteString("complete -c odekmem -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	return sb.String()
}

func fishQuote(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`)
}
