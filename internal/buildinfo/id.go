package buildinfo

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"
)

// ID names the running binary's code: its Go build ID, which the linker
// derives from everything compiled into it, so any change of the code
// gives another ID. Derived data one b2bx computed and keeps between runs
// (the verdict cache of the tracking index) is trusted only by the same
// binary: another one's rules may differ. Without a readable build ID it
// is the executable's path, size and modification time; "" when even
// that cannot be read (then nothing may be trusted across runs).
func ID() string {
	idOnce.Do(func() { id = readID() })
	return id
}

var (
	idOnce sync.Once
	id     string
)

// The Go linker writes the build ID near the start of every executable,
// where `go tool buildid` looks (readSize): in ELF files as the note "Go"
// of type 4, elsewhere after goBuildPrefix.
var (
	goBuildPrefix = []byte("\xff Go build ID: \"")
	goNoteName    = []byte("Go\x00\x00")
)

const readSize = 32 << 10

func readID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	if v := buildIDIn(f); v != "" {
		return "go:" + v
	}
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	return "file:" + exe + ":" + strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

// buildIDIn finds the Go build ID in the first readSize bytes of r.
func buildIDIn(r io.Reader) string {
	buf := make([]byte, readSize)
	n, _ := io.ReadFull(r, buf)
	buf = buf[:n]
	if v := elfNoteID(buf); v != "" {
		return v
	}
	i := bytes.Index(buf, goBuildPrefix)
	if i < 0 {
		return ""
	}
	rest := buf[i+len(goBuildPrefix):]
	j := bytes.IndexByte(rest, '"')
	if j <= 0 || j > 200 {
		return ""
	}
	return string(rest[:j])
}

// elfNoteID is the build ID of an ELF note "Go" of type 4 in buf: name
// size 4, descriptor size, type, name, descriptor (little-endian words).
func elfNoteID(buf []byte) string {
	le := func(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 | int(b[3])<<24 }
	for off := 0; ; {
		i := bytes.Index(buf[off:], goNoteName)
		if i < 0 {
			return ""
		}
		i += off
		off = i + 1
		if i < 12 || le(buf[i-12:]) != 4 || le(buf[i-4:]) != 4 {
			continue
		}
		size := le(buf[i-8:])
		if size <= 0 || size > 200 || i+4+size > len(buf) {
			continue
		}
		desc := buf[i+4 : i+4+size]
		if bytes.IndexFunc(desc, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
			continue
		}
		return string(desc)
	}
}
