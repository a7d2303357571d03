package credentials

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// EnvConfig overrides the profile file path.
const EnvConfig = "B2BX_CONFIG"

const (
	filePerm = 0o600
	dirPerm  = 0o700
	// maxFileSize bounds what Load reads; a profile file is a few KiB.
	maxFileSize = 1 << 20
)

// header opens every profile file b2bx writes: it explains the format to
// whoever opens the file in an editor.
const header = `# b2bx connection profiles (TOML). One table per profile:
#
#   [profile.NAME]                        # NAME: letters, digits, '.', '_', '-'
#   url            = "https://api.example.com"  # https; plain http only for
#                                               # 127.0.0.0/8, ::1, localhost
#   connection     = "CONNECTION-ID"
#   partner        = "ACME GmbH"          # optional label
#   inbox_key_id   = "KEY-ID"             # API key for uploads (POST /inbox)
#   mailbox_key_id = "KEY-ID"             # API key for the mailbox; the same
#                                         # ID when one key serves both
#   store_dir      = "/abs/path"          # optional spool directory
#   sla.contrl     = "15m"                # optional: a CONTRL later than this
#   sla.ordrsp     = "24h"                # (an ORDRSP) makes an upload overdue
#   directory      = "D.96A"              # the connection's profile revision:
#                                         # "D.96A" (default) or "D.25A"
#   mig            = "acme.toml"          # optional partner rules, relative
#                                         # to this file's directory
#
# Secrets never go in this file: b2bx refuses to read a file that has a
# secret, password or token key. They live in the OS keyring (service "b2bx",
# account "NAME/KEY-ID"); store or rotate one with 'b2bx conn set-secret NAME'.
# For automation export B2BX_API_KEY=<key-id>:<secret> instead.
#
# Edit by hand if you like. 'b2bx conn add' and 'b2bx conn rm' rewrite the
# file: they keep this header and sort profiles by name, but drop your own
# comments.

`

// ErrConcurrentChange means the profile file changed on disk between Load
// and Save; nothing was written.
var ErrConcurrentChange = errors.New("the profile file changed on disk while b2bx was updating it; nothing was written: run the command again")

// ConfigPath is the profile file: $B2BX_CONFIG, else
// $XDG_CONFIG_HOME/b2bx/profiles.toml, else ~/.config/b2bx/profiles.toml.
func ConfigPath(getenv func(string) string) (string, error) {
	if p := getenv(EnvConfig); p != "" {
		return filepath.Clean(p), nil
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "b2bx", "profiles.toml"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no config directory: set $%s to the profile file or $XDG_CONFIG_HOME: %w", EnvConfig, err)
		}
		home = h
	}
	return filepath.Join(home, ".config", "b2bx", "profiles.toml"), nil
}

// File is the profile file: a set of profiles by name.
type File struct {
	// Path is where the file lives.
	Path     string
	profiles map[string]Profile
	raw      []byte // content as loaded; nil when the file did not exist
	warnings []string
}

// Warnings are problems Load found that do not stop b2bx, such as a file
// other users can read or write. Show them to the person (on stderr).
func (f *File) Warnings() []string { return f.warnings }

type fileData struct {
	Profile map[string]Profile `toml:"profile"`
}

// Load reads the profile file at path. A missing file is an empty set.
// Syntax errors, unknown keys (a secret above all) and invalid profiles are
// errors that name the file, profile and field.
func Load(path string) (*File, error) {
	f := &File{Path: path, profiles: map[string]Profile{}}
	raw, err := readLimited(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("profiles: %w", err)
	}
	f.raw = raw
	if w := permissionWarning(path); w != "" {
		f.warnings = append(f.warnings, w)
	}
	var data fileData
	md, err := toml.Decode(string(raw), &data)
	if err != nil {
		return nil, fmt.Errorf("profiles: %s: %s (fix the file by hand)", path, describeDecodeError(err))
	}
	if err := checkUndecoded(path, md.Undecoded()); err != nil {
		return nil, err
	}
	for name, p := range data.Profile {
		p.Name = name
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("profiles: %s: %w (fix the file by hand or re-add the profile with 'b2bx conn add --force')", path, err)
		}
		f.profiles[name] = p
	}
	return f, nil
}

