//go:build !unix

package orders

import "io/fs"

// linkCount is 1 where hard links are not counted.
func linkCount(fs.FileInfo) uint64 { return 1 }
