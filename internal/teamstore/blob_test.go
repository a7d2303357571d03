package teamstore

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/nutrab2b/b2bx/internal/outbox"
	"github.com/nutrab2b/b2bx/internal/testshared/pgtest"
	"github.com/nutrab2b/b2bx/internal/track"
)

// A payload over one chunk is stored as several rows and read back as
// the same bytes; its index items are the pushed delivery's (parsed
// beside the insert); a second push of it writes no chunk again.
func TestBigPayloadIsChunkedAndReadBackWhole(t *testing.T) {
	s, _ := newStore(t, alice)
	data := bigOrdrsp(7, 2*blobChunk+12345)
	require.GreaterOrEqual(t, len(data), parseAheadSize)
	st := delivery("conn-a", "d-big", "ORDRSP", data, t0, false)
	for range 2 {
		require.NoError(t, s.PushDelivery(t.Context(), "conn-a", st, data, alice))
	}
	require.Equal(t, 3, count(t, s, "blob_chunks"), "two full chunks and the rest, once")
	// compressed by b2bx (team schema 3), each chunk far smaller than its bytes
	var codecs, stored int
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT sum(codec), sum(octet_length(data)) FROM blob_chunks WHERE sha256 = $1`, st.Meta.SHA256).Scan(&codecs, &stored))
	require.Equal(t, 3*codecZstd, codecs)
	require.Less(t, stored, len(data)/4)
	got, err := s.Blob(t.Context(), st.Meta.SHA256)
	require.NoError(t, err)
	require.Equal(t, shaHex(data), shaHex(got))
	r := find(t, s, "RSP-7")
	require.Len(t, r.Conversations, 1)
	require.Equal(t, alice, r.Conversations[0].Items[0].By)

	// a chunk gone is a mismatch, not bytes short of their record
	_, err = s.db.ExecContext(t.Context(), `DELETE FROM blob_chunks WHERE sha256 = $1 AND n = 1`, st.Meta.SHA256)
	require.NoError(t, err)
	_, err = s.Blob(t.Context(), st.Meta.SHA256)
	require.ErrorIs(t, err, ErrMismatch)
	require.ErrorContains(t, err, "miss chunk 1")
}

// Bytes Zstandard does not shrink are stored as they are (codec 0, as
// every chunk of team schema 2 was) and read back either way; a chunk of
// an unknown codec, a broken frame, or one that decodes to more than a
// chunk is a mismatch, never bytes handed on.
func TestChunkCodecs(t *testing.T) {
	s, _ := newStore(t, alice)
	noise := make([]byte, blobChunk+100)
	_, err := rand.Read(noise)
	require.NoError(t, err)
	st := delivery("conn-a", "d-noise", "ORDRSP", noise, t0, false)
	require.NoError(t, s.PushDelivery(t.Context(), "conn-a", st, noise, alice))
	var codecs int
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT sum(codec) FROM blob_chunks WHERE sha256 = $1`, st.Meta.SHA256).Scan(&codecs))
	require.Equal(t, 2*codecRaw, codecs, "random bytes are not made bigger")
	got, err := s.Blob(t.Context(), st.Meta.SHA256)
	require.NoError(t, err)
	require.Equal(t, shaHex(noise), shaHex(got))

	data := bigOrdrsp(8, blobChunk+500)
	st = delivery("conn-a", "d-text", "ORDRSP", data, t0, false)
	require.NoError(t, s.PushDelivery(t.Context(), "conn-a", st, data, alice))
	sha := st.Meta.SHA256
	set := func(n, codec int, chunk []byte) {
		_, err := s.db.ExecContext(t.Context(), `UPDATE blob_chunks SET codec = $1, data = $2 WHERE sha256 = $3 AND n = $4`, codec, chunk, sha, n)
		require.NoError(t, err)
	}
	read := func() error { _, err := s.Blob(t.Context(), sha); return err }
	// a chunk written by team schema 2: the bytes themselves
	set(1, codecRaw, data[blobChunk:])
	require.NoError(t, read())
	for _, c := range []struct {
		codec int
		data  []byte
		says  string
	}{
		{7, data[blobChunk:], "chunk 1 of codec 7, which this b2bx does not know"},
		{codecZstd, []byte("not a frame at all"), "chunk 1 that does not decode (Zstandard, 18 bytes)"},
		{codecZstd, zstdEncoder().EncodeAll(make([]byte, blobChunk+1), nil), "chunk 1 that does not decode"},
		{codecZstd, zstdEncoder().EncodeAll(data[blobChunk:blobChunk+400], nil), fmt.Sprintf("are %d of the %d recorded", blobChunk+400, len(data))},
		{codecZstd, zstdEncoder().EncodeAll(make([]byte, len(data)-blobChunk+1), nil), fmt.Sprintf("more than the %d recorded", len(data))},
	} {
		set(1, c.codec, c.data)
		err := read()
		require.ErrorIs(t, err, ErrMismatch, c.says)
		require.ErrorContains(t, err, c.says)
	}
	set(1, codecZstd, zstdEncoder().EncodeAll(data[blobChunk:], nil))
	require.NoError(t, read())
}

