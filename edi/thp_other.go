//go:build !linux

package edi

import "unsafe"

// adviseHugePages is a no-op outside Linux.
func adviseHugePages(unsafe.Pointer, uintptr) {}

const hugeSlack = 0

func hugeAlign(unsafe.Pointer, uintptr, uintptr) int { return 0 }
