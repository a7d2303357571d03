package main

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// errByteSize: a size flag's value is not a positive whole number of
// bytes with an optional unit.
var errByteSize = errors.New("not a size")

// parseByteSize reads a size such as "1048576", "512KiB", "16MiB" or
// "2GiB" (KB/MB/GB and K/M/G are taken as the same binary units, B as
// bytes). Every size flag (--max-input, --throttle) reads its value with
// it and says itself what it takes.
func parseByteSize(s string) (int64, error) {
	num, unit := s, int64(1)
	for _, u := range []struct {
		suffixes []string
		size     int64
	}{{[]string{"GiB", "GB", "G"}, 1 << 30}, {[]string{"MiB", "MB", "M"}, 1 << 20}, {[]string{"KiB", "KB", "K"}, 1 << 10}, {[]string{"B"}, 1}} {
		for _, suf := range u.suffixes {
			if rest, ok := strings.CutSuffix(s, suf); ok && rest != "" {
				num, unit = rest, u.size
				break
			}
		}
		if num != s {
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/unit {
		return 0, errByteSize
	}
	return n * unit, nil
}
