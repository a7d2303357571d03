package metrics

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// WriteTextfile writes what g gathers to path in the text format
// node_exporter's textfile collector reads, atomically: a temporary file
// in the same directory, synced, renamed over path, the directory
// synced. A scrape sees the old file or the new one, never half of one.
// path must end in .prom (the collector reads nothing else) and must not
// be a symlink or anything but a regular file.
func WriteTextfile(path string, g prometheus.Gatherer) (err error) {
	if !strings.HasSuffix(path, ".prom") {
		return fmt.Errorf("--metrics-file %s: node_exporter's textfile collector reads only *.prom files: name it NAME.prom", path)
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("--metrics-file %s is not a regular file (%s): nothing was written; choose another path", path, fi.Mode().Type())
	}
	mfs, err := g.Gather()
	if err != nil {
		return fmt.Errorf("gathering the metrics: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("--metrics-file: %w (the directory must exist and be writable)", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriter(tmp)
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err = enc.Encode(mf); err != nil {
			return fmt.Errorf("writing the metrics: %w", err)
		}
	}
	if err = w.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(0o644); err != nil { // node_exporter runs as another user
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--metrics-file: %w", err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
