package edi

import (
	"syscall"
	"unsafe"
)

const (
	hugePage     = 2 << 20
	madvHugePage = 14 // MADV_HUGEPAGE
)

// hugeAlign returns how many elements of size elem to skip at p so that
// the rest starts on a 2 MiB boundary (0 for small buffers).
func hugeAlign(p unsafe.Pointer, elem, n uintptr) int {
	if n*elem < hugeThreshold {
		return 0
	}
	start := uintptr(p)
	return int(((start+hugePage-1)&^(hugePage-1) - start) / elem)
}

// hugeSlack is the extra capacity (in bytes) to allocate so that a buffer
// can start on a 2 MiB boundary (hugeAlign). The skipped head is never
// touched, so it costs address space, not memory.
const hugeSlack = hugePage

// adviseHugePages asks Linux to back the 2 MiB-aligned interior of [p,
// p+n) with transparent huge pages (when THP is in "madvise" mode). Fresh
// memory is then faulted in 2 MiB at a time: on virtual machines where a
// 4 KiB page fault costs ~15 µs this takes a 16 MiB file plus its index
// from ~100 ms of page faults to a few ms. It is only a hint; errors are
// ignored and the memory stays ordinary Go heap memory.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	if n < hugeThreshold {
		return
	}
	start := uintptr(p)
	a := (start + hugePage - 1) &^ (hugePage - 1)
	// Rounding the end up is harmless: past n lies free or other heap
	// memory, for which the advice is only a hint.
	e := (start + n + hugePage - 1) &^ (hugePage - 1)
	if e > a {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, a, e-a, madvHugePage)
	}
}
