package agentsetup

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/odekmem/odekmem/internal/hookproto"
	"github.com/odekmem/odekmem/internal/lazyre"
)

// `odekmem doctor`: for each agent found, whether what setup wrote is in
// place and will work — the config, the commands resolved from a clean
// environment, the hooks enabled and (Codex) trusted, the MCP server
// started and asked to initialize, the last hook run from hook.log — and
// whether odekmem serve is up. Every check says what to do when it fails.

// Check is one line of the doctor's report.
type Check struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Info   bool   `json:"info,omitempty"` // neither a pass nor a failure (serve not running yet)
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// AgentReport is the doctor's report on one agent.
type AgentReport struct {
	Agent  string  `json:"agent"`
	Found  string  `json:"found"`
	Checks []Check `json:"checks"`
}

// Report is the doctor's whole report.
type Report struct {
	Store string `json:"store"`
	// StoreCheck says whether the store the hooks and the MCP server use
	// exists.
	StoreCheck Check         `json:"store_check"`
	Agents     []AgentReport `json:"agents"`
	Serve      Check         `json:"serve"`
}

// storeCheck: the hooks and the MCP server never create a store, so
// without one every agent call does nothing.
func storeCheck(store string) Check {
	fi, err := os.Stat(store)
	switch {
	case err != nil:
		return Check{Check: "store", Detail: "no store at " + store + ": the hooks and the MCP server have nothing to use", Fix: "odekmem init"}
	case !fi.IsDir():
		return Check{Check: "store", Detail: store + " is not a directory", Fix: "move it aside, then: odekmem init"}
	}
	return Check{Check: "store", OK: true, Detail: store}
}

// OK reports whether no check failed.
func (r Report) OK() bool {
	if !r.StoreCheck.OK {
		return false
	}
	for _, a := range r.Agents {
		for _, c := range a.Checks {
			if !c.OK && !c.Info {
				return false
			}
		}
	}
	return r.Serve.OK || r.Serve.Info
}

// DoctorOptions configure Doctor.
type DoctorOptions struct {
	// UserHome, Getenv and ProjectDir as for setup: the doctor looks where
	// setup writes (user files, and the project's when ProjectDir is set).
	UserHome   string
	Getenv     func(string) string
	ProjectDir string
	// OdekHome is the odek home of this run (its store is the default of a
	// command without --home).
	OdekHome string
	// LookPath finds the agents' own binaries (exec.LookPath by default).
	LookPath func(string) (string, error)
	// Timeout bounds each started process (the MCP server, codex
	// app-server); 20 s by default.
	Timeout time.Duration
	// Agents limits the report to these agents; empty: every agent found.
	Agents []string
}

// agentBinary is the command each agent installs.
var agentBinary = map[string]string{"claude-code": "claude", "codex": "codex", "gemini": "gemini", "cursor": "cursor", "vscode": "code", "zed": "zed"}

// Doctor checks every agent found and odekmem serve.
func Doctor(ctx context.Context, o DoctorOptions) Report {
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	if o.UserHome == "" {
		o.UserHome, _ = os.UserHomeDir()
	}
	store := hookproto.StoreDir(o.OdekHome)
	rep := Report{Store: store, StoreCheck: storeCheck(store)}
	want := o.Agents
	if len(want) == 0 {
		want = Agents
	}
	for _, agent := range want {
		d := doctorAgent{o: o, agent: agent}
		if r, found := d.run(ctx); found {
			rep.Agents = append(rep.Agents, r)
		}
	}
	rep.Serve = serveCheck(ctx, store)
	return rep
}

type doctorAgent struct {
	o     DoctorOptions
	agent string
	// What setup's files hold.
	mcpCmd   []string // command and args of the MCP entry
	mcpFile  string
	hookCmds []string
	events   []string
	approved bool
	files    []string
	bin      string // the agent's own binary, when found
}

func (d *doctorAgent) opts(project bool) Options {
	return Options{Agent: d.agent, UserHome: d.o.UserHome, Getenv: d.o.Getenv, Project: project, ProjectDir: d.o.ProjectDir}
}

