package common

import (
	"os"
	"path/filepath"
	"strings"
)

// ExpandHome turns a leading "~" or "~/" into the home directory, as a
// shell would for `:upload ~/orders/po.edi`; anything else, or a home
// that cannot be found, is returned unchanged.
func ExpandHome(path string) string {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path
	}
	return filepath.Join(home, path[1:])
}
