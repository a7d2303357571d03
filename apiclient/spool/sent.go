package spool

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Sent copies: the bytes of every upload, kept under the connection by
// their SHA-256 so an answer can be compared with what was really sent
// (an ORDRSP against its ORDERS) even after the original file changed or
// moved:
//
//	<root>/<connection>/sent/<sha256>.edi
//
// Identical bytes are kept once. The history's SHA256 field names the
// copy of each upload.

func (s *Store) sentDir(connectionID string) string {
	return filepath.Join(s.connDir(connectionID), "sent")
}

// sentName is the copy's file name; the hash must be 64 hex digits (it
// becomes a file name).
func sentName(sha string) (string, error) {
	if len(sha) != sha256.Size*2 {
		return "", fmt.Errorf("spool: sent copy: %q is not a SHA-256 in hex", sha)
	}
	if _, err := hex.DecodeString(sha); err != nil {
		return "", fmt.Errorf("spool: sent copy: %q is not a SHA-256 in hex", sha)
	}
	return string(bytes.ToLower([]byte(sha))) + ".edi", nil
}

// KeepSent stores data, the bytes of an upload of the connection, durably
// (temp file, fsync, rename, directory fsync) and returns the copy's
// path. Bytes already kept are not written again. The SHA-256 is computed
// here, so a copy's name always matches its content.
func (s *Store) KeepSent(connectionID string, data []byte) (string, error) {
	if connectionID == "" {
		return "", errors.New("spool: sent copy without connection ID")
	}
	sum := sha256.Sum256(data)
	name, _ := sentName(hex.EncodeToString(sum[:]))
	dir := s.sentDir(connectionID)
	path := filepath.Join(dir, name)
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		return path, nil
	}
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return "", fmt.Errorf("spool: create %s: %w", dir, err)
	}
	if err := writeFileDurable(dir, name, data); err != nil {
		return "", fmt.Errorf("spool: keep the sent bytes: %w", err)
	}
	return path, nil
}

// SentPath returns the path of the kept copy of the bytes with SHA-256
// sha (lower- or upper-case hex); errors.Is ErrNotFound when none is
// kept (uploads made before b2bx kept copies).
func (s *Store) SentPath(connectionID, sha string) (string, error) {
	name, err := sentName(sha)
	if err != nil {
		return "", err
	}
	path := filepath.Join(s.sentDir(connectionID), name)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%w: no kept copy of the upload %s", ErrNotFound, sha)
	case err != nil:
		return "", fmt.Errorf("spool: sent copy: %w", err)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("spool: sent copy %s is not a regular file", path)
	}
	return path, nil
}
