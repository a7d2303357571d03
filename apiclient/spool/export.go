package spool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Export copies a stored payload into dir; see ExportContext.
func (s *Store) Export(st *Stored, dir string) (string, error) {
	return s.ExportContext(context.Background(), st, dir)
}

// ExportContext copies a stored payload into dir (created 0700 if
// missing) as <safe id>.edi, durably: temp file, fsync, rename, directory
// fsync. It is a copy, not a link, so editing the exported file can never
// change the spool's verified copy. Exporting the same bytes again is a
// no-op; a different file already at the target is left alone and
// reported. A target name that is not a regular file (a symlink, FIFO,
// device, directory) is refused without opening it: b2bx never writes
// through a link or reads from a pipe. The file is owner-only (0600), like
// everything the spool writes. Cancelling ctx stops the copy.
func (s *Store) ExportContext(ctx context.Context, st *Stored, dir string) (string, error) {
	dst, err := exportTarget(dir, st.Meta.DeliveryAttemptID)
	if err != nil {
		return "", err
	}
	switch sum, _, err := hashFileContext(ctx, dst); {
	case err == nil && sum == st.Meta.SHA256:
		return dst, nil
	case err == nil:
		return "", fmt.Errorf("export: %s already exists with other content; move it away or choose another --out directory", dst)
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("export: %w", err)
	}
	src, err := OpenRegular(st.Path, false)
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
	n, err := io.Copy(io.MultiWriter(tmp, h), ContextReader(ctx, src))
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
	// rename replaces the name itself: it never follows a symlink that
	// appeared there meanwhile.
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	ok = true
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	return dst, nil
}

// CheckExport tells, before anything is claimed, whether ExportContext
// could write the delivery's file into dir: dir is (or can be created as)
// a directory a file can be created in, and the target name is free or a
// regular file. Content is compared only by the export itself.
func (s *Store) CheckExport(dir, deliveryAttemptID string) error {
	if _, err := exportTarget(dir, deliveryAttemptID); err != nil {
		return err
	}
	f, err := createTemp(dir, "export-check")
	if err != nil {
		return fmt.Errorf("export: cannot create a file in %s: %w; fix its permissions or choose another --out directory", dir, err)
	}
	_ = f.Close()
	return os.Remove(f.Name())
}

// exportTarget creates dir and returns the target path, refusing a target
// name that exists as anything but a regular file.
func exportTarget(dir, deliveryAttemptID string) (string, error) {
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return "", fmt.Errorf("export: create %s: %w; choose another --out directory", dir, err)
	}
	dst := filepath.Join(dir, payloadName(deliveryAttemptID))
	info, err := os.Lstat(dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return dst, nil
	case err != nil:
		return "", fmt.Errorf("export: %w", err)
	case !info.Mode().IsRegular():
		return "", fmt.Errorf("export: %w; b2bx writes only regular files and never through a link: move it away or choose another --out directory", notRegular(dst, info.Mode()))
	}
	return dst, nil
}