// A team store of schema version 1 (bytes in blobs.data) is migrated by
// init: its bytes become chunk 0 and read back unchanged.
func TestInitMovesVersion1BlobsIntoChunks(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, alice)
	stmts := append([]string{}, migrations[0]...)
	stmts = append(stmts, `INSERT INTO team_meta (name, value) VALUES ('schema', '`+SchemaName+`'), ('version', '1')`)
	data := contrl("CTL9", "ICR0009", false)
	sha := shaHex(data)
	stmts = append(stmts, `INSERT INTO blobs (sha256, size, data) VALUES ('`+sha+`', `+strconv.Itoa(len(data))+`, '\x`+hex.EncodeToString(data)+`')`)
	// the engineers' role of the version-1 docs
	group := "b2bx_team_" + shaHex(fmt.Appendf(nil, "%s-%d-%d", t.Name(), os.Getpid(), time.Now().UnixNano()))[:8]
	server := pgtest.Server(t)
	t.Cleanup(func() {
		pgtest.Exec(t, dsn, "DROP OWNED BY "+group)
		pgtest.Exec(t, server, "DROP ROLE IF EXISTS "+group)
	})
	pgtest.Exec(t, server, "CREATE ROLE "+group+" NOLOGIN")
	stmts = append(stmts, `GRANT SELECT, INSERT ON blobs, deliveries, uploads, seen, captures TO `+group)
	pgtest.Exec(t, dsn, stmts...)
	v, err := s.SchemaVersions(t.Context())
	require.NoError(t, err)
	require.Equal(t, 1, v.Team)

	v, err = s.Init(t.Context())
	require.NoError(t, err)
	require.Equal(t, SchemaVersion, v.Team)
	got, err := s.Blob(t.Context(), sha)
	require.NoError(t, err)
	require.Equal(t, data, got)
	var insert, del bool
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT has_table_privilege($1, 'blob_chunks', 'INSERT'), has_table_privilege($1, 'blob_chunks', 'DELETE')`, group).Scan(&insert, &del))
	require.True(t, insert, "the role that stored blobs stores their chunks")
	require.False(t, del)
	// and the next push of the same bytes finds them
	st := delivery("conn-a", "d-old", "CONTRL", data, t0.Add(time.Minute), false)
	require.NoError(t, s.PushDelivery(t.Context(), "conn-a", st, data, alice))
	require.Equal(t, 1, count(t, s, "blob_chunks"))
}

// A team store of schema version 2 (chunks of bytes as they are, no
// codec) is brought to 3 by init: its chunks read back unchanged as
// codec 0, new chunks are compressed, and the server no longer
// compresses the column.
func TestInitAddsTheCodecToVersion2Chunks(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, alice)
	stmts := append(append([]string{}, migrations[0]...), migrations[1]...)
	stmts = append(stmts, `INSERT INTO team_meta (name, value) VALUES ('schema', '`+SchemaName+`'), ('version', '2')`)
	data := bigOrdrsp(9, blobChunk+777)
	sha := shaHex(data)
	stmts = append(stmts, `INSERT INTO blobs (sha256, size) VALUES ('`+sha+`', `+strconv.Itoa(len(data))+`)`,
		`INSERT INTO blob_chunks (sha256, n, data) VALUES ('`+sha+`', 0, '\x`+hex.EncodeToString(data[:blobChunk])+`'), ('`+sha+`', 1, '\x`+hex.EncodeToString(data[blobChunk:])+`')`)
	pgtest.Exec(t, dsn, stmts...)
	_, err := Open(t.Context(), Config{URL: dsn, By: alice})
	require.ErrorIs(t, err, track.ErrNoSchema, "a version-2 store is refused until init")

	v, err := s.Init(t.Context())
	require.NoError(t, err)
	require.Equal(t, SchemaVersion, v.Team)
	got, err := s.Blob(t.Context(), sha)
	require.NoError(t, err)
	require.Equal(t, sha, shaHex(got))
	var storage string
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'blob_chunks'::regclass AND attname = 'data'`).Scan(&storage))
	require.Equal(t, "e", storage, "STORAGE EXTERNAL: the server stores b2bx's frames as they come")

	next := bigOrdrsp(10, blobChunk/2)
	st := delivery("conn-a", "d-new", "ORDRSP", next, t0, false)
	require.NoError(t, s.PushDelivery(t.Context(), "conn-a", st, next, alice))
	var codec int
	require.NoError(t, s.db.QueryRowContext(t.Context(), `SELECT codec FROM blob_chunks WHERE sha256 = $1`, st.Meta.SHA256).Scan(&codec))
	require.Equal(t, codecZstd, codec)
}