// run reports on the agent; found is false when neither its binary nor
// any of its files is there.
func (d *doctorAgent) run(ctx context.Context) (AgentReport, bool) {
	r := AgentReport{Agent: d.agent}
	var found []string
	if p, err := d.o.LookPath(agentBinary[d.agent]); err == nil {
		d.bin = p
		found = append(found, agentBinary[d.agent]+" at "+p)
	}
	cfg := d.readConfig()
	if len(d.files) > 0 {
		found = append(found, "config "+strings.Join(d.files, ", "))
	}
	if len(found) == 0 {
		return r, false
	}
	r.Found = strings.Join(found, "; ")
	if d.bin == "" {
		// Set up, but the agent itself is not on this PATH: say so first,
		// so green lines below do not read as "ready to use".
		r.Checks = append(r.Checks, Check{Check: "agent", Info: true,
			Detail: agentBinary[d.agent] + " is not on PATH: odekmem's config is in place, but the agent is not installed here (or is installed elsewhere)"})
	}
	r.Checks = append(r.Checks, cfg)
	if d.mcpCmd == nil {
		return r, true // nothing more to check before setup
	}
	r.Checks = append(r.Checks, d.commandCheck())
	if isHookAgent(d.agent) {
		r.Checks = append(r.Checks, d.hooksCheck(ctx))
	}
	r.Checks = append(r.Checks, d.mcpCheck(ctx))
	if isHookAgent(d.agent) {
		r.Checks = append(r.Checks, d.lastHookCheck())
	}
	return r, true
}

func isHookAgent(a string) bool {
	for _, h := range HookAgents {
		if a == h {
			return true
		}
	}
	return false
}

func setupFix(agent string) string { return "odekmem setup " + agent }

// readConfig finds odekmem's entries in the agent's user files (and the
// project's, when set up there) and reports what is missing.
func (d *doctorAgent) readConfig() Check {
	c := Check{Check: "config"}
	var parts, problems []string
	scopes := []bool{false}
	if d.o.ProjectDir != "" {
		scopes = append(scopes, true)
	}
	for _, project := range scopes {
		files, err := Files(d.opts(project))
		if err != nil {
			continue
		}
		for _, f := range files {
			data, err := os.ReadFile(f.Path)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if project && !strings.Contains(string(data), "odekmem") {
				continue
			}
			d.files = append(d.files, f.Path)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			var got []string
			switch {
			case f.Policy:
				d.approved = true
				got = append(got, "policy pre-approving odekmem's tools")
			case f.TOML:
				if cmd := codexMCP(string(data)); cmd != nil && d.mcpCmd == nil {
					d.mcpCmd, d.mcpFile = cmd, f.Path
					got = append(got, "MCP server odekmem")
				}
				if strings.Contains(string(data), "[mcp_servers.odekmem.tools.") {
					d.approved = true
					got = append(got, "tools pre-approved")
				}
			default:
				root, err := parseJSON(data)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s is not valid JSON: %v", f.Path, err))
					continue
				}
				if f.MCP {
					if cmd := jsonMCP(root, f.MCPKey); cmd != nil && d.mcpCmd == nil {
						d.mcpCmd, d.mcpFile = cmd, f.Path
						got = append(got, "MCP server odekmem")
					}
				}
				if f.Hooks {
					evs, cmds := jsonHooks(root)
					if len(evs) > 0 {
						d.events, d.hookCmds = append(d.events, evs...), append(d.hookCmds, cmds...)
						got = append(got, "hooks "+strings.Join(evs, ", "))
					}
					if d.agent == "claude-code" && hasString(root, []string{"permissions", "allow"}, "mcp__odekmem__search_memories") {
						d.approved = true
						got = append(got, "tools pre-approved")
					}
				}
			}
			if len(got) > 0 {
				parts = append(parts, f.Path+": "+strings.Join(got, "; "))
			}
		}
	}
	switch {
	case len(problems) > 0:
		c.Detail, c.Fix = strings.Join(problems, "; "), "fix the file, then "+setupFix(d.agent)
	case d.mcpCmd == nil:
		c.Detail, c.Fix = "no odekmem MCP server in the agent's config", setupFix(d.agent)
	case isHookAgent(d.agent) && !hasEvent(d.events, "UserPromptSubmit", "BeforeAgent"):
		c.Detail, c.Fix = strings.Join(parts, "; ")+" — but no per-prompt hook", setupFix(d.agent)
	case isHookAgent(d.agent) && !d.approved:
		c.Detail = strings.Join(parts, "; ") + " — odekmem's tools are not pre-approved"
		c.Fix = setupFix(d.agent) + " (without it the agent asks before each tool, and headless runs offer none)"
	default:
		c.OK, c.Detail = true, strings.Join(parts, "; ")
	}
	return c
}

