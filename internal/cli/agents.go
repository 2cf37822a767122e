package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/odekmem/odekmem/internal/agenthook"
	"github.com/odekmem/odekmem/internal/mcpserver"
)

// The verbs that connect odekmem to other agents (MCP server, hooks,
// setup, the long-lived serve process). The logic lives in
// internal/mcpserver, internal/agenthook and internal/agentsetup.

func init() {
	register(&command{name: "mcp", summary: "serve the memory to an agent over MCP (stdio, or --http ADDR)",
		flags: flagSpec{"http": true, "allow-remote": false, "token-file": true, "project": true},
		flagHelp: map[string]string{
			"http":         "serve streamable HTTP on ADDR (loopback unless --allow-remote) instead of stdio",
			"allow-remote": "accept non-loopback clients (needs a bearer token)",
			"token-file":   "read the bearer token from FILE (else $ODEKMEM_MCP_TOKEN)",
			"project":      "project the session belongs to (default: the working directory's project root)",
		},
		about: `Tools: search_memories, recall, remember, forget, list_quarantine, list_pending, search_quarantine.
			What the agent remembers is trusted only when it is the person's own words; anything else is
			quarantined. The server cannot promote, confirm, unpin or edit the user model.`,
		examples: []string{"odekmem mcp", "odekmem mcp --http 127.0.0.1:8765"},
		run:      cmdMCP, store: writesStore, group: "Agent", jsonOut: true})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func cmdMCP(c *ctx) error {
	if len(c.p.pos) > 0 {
		return usagef("mcp takes no arguments (got %q)", c.p.pos[0])
	}
	project := c.p.flags["project"]
	if project == "" {
		wd, _ := os.Getwd()
		project = agenthook.ProjectRoot(wd)
	} else {
		project = agenthook.ProjectRoot(project)
	}
	srv := mcpserver.New(c.store, mcpserver.Options{Project: project, Version: Version})
	addr := c.p.flags["http"]
	if addr == "" {
		if c.p.bools["allow-remote"] || c.p.flags["token-file"] != "" {
			return usagef("--allow-remote and --token-file need --http ADDR")
		}
		t := &mcp.IOTransport{Reader: io.NopCloser(c.env.Stdin), Writer: nopWriteCloser{c.env.Stdout}}
		err := srv.MCP().Run(c, t)
		if err != nil && (c.Err() != nil || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")) {
			return nil // the client went away
		}
		return err
	}
	token := strings.TrimSpace(c.env.Getenv("ODEKMEM_MCP_TOKEN"))
	if f := c.p.flags["token-file"]; f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("--token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return fmt.Errorf("--token-file %s is empty", f)
		}
	}
	o := mcpserver.HTTPOptions{Addr: addr, AllowRemote: c.p.bools["allow-remote"], Token: token,
		Ready: func(a string) { fmt.Fprintf(c.env.Stderr, "odekmem: MCP server listening on http://%s/\n", a) }}
	if err := mcpserver.CheckHTTP(o); err != nil {
		return usagef("%s", err.Error())
	}
	return srv.ServeHTTP(c, o)
}
