package spool

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

const tempPrefix = ".tmp-"

func isTempName(name string) bool { return strings.HasPrefix(name, tempPrefix) }

// createTemp creates a new, empty, owner-only file in dir with a random
// name. O_EXCL guarantees two writers (goroutines or processes) never
// share a temp file.
func createTemp(dir, hint string) (*os.File, error) {
	for range 10 {
		var b [12]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, tempPrefix+hint+"-"+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, filePerm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, errors.New("spool: could not create a unique temp file")
}

// syncDir fsyncs a directory so a rename in it survives a crash. Windows
// cannot open directories for sync; its rename is already journaled, so the
// step is skipped there.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fsync directory %s: %w", dir, err)
	}
	return nil
}

// writeFileDurable replaces dir/name with data: temp file, fsync, rename,
// directory fsync. Readers see the old or the new content, never a mix.
func writeFileDurable(dir, name string, data []byte) error {
	f, err := createTemp(dir, "meta")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return err
	}
	ok = true
	return syncDir(dir)
}