// encode yields every chunk of a payload in order, whatever its size; a
// push that stops after the first chunk (its bytes were there already)
// leaves no encoder running.
func TestEncodeChunksInOrder(t *testing.T) {
	noise := make([]byte, blobChunk/2)
	_, err := rand.Read(noise)
	require.NoError(t, err)
	text := bigOrdrsp(3, 4*blobChunk)
	mixed := append(append(append([]byte(nil), text[:2*blobChunk]...), noise...), text[:blobChunk+3]...)
	for _, data := range [][]byte{nil, []byte("UNA:+.? '"), text[:blobChunk], text[:blobChunk+1], mixed} {
		enc := encode(data)
		require.Equal(t, max(1, (len(data)+blobChunk-1)/blobChunk), enc.count(), "%d bytes", len(data))
		var out []byte
		for i := range enc.count() {
			c := enc.chunk(i)
			if len(data) > 4096 && i == 0 { // EDIFACT text compresses
				require.Equal(t, codecZstd, c.codec, "%d bytes", len(data))
			}
			out, err = decodeChunk(out, c, int64(len(data)), "sha", i)
			require.NoError(t, err)
		}
		enc.stop()
		require.Equal(t, data, out, "%d bytes", len(data))
	}

	before := goleak.IgnoreCurrent()
	for range 5 {
		enc := encode(mixed)
		enc.chunk(0)
		enc.stop()
		// stop returned after the encoders: every chunk begun is done
		for i := 1; i < min(int(enc.next.Load()), enc.count()); i++ {
			require.Len(t, enc.chunks[i], 1, "chunk %d was begun and is not done", i)
		}
	}
	goleak.VerifyNone(t, before)
}

// The outbox's pusher hashes a payload before it pushes it (to skip a
// damaged local file), so the team store takes it as checked: the same
// rows and items, read back whole; its size is still checked.
func TestCheckedPushIsThePush(t *testing.T) {
	var _ outbox.CheckedPusher = (*Remote)(nil)
	s, _ := newStore(t, alice)
	data := bigOrdrsp(11, blobChunk+999)
	st := delivery("conn-a", "d-checked", "ORDRSP", data, t0, false)
	require.ErrorIs(t, s.PushCheckedDelivery(t.Context(), "conn-a", st, data[:len(data)-1], alice), ErrMismatch)
	require.Zero(t, count(t, s, "blob_chunks"))
	require.NoError(t, s.PushCheckedDelivery(t.Context(), "conn-a", st, data, alice))
	require.Equal(t, 2, count(t, s, "blob_chunks"))
	got, err := s.Blob(t.Context(), st.Meta.SHA256)
	require.NoError(t, err)
	require.Equal(t, data, got)
	r := find(t, s, "RSP-11")
	require.Len(t, r.Conversations, 1)
	require.Equal(t, alice, r.Conversations[0].Items[0].By)
}

// A process with a team store shares its parses of big payloads between
// the local index and the pushes (track.SharePayloadParses).
func TestNewRemoteSharesParses(t *testing.T) {
	on := track.SharesPayloadParses()
	t.Cleanup(func() { track.SharePayloadParses(on) })
	track.SharePayloadParses(false)
	NewRemote(Config{URL: "postgres://b2bx@127.0.0.1:1/team"})
	require.True(t, track.SharesPayloadParses())
}
