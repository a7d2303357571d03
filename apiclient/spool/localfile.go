package spool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular matches an error about a path that is not a regular file
// (a FIFO, device, socket, directory or — where links are not followed —
// a symlink). b2bx never reads from or writes through such a path: a FIFO
// or /dev/zero would block it or feed it forever.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens path for reading only if it is a regular file,
// without ever blocking: a FIFO, device, socket or directory is refused
// before and after opening (a file swapped in between is caught by the
// second check). With follow false a symlink at path is refused too;
// with follow true it is followed to a regular file.
func OpenRegular(path string, follow bool) (*os.File, error) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	info, err := stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(path, info.Mode())
	}
	f, err := os.OpenFile(path, openFlags(!follow), 0)
	if err != nil {
		return nil, err
	}
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		_ = f.Close()
		if err == nil {
			err = notRegular(path, info.Mode())
		}
		return nil, err
	}
	return f, nil
}

// notRegular names what path is instead of a regular file.
func notRegular(path string, m fs.FileMode) error {
	what := "a special file"
	switch {
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO (named pipe)"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		what = "a device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m.IsDir():
		what = "a directory"
	}
	return fmt.Errorf("%s is %s: %w", path, what, ErrNotRegular)
}

// ContextReader returns r whose reads fail with ctx's error once ctx is
// done, so a long local read stops on Ctrl-C between chunks.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
