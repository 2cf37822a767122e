package mcpserver

// Test-only access for the black-box tests in package mcpserver_test.

// SessionsKept is how many MCP sessions the server keeps state for.
func (s *Server) SessionsKept() int { return s.sessions.len() }

// SetMaxSessions lowers the bound on per-session state and returns the
// function that restores it.
func SetMaxSessions(n int) (restore func()) {
	old := maxSessions
	maxSessions = n
	return func() { maxSessions = old }
}
