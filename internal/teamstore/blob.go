package teamstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// blobChunk is the most bytes one blob_chunks row holds. A value this
// size binds and compresses in a few milliseconds; one row of 16 MiB
// cost the server 4–6× what four of these do.
const blobChunk = 4 << 20

// putBlob stores data under its SHA-256 once: the first push of those
// bytes writes their chunks, every later one (or one racing it, which
// waits for the first's commit on the primary key) writes nothing.
func putBlob(ctx context.Context, tx *sql.Tx, sha string, data []byte) error {
	first := data[:min(len(data), blobChunk)]
	// one statement for the record and its first chunk (a small payload's
	// only one): the chunk is written only when the record is new
	res, err := tx.ExecContext(ctx, `WITH b AS (INSERT INTO blobs (sha256, size) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING RETURNING sha256)
		INSERT INTO blob_chunks (sha256, n, data) SELECT sha256, 0, $3 FROM b`, sha, len(data), first)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	for n := 1; n*blobChunk < len(data); n++ {
		chunk := data[n*blobChunk : min(len(data), (n+1)*blobChunk)]
		if _, err := tx.ExecContext(ctx, `INSERT INTO blob_chunks (sha256, n, data) VALUES ($1, $2, $3)`, sha, n, chunk); err != nil {
			return err
		}
	}
	return nil
}

// queryer is a *sql.DB or a *sql.Tx.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// errNoBlob: no bytes are stored under that SHA-256.
var errNoBlob = errors.New("no such blob")

// readBlob is the bytes stored under sha, its chunks joined in order;
// errNoBlob when there are none, an error when the chunks do not add up
// to the size recorded (the caller checks the SHA-256).
func readBlob(ctx context.Context, q queryer, sha string) ([]byte, error) {
	var size int64
	if err := q.QueryRowContext(ctx, `SELECT size FROM blobs WHERE sha256 = $1`, sha).Scan(&size); errors.Is(err, sql.ErrNoRows) {
		return nil, errNoBlob
	} else if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT n, data FROM blob_chunks WHERE sha256 = $1 ORDER BY n`, sha)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]byte, 0, max(0, min(size, 1<<30)))
	next := 0
	for rows.Next() {
		var n int
		var chunk []byte // a fresh slice each row: the driver's buffer is reused
		if err := rows.Scan(&n, &chunk); err != nil {
			return nil, err
		}
		if n != next {
			return nil, fmt.Errorf("%w: the bytes with SHA-256 %s miss chunk %d", ErrMismatch, sha, next)
		}
		next++
		out = append(out, chunk...)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if int64(len(out)) != size {
		return nil, fmt.Errorf("%w: the bytes with SHA-256 %s are %d of the %d recorded", ErrMismatch, sha, len(out), size)
	}
	return out, nil
}