func hasEvent(evs []string, names ...string) bool {
	for _, e := range evs {
		for _, n := range names {
			if e == n {
				return true
			}
		}
	}
	return false
}

func hasString(root *object, path []string, s string) bool {
	var v any = root
	for _, k := range path {
		o, ok := v.(*object)
		if !ok {
			return false
		}
		v, _ = o.get(k)
	}
	arr, _ := v.([]any)
	for _, x := range arr {
		if x == s {
			return true
		}
	}
	return false
}

// jsonMCP returns the command and args of <key>.odekmem.
func jsonMCP(root *object, key string) []string {
	v, _ := root.get(key)
	servers, ok := v.(*object)
	if !ok {
		return nil
	}
	e, ok := servers.vals["odekmem"].(*object)
	if !ok {
		return nil
	}
	cmd, _ := e.vals["command"].(string)
	if cmd == "" {
		return nil
	}
	out := []string{cmd}
	args, _ := e.vals["args"].([]any)
	for _, a := range args {
		if s, ok := a.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// jsonHooks returns the events with an odekmem hook and their commands.
func jsonHooks(root *object) (events, cmds []string) {
	v, _ := root.get("hooks")
	hooks, ok := v.(*object)
	if !ok {
		return nil, nil
	}
	for _, name := range hooks.keys {
		groups, _ := hooks.vals[name].([]any)
		for _, g := range groups {
			gob, _ := g.(*object)
			if gob == nil {
				continue
			}
			list, _ := gob.vals["hooks"].([]any)
			for _, x := range list {
				xo, _ := x.(*object)
				if xo == nil {
					continue
				}
				if c, _ := xo.vals["command"].(string); IsOurs(c) {
					events, cmds = append(events, name), append(cmds, c)
				}
			}
		}
	}
	return events, cmds
}

var tomlKV = lazyre.New(`^\s*(command|args)\s*=\s*(.*)$`)

// codexMCP reads command and args of [mcp_servers.odekmem] (the shapes
// setup writes: a basic string and an array of basic strings).
func codexMCP(text string) []string {
	in := false
	var cmd string
	var args []string
	for _, ln := range strings.Split(text, "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "[") {
			m := headerRe.FindStringSubmatch(t)
			in = m != nil && ourMain.MatchString(m[1])
			continue
		}
		if !in {
			continue
		}
		m := tomlKV.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		var v any
		if json.Unmarshal([]byte(m[2]), &v) != nil {
			continue
		}
		switch m[1] {
		case "command":
			cmd, _ = v.(string)
		case "args":
			for _, a := range v.([]any) {
				if s, ok := a.(string); ok {
					args = append(args, s)
				}
			}
		}
	}
	if cmd == "" {
		return nil
	}
	return append([]string{cmd}, args...)
}

// cleanPath is the PATH of a clean environment: what a desktop app or a
// login shell without the person's additions has.
const cleanPath = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

// resolveClean finds a command the way an agent started from a clean
// environment would.
func resolveClean(cmd string) (string, error) {
	if filepath.IsAbs(cmd) {
		fi, err := os.Stat(cmd)
		if err != nil {
			return "", err
		}
		if !fi.Mode().IsRegular() || runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("%s is not an executable file", cmd)
		}
		return cmd, nil
	}
	if strings.ContainsRune(cmd, filepath.Separator) {
		return "", fmt.Errorf("%s is a relative path: it depends on the directory the agent starts in", cmd)
	}
	for _, dir := range filepath.SplitList(cleanPath) {
		p := filepath.Join(dir, cmd)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is a bare name that a clean PATH (%s) does not find: an agent started from another terminal or a desktop app cannot run it", cmd, cleanPath)
}

func (d *doctorAgent) commandCheck() Check {
	c := Check{Check: "command"}
	seen := map[string]bool{}
	var ok, bad []string
	check := func(cmd string) {
		if cmd == "" || seen[cmd] {
			return
		}
		seen[cmd] = true
		if p, err := resolveClean(cmd); err != nil {
			bad = append(bad, err.Error())
		} else {
			ok = append(ok, p)
		}
	}
	check(d.mcpCmd[0])
	for _, h := range d.hookCmds {
		if w := HookCommandWords(h); len(w) > 0 {
			check(w[0])
		}
	}
	if len(bad) > 0 {
		c.Detail, c.Fix = strings.Join(bad, "; "), setupFix(d.agent)+" (it writes absolute paths)"
		return c
	}
	c.OK, c.Detail = true, strings.Join(ok, ", ")+" resolve from a clean environment"
	return c
}

func (d *doctorAgent) hooksCheck(ctx context.Context) Check {
	c := Check{Check: "hooks"}
	switch d.agent {
	case "claude-code":
		for _, f := range d.files {
			if strings.HasSuffix(f, "settings.json") {
				if data, err := os.ReadFile(f); err == nil {
					if root, err := parseJSON(data); err == nil {
						if v, _ := root.get("disableAllHooks"); v == true {
							c.Detail, c.Fix = f+" sets disableAllHooks: no hook runs", "remove disableAllHooks from "+f
							return c
						}
					}
				}
			}
		}
		c.OK, c.Detail = true, "enabled ("+strings.Join(d.events, ", ")+"); Claude Code reads them at startup"
	case "gemini":
		for _, f := range d.files {
			if !strings.HasSuffix(f, "settings.json") {
				continue
			}
			data, _ := os.ReadFile(f)
			root, err := parseJSON(data)
			if err != nil {
				continue
			}
			hc, _ := root.get("hooksConfig")
			if hco, ok := hc.(*object); ok {
				if v, _ := hco.get("enabled"); v == false {
					c.Detail, c.Fix = f+" sets hooksConfig.enabled false: no hook runs", "remove hooksConfig.enabled from "+f
					return c
				}
				if dis, ok := hco.vals["disabled"].([]any); ok {
					for _, x := range dis {
						if s, _ := x.(string); IsOurs(s) || s == "odekmem" {
							c.Detail, c.Fix = f+" lists odekmem's hook in hooksConfig.disabled", "remove it from hooksConfig.disabled in "+f
							return c
						}
					}
				}
			}
		}
		c.OK, c.Detail = true, "enabled ("+strings.Join(d.events, ", ")+")"
		if note := geminiTrustNote(d.opts(false), d.o.ProjectDir); note != "" {
			c.Detail += "; " + note
		}
	case "codex":
		return d.codexTrust(ctx)
	}
	return c
}

// geminiTrustNote says when Gemini CLI will not trust the project folder:
// in an untrusted folder it connects no MCP server.
func geminiTrustNote(o Options, dir string) string {
	if dir == "" {
		return ""
	}
	gdir := filepath.Join(o.UserHome, ".gemini")
	if d := o.envDir("GEMINI_CLI_HOME"); d != "" {
		gdir = filepath.Join(d, ".gemini")
	}
	if p := o.getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		gdir = filepath.Dir(p)
	}
	data, err := os.ReadFile(filepath.Join(gdir, "trustedFolders.json"))
	if err != nil {
		return "this folder is not in trustedFolders.json: trust it when Gemini CLI asks, or it connects no MCP server here"
	}
	var m map[string]string
	json.Unmarshal(data, &m)
	for p, level := range m {
		base := p
		if level == "TRUST_PARENT" {
			base = filepath.Dir(p)
		}
		if level != "DO_NOT_TRUST" && (dir == base || strings.HasPrefix(dir, base+string(filepath.Separator))) {
			return ""
		}
	}
	return "this folder is not trusted in Gemini CLI: trust it when Gemini CLI asks, or it connects no MCP server here"
}

// codexTrust asks Codex itself, through `codex app-server` (hooks/list),
// whether odekmem's hooks are trusted: Codex skips an untrusted or
// modified hook without a word. odekmem never writes that trust.
func (d *doctorAgent) codexTrust(ctx context.Context) Check {
	c := Check{Check: "hooks"}
	for _, f := range d.files {
		if strings.HasSuffix(f, "config.toml") {
			data, _ := os.ReadFile(f)
			if lazyre.New(`(?m)^\s*(hooks|codex_hooks)\s*=\s*false`).Match(data) {
				c.Detail, c.Fix = f+" turns hooks off ([features] hooks = false)", "remove it from "+f
				return c
			}
		}
	}
	trustFix := "start `codex` in a terminal, type /hooks, and trust odekmem's hooks"
	if d.bin == "" {
		c.Info, c.Detail, c.Fix = true, "could not ask Codex whether the hooks are trusted (codex is not on PATH)", trustFix
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, d.o.Timeout)
	defer cancel()
	dir := d.o.ProjectDir
	if dir == "" {
		dir = d.o.UserHome
	}
	hooks, err := codexHooks(ctx, d.bin, dir)
	if err != nil {
		c.Info, c.Detail, c.Fix = true, "could not ask Codex whether the hooks are trusted: "+err.Error(), trustFix
		return c
	}
	var trusted, not []string
	for _, h := range hooks {
		if !IsOurs(h.Command) {
			continue
		}
		switch {
		case !h.Enabled:
			not = append(not, h.EventName+" disabled")
		case h.TrustStatus == "trusted" || h.TrustStatus == "managed":
			trusted = append(trusted, h.EventName)
		default:
			not = append(not, h.EventName+" "+h.TrustStatus)
		}
	}
	switch {
	case len(trusted)+len(not) == 0:
		c.Detail, c.Fix = "Codex lists no odekmem hook", setupFix(d.agent)
	case len(not) > 0:
		c.Detail, c.Fix = "Codex skips hooks it does not trust, without a word: "+strings.Join(not, ", "), trustFix
	default:
		c.OK, c.Detail = true, "trusted in Codex: "+strings.Join(trusted, ", ")
	}
	return c
}

type codexHook struct {
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	Enabled     bool   `json:"enabled"`
	TrustStatus string `json:"trustStatus"`
}

// codexHooks runs `codex app-server` and asks hooks/list for dir.
func codexHooks(ctx context.Context, codex, dir string) ([]codexHook, error) {
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	send := func(v any) {
		b, _ := json.Marshal(v)
		in.Write(append(b, '\n'))
	}
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"clientInfo": map[string]any{"name": "odekmem-doctor", "version": "1"}}})
	send(map[string]any{"method": "initialized"})
	send(map[string]any{"id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{dir}}})
	rd := bufio.NewReader(io.LimitReader(out, 16<<20))
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("codex app-server: %v", err)
		}
		var m struct {
			ID     *int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []codexHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil || *m.ID != 2 {
			continue
		}
		if m.Error != nil {
			return nil, errors.New("hooks/list: " + m.Error.Message)
		}
		var hooks []codexHook
		for _, d := range m.Result.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks, nil
	}
}

