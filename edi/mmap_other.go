//go:build !linux

package edi

import (
	"errors"
	"os"
)

// mapFile is only implemented for Linux; elsewhere OpenFile reads files.
func mapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) error { return nil }
