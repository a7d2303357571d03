package common

// Fill pads lines with empty ones, or cuts them, to exactly n, so a pane
// keeps its height whatever it holds.
func Fill(lines []string, n int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}
