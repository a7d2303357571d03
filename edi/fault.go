package edi

import (
	"errors"
	"runtime/debug"
	"unsafe"
)

// ErrFileChanged is returned when the input became unreadable while it was
// read: a memory-mapped file (OpenFile) was truncated by another program,
// so reading the lost part faulted. Nothing that was derived from the
// file can be trusted; parse it again once the writer has finished.
var ErrFileChanged = errors.New("the file changed while it was being read (another program shortened it); parse it again once it is complete")

// Guard runs fn so that a memory fault inside data, which is what reading
// a truncated memory mapping causes (SIGBUS), returns ErrFileChanged
// instead of crashing the program. Other panics, and faults at other
// addresses, are not touched. Parse guards itself and its goroutines;
// callers guard their own reading of a mapped File's bytes, for example
// printing segments, with Guard(file.Bytes(), ...).
func Guard(data []byte, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer recoverFault(data, &err)
	return fn()
}

// recoverFault, deferred, turns a panic caused by a fault inside data into
// ErrFileChanged in *err and lets every other panic continue.
func recoverFault(data []byte, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if isFaultIn(r, data) {
		*err = ErrFileChanged
		return
	}
	panic(r)
}

// goGuarded runs fn on a new goroutine with the same fault handling as
// Guard (the setting is per goroutine) and returns a channel that receives
// its result once.
func goGuarded(data []byte, fn func() error) <-chan error {
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		err = Guard(data, fn)
	}()
	return done
}

// isFaultIn reports whether the recovered value r is the runtime's memory
// fault error (it carries the faulting address) for an address inside
// data's backing array.
func isFaultIn(r any, data []byte) bool {
	fault, ok := r.(interface {
		error
		Addr() uintptr
	})
	if !ok || cap(data) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	addr := fault.Addr()
	return addr >= start && addr-start < uintptr(cap(data))
}
