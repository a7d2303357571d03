//go:build !linux

package orders

// descendants is unknown here: only the editor's own process is stopped.
func descendants(int) []int { return nil }
