package edi

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"
)

// hugeThreshold is the buffer size from which huge pages are requested.
const hugeThreshold = 4 << 20

// ReadFile reads a whole file like os.ReadFile, but for large files it
// allocates the buffer with a huge-page hint (see adviseHugePages): loading
// a 16 MiB payload then costs a few page faults instead of 4096. Files of
// 4 GiB or more are refused with ErrTooLarge before anything is read.
func ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, name)
}

// readOpen reads the open file f to its end (see ReadFile).
func readOpen(f *os.File, name string) ([]byte, error) {
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if checkSize(uint64(fi.Size())) != nil {
			return nil, fmt.Errorf("%s: %w", name, ErrTooLarge)
		}
		size = int(fi.Size())
	}
	var buf []byte // with 512 bytes of slack: the file may grow while we read
	if size >= hugeThreshold {
		raw := make([]byte, 0, size+512+hugeSlack)
		k := hugeAlign(unsafe.Pointer(unsafe.SliceData(raw)), 1, uintptr(cap(raw)))
		buf = raw[k : k : cap(raw)-hugeSlack+k]
		adviseHugePages(unsafe.Pointer(unsafe.SliceData(buf)), uintptr(cap(buf)))
	} else {
		buf = make([]byte, 0, size+512)
	}
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			if checkSize(uint64(len(buf))) != nil {
				return nil, fmt.Errorf("%s: %w", name, ErrTooLarge)
			}
			buf = append(buf, 0)[:len(buf)]
		}
	}
}
