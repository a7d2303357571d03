package orders

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nutrab2b/b2bx/apiclient/spool"
	"github.com/nutrab2b/b2bx/edi"
	"github.com/nutrab2b/b2bx/edi/orderdiff"
	"github.com/nutrab2b/b2bx/internal/termsafe"
)

// ErrSentUnknown: the bytes of an upload are neither kept in the spool
// nor in the file it was sent from.
var ErrSentUnknown = errors.New("the bytes of this upload are not kept")

// SentFile returns a local file holding exactly the bytes of upload rec:
// the spool's copy (spool.KeepSent), else the file it was sent from when
// it still has the same SHA-256 (uploads made before copies were kept).
// Otherwise the error wraps ErrSentUnknown and says what to do.
func SentFile(store *spool.Store, rec spool.UploadRecord) (string, error) {
	return SentFileContext(context.Background(), store, rec)
}

// SentFileContext is SentFile that stops when ctx is done; the file an
// upload was sent from is read only when it is a regular file of at most
// MaxSize (it may have been replaced by anything since).
func SentFileContext(ctx context.Context, store *spool.Store, rec spool.UploadRecord) (string, error) {
	path, err := store.SentPath(rec.ConnectionID, rec.SHA256)
	if err == nil {
		return path, nil
	}
	if !errors.Is(err, spool.ErrNotFound) {
		return "", err
	}
	if rec.File != "" {
		if fi, serr := os.Stat(rec.File); serr != nil || !fi.Mode().IsRegular() {
			// gone, or no longer a file (a FIFO would block the read)
		} else if f, rerr := edi.OpenFileContext(ctx, rec.File, MaxSize); rerr == nil {
			same := false
			_ = edi.Guard(f.Bytes(), func() error {
				sum := sha256.Sum256(f.Bytes())
				same = strings.EqualFold(hex.EncodeToString(sum[:]), rec.SHA256)
				return nil
			})
			_ = f.Close()
			if same {
				return rec.File, nil
			}
		}
	}
	return "", fmt.Errorf("%w: key %s was sent before b2bx kept copies, and %s no longer holds those bytes: "+
		"compare with the file you sent using b2bx diff ORDERS ORDRSP", ErrSentUnknown, termsafe.String(rec.Key), termsafe.String(rec.File))
}

// CompareAnswer diffs the ORDRSP stored at ordrspPath against the ORDERS
// of upload rec (SentFile): per line what the partner changed. The diffs
// hold copies; both files are closed when it returns.
func CompareAnswer(ctx context.Context, store *spool.Store, rec spool.UploadRecord, ordrspPath string) ([]*orderdiff.Diff, error) {
	ordersPath, err := SentFileContext(ctx, store, rec)
	if err != nil {
		return nil, err
	}
	return ComparePaths(ctx, ordersPath, ordrspPath)
}

// ComparePaths diffs the ORDRSP at ordrspPath against the ORDERS at
// ordersPath (a timeline's step names both files). The diffs hold
// copies; both files are closed when it returns.
func ComparePaths(ctx context.Context, ordersPath, ordrspPath string) ([]*orderdiff.Diff, error) {
	var diffs []*orderdiff.Diff
	err := withDocument(ctx, ordersPath, func(orders *edi.Document) error {
		return withDocument(ctx, ordrspPath, func(rsp *edi.Document) (err error) {
			diffs, err = orderdiff.Documents(orders, rsp)
			return err
		})
	})
	return diffs, err
}

// withDocument parses the named file and runs fn on it inside edi.Guard
// (a mapped file shortened meanwhile is an error, not a crash).
func withDocument(ctx context.Context, path string, fn func(*edi.Document) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := edi.OpenFileContext(ctx, path, MaxSize)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", termsafe.String(path), err)
	}
	defer f.Close()
	data := f.Bytes()
	return edi.Guard(data, func() error {
		doc, err := edi.ParseContext(ctx, data, edi.Options{})
		if err != nil {
			return fmt.Errorf("%s: %w", termsafe.String(path), err)
		}
		return fn(doc)
	})
}