// readLimited reads the file at path, refusing anything but a regular
// file before reading: a FIFO would block forever, a device or directory
// is a mistake in $B2BX_CONFIG. The file is opened non-blocking and
// checked again after opening, in case it was swapped in between.
func readLimited(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, info); err != nil {
		return nil, err
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if info, err = fh.Stat(); err != nil {
		return nil, err
	}
	if err := checkRegular(path, info); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(fh, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if n > maxFileSize {
		return nil, fmt.Errorf("%s is larger than %d bytes; it is not a b2bx profile file (check $%s)", path, maxFileSize, EnvConfig)
	}
	return buf.Bytes(), nil
}

// ErrNotRegular matches a profile path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

func checkRegular(path string, info fs.FileInfo) error {
	if info.Mode().IsRegular() {
		return nil
	}
	kind := "special file"
	switch m := info.Mode(); {
	case m.IsDir():
		kind = "directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeDevice != 0:
		kind = "device"
	}
	return fmt.Errorf("%s is a %s, %w: point $%s at a profile file (or unset it for the default ~/.config/b2bx/profiles.toml)", path, kind, ErrNotRegular, EnvConfig)
}

// permissionWarning says when other users may read or change the profile
// file. It holds no secrets, but it names connections and key IDs, and
// whoever can write it can point a profile's URL at their own server.
func permissionWarning(path string) string {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return "" // mode bits do not describe access there
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm()&0o077 == 0 {
		return ""
	}
	who := "read"
	if info.Mode().Perm()&0o022 != 0 {
		who = "change"
	}
	return fmt.Sprintf("profiles: %s has mode %04o, so other users can %s it (it names your connections and key IDs, and its URLs decide where keys are sent): restrict it with 'chmod 600 %s'",
		path, info.Mode().Perm(), who, path)
}

// describeDecodeError reports where the file is broken without quoting
// the offending text, which might be a pasted secret.
func describeDecodeError(err error) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: TOML syntax error", pe.Position.Line)
	}
	return "not a valid profile file (every profile is a [profile.NAME] table of strings)"
}

// secretish are key fragments that mean someone put a secret in the file.
var secretish = []string{"secret", "password", "passwd", "token", "api_key", "apikey", "credential"}

func checkUndecoded(path string, keys []toml.Key) error {
	for _, k := range keys {
		parts := []string(k)
		last := strings.ToLower(parts[len(parts)-1])
		where := "top level"
		if len(parts) >= 2 && parts[0] == "profile" {
			where = fmt.Sprintf("profile %q", parts[1])
		}
		for _, s := range secretish {
			if strings.Contains(last, s) {
				return fmt.Errorf("profiles: %s: %s: key %q looks like a secret, and secrets never go in this file: delete that line, then store the secret in the OS keyring with 'b2bx conn set-secret NAME' (or export B2BX_API_KEY=<key-id>:<secret>)", path, where, parts[len(parts)-1])
			}
		}
		if len(parts) == 2 && parts[0] == "profile" {
			continue // the profile table itself; its unknown keys follow
		}
		return fmt.Errorf("profiles: %s: %s: unknown key %q: the keys are url, connection, partner, inbox_key_id, mailbox_key_id, store_dir (see the comment at the top of the file)", path, where, k.String())
	}
	return nil
}

// Names lists the profile names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.profiles))
	for n := range f.profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the named profile.
func (f *File) Get(name string) (Profile, bool) {
	p, ok := f.profiles[name]
	return p, ok
}

// Put validates p and adds or replaces it.
func (f *File) Put(p Profile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	f.profiles[p.Name] = p
	return nil
}

// Remove deletes the named profile and reports whether it existed.
func (f *File) Remove(name string) bool {
	_, ok := f.profiles[name]
	delete(f.profiles, name)
	return ok
}

// Encode renders the file: the header, then profiles sorted by name with
// fields in a fixed order, so diffs stay small and reviewable.
func (f *File) Encode() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header)
	for i, name := range f.Names() {
		if i > 0 {
			b.WriteByte('\n')
		}
		// One [profile.NAME] table each; the encoder would repeat an empty
		// [profile] header per call. Names are [A-Za-z0-9._-], so quoting
		// (needed for '.') never needs escapes.
		key := name
		if strings.Contains(name, ".") {
			key = `"` + name + `"`
		}
		b.WriteString("[profile." + key + "]\n")
		p := f.profiles[name]
		sla := encodeSLA(p)
		p.SLA = nil
		if err := toml.NewEncoder(&b).Encode(p); err != nil {
			return nil, fmt.Errorf("profiles: encode %q: %w", name, err)
		}
		b.WriteString(sla)
	}
	return b.Bytes(), nil
}

// Save writes the file atomically (temporary file, fsync, rename, fsync of
// the directory) with mode 0600, creating missing directories with 0700.
// It refuses with ErrConcurrentChange when the file on disk is no longer
// what Load read.
func (f *File) Save() error {
	data, err := f.Encode()
	if err != nil {
		return err
	}
	dir := filepath.Dir(f.Path)
	if err := mkdirPrivate(dir); err != nil {
		return fmt.Errorf("profiles: create %s: %w", dir, err)
	}
	cur, err := readLimited(f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		cur = nil
	case err != nil:
		return fmt.Errorf("profiles: %w", err)
	}
	if !bytes.Equal(cur, f.raw) || (cur == nil) != (f.raw == nil) {
		return fmt.Errorf("profiles: %s: %w", f.Path, ErrConcurrentChange)
	}
	if err := writeAtomic(f.Path, data); err != nil {
		return fmt.Errorf("profiles: write %s: %w", f.Path, err)
	}
	f.raw = data
	return nil
}

// mkdirPrivate creates dir and missing parents with 0700; existing
// directories are left as they are (they may be shared, like ~/.config).
func mkdirPrivate(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := mkdirPrivate(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.Mkdir(dir, dirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return os.Chmod(dir, dirPerm) // umask may have narrowed or the mode differ
}

func writeAtomic(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(filePerm); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir makes the rename durable. Some platforms cannot fsync a
// directory; that is not worth failing a completed write for.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
