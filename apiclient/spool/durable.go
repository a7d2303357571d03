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
	"sync/atomic"
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

// syncCounts counts the fsyncs of files and of directories the store
// made (see Syncs).
var syncCounts struct{ files, dirs atomic.Int64 }

// SyncCounts are the fsyncs a process's stores made so far: of files
// (payloads, sidecars, histories) and of directories. For benchmarks and
// tests that show what one stored delivery costs.
type SyncCounts struct{ Files, Dirs int64 }

// Syncs returns the fsyncs made so far.
func Syncs() SyncCounts {
	return SyncCounts{Files: syncCounts.files.Load(), Dirs: syncCounts.dirs.Load()}
}

// fsyncFile fsyncs f and counts it.
func fsyncFile(f *os.File) error {
	syncCounts.files.Add(1)
	return f.Sync()
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
	syncCounts.dirs.Add(1)
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
	if err := fsyncFile(f); err != nil {
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
