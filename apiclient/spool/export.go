package spool

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Export copies a stored payload into dir (created 0700 if missing) as
// <safe id>.edi, durably: temp file, fsync, rename, directory fsync. It is
// a copy, not a link, so editing the exported file can never change the
// spool's verified copy. Exporting the same bytes again is a no-op; a
// different file already at the target is left alone and reported. The
// file is owner-only (0600), like everything the spool writes.
func (s *Store) Export(st *Stored, dir string) (string, error) {
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return "", fmt.Errorf("export: create %s: %w", dir, err)
	}
	dst := filepath.Join(dir, payloadName(st.Meta.DeliveryAttemptID))
	switch sum, _, err := hashFile(dst); {
	case err == nil && sum == st.Meta.SHA256:
		return dst, nil
	case err == nil:
		return "", fmt.Errorf("export: %s already exists with other content; move it away or choose another --out directory", dst)
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("export: %w", err)
	}
	src, err := os.Open(st.Path)
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	defer src.Close()
	tmp, err := createTemp(dir, "export")
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	h := newHasher()
	n, err := io.Copy(io.MultiWriter(tmp, h), src)
	if err != nil {
		return "", fmt.Errorf("export: copy: %w", err)
	}
	// The spool copy is re-hashed on the way out, so an export is as
	// verified as the download was.
	if got := h.sum(); n != st.Meta.Size || got != st.Meta.SHA256 {
		return "", fmt.Errorf("export: the stored copy %s no longer matches its recorded sha256 (%d bytes, %s); fetch the delivery again", st.Path, n, got)
	}
	if err := tmp.Sync(); err != nil {
		return "", fmt.Errorf("export: fsync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	ok = true
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	return dst, nil
}
