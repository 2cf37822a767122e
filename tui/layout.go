package tui

// Layout numbers live here and nowhere else.
const (
	headerRows = 1 // title bar
	tabRows    = 1 // pane tabs
	statusRows = 1 // status line or y/N prompt
	helpRows   = 1 // short help
	minWidth   = 40
	minHeight  = 10
)

// bodySize is the size every pane gets, given the terminal size and the
// number of extra help lines shown (full help).
func bodySize(w, h, extraHelp int) (int, int) {
	bh := h - headerRows - tabRows - statusRows - helpRows - extraHelp
	if bh < 3 {
		bh = 3
	}
	if w < 20 {
		w = 20
	}
	return w, bh
}

// maxBannerProblems is how many problems the damage banner lists before
// "… N more".
const maxBannerProblems = 3
