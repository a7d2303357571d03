//go:build unix

package orders

import (
	"io/fs"
	"syscall"
)

// linkCount is the number of hard links of the file info describes (1
// where the system does not say).
func linkCount(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