// mcpCheck starts the MCP server as the agent would, from a clean
// environment, and sends initialize and tools/list.
func (d *doctorAgent) mcpCheck(ctx context.Context) Check {
	c := Check{Check: "mcp"}
	ctx, cancel := context.WithTimeout(ctx, d.o.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.mcpCmd[0], d.mcpCmd[1:]...)
	cmd.Env = cleanEnv(d.o.UserHome)
	if d.o.ProjectDir != "" {
		cmd.Dir = d.o.ProjectDir
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "odekmem-doctor", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		c.Detail, c.Fix = fmt.Sprintf("%s does not answer initialize: %v %s", strings.Join(d.mcpCmd, " "), err, firstLine(stderr.String())), "run `"+strings.Join(d.mcpCmd, " ")+"` to see why, then "+setupFix(d.agent)
		return c
	}
	defer cs.Close()
	init := cs.InitializeResult()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		c.Detail, c.Fix = "initialize answered, tools/list failed: "+err.Error(), "run `"+strings.Join(d.mcpCmd, " ")+"` to see why"
		return c
	}
	name := "?"
	if init != nil && init.ServerInfo != nil {
		name = init.ServerInfo.Name + " " + init.ServerInfo.Version
	}
	c.OK, c.Detail = true, fmt.Sprintf("%s answers initialize from a clean environment: %s, %d tools", d.mcpCmd[0]+" "+strings.Join(d.mcpCmd[1:], " "), name, len(tools.Tools))
	return c
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// cleanEnv is what an agent started from a desktop app passes on: a home,
// a user and the system PATH, none of the person's shell additions.
func cleanEnv(home string) []string {
	env := []string{"HOME=" + home, "PATH=" + cleanPath}
	for _, k := range []string{"USER", "LOGNAME", "LANG", "TMPDIR", "SystemRoot", "USERPROFILE", "APPDATA", "LOCALAPPDATA"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// lastHookCheck reads the hook log of the store the agent's hook command
// uses and reports the last run for this agent.
func (d *doctorAgent) lastHookCheck() Check {
	c := Check{Check: "last hook"}
	home := d.o.OdekHome
	for _, h := range d.hookCmds {
		w := HookCommandWords(h)
		for i := range w {
			if w[i] == "--home" && i+1 < len(w) {
				home = w[i+1]
			}
		}
	}
	logPath := filepath.Join(hookproto.StoreDir(home), hookproto.LogName)
	at, line, ok := lastHookRun(logPath, d.agent, "")
	switch {
	case at == "":
		c.Info, c.Detail, c.Fix = true, "no hook has run yet ("+logPath+")", "start the agent and send a prompt"
	case !ok:
		c.Detail, c.Fix = at+" "+line, "see "+logPath
	default:
		c.OK, c.Detail = true, at+" "+line
		// The prompt hook is the one that matters most: say when it last
		// ran if another event ran after it.
		if !strings.HasPrefix(line, "UserPromptSubmit") && !strings.HasPrefix(line, "BeforeAgent") {
			ev := "UserPromptSubmit"
			if d.agent == "gemini" {
				ev = "BeforeAgent"
			}
			if pat, pline, _ := lastHookRun(logPath, d.agent, ev); pat != "" {
				c.Detail += "; " + pat + " " + pline
			}
		}
	}
	return c
}

// lastHookRun finds the newest line of agent's hook runs (of event, when
// set) in the log and its rotated predecessor: its time, the rest of the
// line, and whether it reports success.
func lastHookRun(path, agent, event string) (at, line string, ok bool) {
	for _, p := range []string{path, path + ".1"} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			ts, rest, found := strings.Cut(lines[i], " ")
			if !found {
				continue
			}
			if !strings.HasPrefix(rest, "hook "+agent+" ") && !strings.HasPrefix(rest, "hook "+agent+":") {
				continue
			}
			if event != "" && !strings.HasPrefix(rest, "hook "+agent+" "+event+":") {
				continue
			}
			if t, err := time.Parse(time.RFC3339, ts); err == nil {
				ts = t.Local().Format("2006-01-02 15:04:05")
			}
			good := strings.Contains(rest, ": ok") || strings.Contains(rest, "answered via")
			return ts, strings.TrimPrefix(rest, "hook "+agent+" "), good
		}
	}
	return "", "", false
}

// serveCheck asks odekmem serve of the store whether it is up.
func serveCheck(ctx context.Context, store string) Check {
	c := Check{Check: "serve"}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	sock := hookproto.SocketPath(store)
	err := hookproto.Ping(ctx, sock)
	switch {
	case err == nil:
		c.OK, c.Detail = true, "running for "+store+" ("+sock+")"
	case hookproto.IsNoServer(err) || errors.Is(err, os.ErrNotExist):
		c.Info, c.Detail = true, "not running: the next hook starts it (it keeps the store open between prompts and exits when idle)"
	default:
		c.Detail, c.Fix = err.Error(), "see "+filepath.Join(store, hookproto.LogName)
	}
	return c
}
