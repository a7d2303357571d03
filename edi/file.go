package edi

import (
	"fmt"
	"os"
)

// mapMin is the file size from which OpenFile maps a file instead of
// reading it: below it the mapping's system calls cost more than copying.
const mapMin = 256 << 10

// File is the contents of a file opened for parsing. Large regular files
// are memory-mapped read-only: no copy, no fresh memory to fault in, and
// the kernel's page cache is read directly. Other files are read into
// memory (ReadFile).
//
// A mapping reflects the file: if another program shortens the file while
// it is mapped, reading the lost part faults. Parse turns that into
// ErrFileChanged; wrap any other reading of Bytes (and of a Document over
// them) in Guard. Close unmaps the file, so nothing that references Bytes
// — a Document, a Segment's values — may be used after Close.
type File struct {
	data   []byte
	mapped bool
}

// OpenFile returns the contents of the named file, mapped when it is a
// regular file of at least mapMin bytes and the system can map it, else
// read. Files of 4 GiB or more are refused with ErrTooLarge.
func OpenFile(name string) (*File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() >= mapMin {
		if checkSize(uint64(fi.Size())) != nil {
			return nil, fmt.Errorf("%s: %w", name, ErrTooLarge)
		}
		if data, err := mapFile(f, int(fi.Size())); err == nil {
			return &File{data: data, mapped: true}, nil
		}
		// Not mappable (some network or special file systems): read it.
	}
	data, err := readOpen(f, name)
	if err != nil {
		return nil, err
	}
	return &File{data: data}, nil
}

// Bytes returns the file's contents; they must not be modified, and not
// used after Close.
func (f *File) Bytes() []byte { return f.data }

// Mapped reports whether the contents are a memory mapping of the file.
func (f *File) Mapped() bool { return f.mapped }

// Close releases the contents (unmaps a mapped file). It is safe to call
// more than once.
func (f *File) Close() error {
	data := f.data
	f.data = nil
	if !f.mapped || data == nil {
		return nil
	}
	f.mapped = false
	return unmapFile(data)
}
