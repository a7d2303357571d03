package teamstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
)

// blobChunk is the most bytes one blob_chunks row holds. A value this
// size binds and compresses in a few milliseconds; one row of 16 MiB
// cost the server 4–6× what four of these do.
const blobChunk = 4 << 20

// The codecs of a blob_chunks row: its data is the bytes themselves, or
// one Zstandard frame of them. b2bx compresses, not the server (team
// schema 3): sending and writing 16 MiB was most of a big push (this
// server takes in about 75 MB/s of TOAST), and Zstandard's fastest level
// makes EDIFACT many times smaller at over 500 MB/s on one core
// (BENCHMARKS.md, "A 16 MiB payload pushed…").
const (
	codecRaw  = 0
	codecZstd = 1
)

// encoders is how many chunks of one payload are encoded at once
// (encode), and how many EncodeAll calls the shared encoder runs at a
// time (it makes the others wait: with 1, as until 2026-12-07, the
// chunks of a push were encoded one after the other whatever goroutine
// asked). Two at least: the push checks the payload's SHA-256 beside them.
var encoders = min(4, max(2, runtime.GOMAXPROCS(0)))

// zstdEncoder and zstdDecoder are shared: EncodeAll and DecodeAll may be
// called from any number of goroutines (see encoders). A decoded chunk
// may not exceed blobChunk, whatever its frame header claims.
var (
	zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(encoders), zstd.WithLowerEncoderMem(true))
		if err != nil {
			panic(err) // only for invalid options
		}
		return e
	})
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(blobChunk), zstd.WithDecoderLowmem(true))
		if err != nil {
			panic(err) // only for invalid options
		}
		return d
	})
)

// storedChunk is a chunk as it is stored.
type storedChunk struct {
	codec int
	data  []byte
}

// encodeChunk is a chunk as it is stored: Zstandard when that saves at
// least an eighth, else the bytes as they are (already compressed or
// random payloads are not made bigger).
func encodeChunk(raw []byte) storedChunk {
	enc := zstdEncoder().EncodeAll(raw, make([]byte, 0, len(raw)/4))
	if len(enc) > len(raw)-len(raw)/8 {
		return storedChunk{codecRaw, raw}
	}
	return storedChunk{codecZstd, enc}
}

// decodeChunk is the bytes of a stored chunk appended to out; a chunk
// that decodes to more than blobChunk bytes, or more than want in all,
// is refused.
func decodeChunk(out []byte, c storedChunk, want int64, sha string, n int) ([]byte, error) {
	switch c.codec {
	case codecRaw:
		out = append(out, c.data...)
	case codecZstd:
		// decoded into out's spare room (the decoder's limit counts what
		// dst holds already: it is handed none)
		dec, err := zstdDecoder().DecodeAll(c.data, out[len(out):])
		if err != nil {
			return nil, fmt.Errorf("%w: the bytes with SHA-256 %s have a chunk %d that does not decode (Zstandard, %d bytes): %w", ErrMismatch, sha, n, len(c.data), err)
		}
		out = append(out, dec...) // in place when dec is out's spare room
	default:
		return nil, fmt.Errorf("%w: the bytes with SHA-256 %s have a chunk %d of codec %d, which this b2bx does not know", ErrMismatch, sha, n, c.codec)
	}
	if int64(len(out)) > want {
		return nil, fmt.Errorf("%w: the bytes with SHA-256 %s are more than the %d recorded", ErrMismatch, sha, want)
	}
	return out, nil
}

// encoding is a payload's chunks as they are encoded: a payload of one
// chunk when it is taken, a bigger one by encoders goroutines that start
// the chunks in order.
type encoding struct {
	data    []byte
	chunks  []chan storedChunk // nil: one chunk
	next    atomic.Int64       // the next chunk to start
	stopped atomic.Bool
	wg      sync.WaitGroup
}

// encode starts encoding data's chunks; stop ends it.
func encode(data []byte) *encoding {
	e := &encoding{data: data}
	n := (len(data) + blobChunk - 1) / blobChunk
	if n <= 1 {
		return e
	}
	e.chunks = make([]chan storedChunk, n)
	for i := range e.chunks {
		e.chunks[i] = make(chan storedChunk, 1)
	}
	for range min(encoders, n) {
		e.wg.Go(func() {
			for !e.stopped.Load() {
				i := int(e.next.Add(1) - 1)
				if i >= n {
					return
				}
				e.chunks[i] <- encodeChunk(e.data[i*blobChunk : min(len(e.data), (i+1)*blobChunk)])
			}
		})
	}
	return e
}

// count is how many chunks the payload has (one at least: an empty
// payload is one empty chunk).
func (e *encoding) count() int { return max(1, len(e.chunks)) }

// chunk is chunk i (each taken once).
func (e *encoding) chunk(i int) storedChunk {
	if e.chunks == nil {
		return encodeChunk(e.data)
	}
	return <-e.chunks[i]
}

// stop starts no more chunks and waits for those being encoded.
func (e *encoding) stop() {
	e.stopped.Store(true)
	e.wg.Wait()
}

// putBlob stores data under its SHA-256 once: the first push of those
// bytes writes their chunks, every later one (or one racing it, which
// waits for the first's commit on the primary key) writes nothing. enc
// is data's encoding when the caller started it (nil: started here);
// putBlob stops it.
func putBlob(ctx context.Context, tx *sql.Tx, sha string, data []byte, enc *encoding) error {
	if enc == nil {
		enc = encode(data)
	}
	defer enc.stop() // the bytes were there already, or an insert failed: the rest is not encoded
	first := enc.chunk(0)
	// one statement for the record and its first chunk (a small payload's
	// only one): the chunk is written only when the record is new
	res, err := tx.ExecContext(ctx, `WITH b AS (INSERT INTO blobs (sha256, size) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING RETURNING sha256)
		INSERT INTO blob_chunks (sha256, n, codec, data) SELECT sha256, 0, $3, $4 FROM b`, sha, len(data), first.codec, first.data)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	for i := 1; i < enc.count(); i++ {
		chunk := enc.chunk(i)
		if _, err := tx.ExecContext(ctx, `INSERT INTO blob_chunks (sha256, n, codec, data) VALUES ($1, $2, $3, $4)`, sha, i, chunk.codec, chunk.data); err != nil {
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

// readBlob is the bytes stored under sha, its chunks decoded and joined
// in order; errNoBlob when there are none, an error when the chunks do
// not add up to the size recorded (the caller checks the SHA-256).
func readBlob(ctx context.Context, q queryer, sha string) ([]byte, error) {
	var size int64
	if err := q.QueryRowContext(ctx, `SELECT size FROM blobs WHERE sha256 = $1`, sha).Scan(&size); errors.Is(err, sql.ErrNoRows) {
		return nil, errNoBlob
	} else if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `SELECT n, codec, data FROM blob_chunks WHERE sha256 = $1 ORDER BY n`, sha)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]byte, 0, max(0, min(size, 1<<30)))
	next := 0
	for rows.Next() {
		var n int
		var c storedChunk
		var data sql.RawBytes // decoded or copied into out before the next row
		if err := rows.Scan(&n, &c.codec, &data); err != nil {
			return nil, err
		}
		if n != next {
			return nil, fmt.Errorf("%w: the bytes with SHA-256 %s miss chunk %d", ErrMismatch, sha, next)
		}
		next++
		c.data = data
		if out, err = decodeChunk(out, c, size, sha, n); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if int64(len(out)) != size {
		return nil, fmt.Errorf("%w: the bytes with SHA-256 %s are %d of the %d recorded", ErrMismatch, sha, len(out), size)
	}
	return out, nil
}
