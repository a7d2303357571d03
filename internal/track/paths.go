package track

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Paths are stored relative to numbered spool roots ("r0/<conn>/deliveries/
// <id>.json"; the numbering is kept in track_meta as root:<n>), other
// paths (captures) as "abs:<path>": shorter rows, and an index that
// follows a data directory moved as a whole once its root is renumbered.
const rootPrefix = "root:"

// pathCodec wraps a Backend, translating absolute paths to the stored
// form and back.
type pathCodec struct {
	Backend
	roots []codecRoot // longest path first
}

type codecRoot struct {
	path, tag string
}

// newPathCodec numbers roots (keeping the numbers already given).
func newPathCodec(ctx context.Context, b Backend, roots []string) (*pathCodec, error) {
	have, err := b.Metas(ctx, rootPrefix)
	if err != nil {
		return nil, err
	}
	byPath := map[string]string{}
	next := 0
	for name, p := range have {
		n, err := strconv.Atoi(strings.TrimPrefix(name, rootPrefix))
		if err != nil {
			continue
		}
		byPath[p] = "r" + strconv.Itoa(n)
		next = max(next, n+1)
	}
	c := &pathCodec{Backend: b}
	for _, r := range roots {
		tag, ok := byPath[r]
		if !ok {
			tag = "r" + strconv.Itoa(next)
			if err := b.SetMeta(ctx, rootPrefix+strconv.Itoa(next), r); err != nil {
				return nil, writeErr(err)
			}
			byPath[r] = tag
			next++
		}
		c.roots = append(c.roots, codecRoot{path: r, tag: tag})
	}
	sort.Slice(c.roots, func(i, j int) bool { return len(c.roots[i].path) > len(c.roots[j].path) })
	return c, nil
}

func (c *pathCodec) enc(p string) string {
	for _, r := range c.roots {
		if rest, ok := strings.CutPrefix(p, r.path+string(filepath.Separator)); ok {
			return r.tag + "/" + filepath.ToSlash(rest)
		}
	}
	return "abs:" + p
}

func (c *pathCodec) dec(p string) string {
	if rest, ok := strings.CutPrefix(p, "abs:"); ok {
		return rest
	}
	tag, rest, _ := strings.Cut(p, "/")
	for _, r := range c.roots {
		if r.tag == tag {
			return filepath.Join(r.path, filepath.FromSlash(rest))
		}
	}
	return p // a root no longer configured: not found on disk, forgotten by the next full sync
}

func (c *pathCodec) decItems(items []Item, err error) ([]Item, error) {
	for i := range items {
		items[i].Path = journalOf(c.dec(items[i].Path)) // a journal's part is read from the journal
	}
	return items, err
}

// Apply implements Backend.
func (c *pathCodec) Apply(ctx context.Context, b Batch) error {
	e := Batch{Set: make([]SourceItems, len(b.Set)), Forget: make([]string, len(b.Forget)), Fresh: b.Fresh}
	for i, si := range b.Set {
		si.Source.Path = c.enc(si.Source.Path)
		e.Set[i] = si
	}
	for i, p := range b.Forget {
		e.Forget[i] = c.enc(p)
	}
	return c.Backend.Apply(ctx, e)
}

// Sources implements Backend; prefix is an absolute path prefix.
func (c *pathCodec) Sources(ctx context.Context, prefix string) (map[string]Source, error) {
	m, err := c.Backend.Sources(ctx, c.enc(prefix))
	out := make(map[string]Source, len(m))
	for p, s := range m {
		s.Path = c.dec(p)
		out[s.Path] = s
	}
	return out, err
}

// Match implements Backend.
func (c *pathCodec) Match(ctx context.Context, m Match) ([]Item, error) {
	return c.decItems(c.Backend.Match(ctx, m))
}

// ByConv implements Backend.
func (c *pathCodec) ByConv(ctx context.Context, convs []string) ([]Item, error) {
	return c.decItems(c.Backend.ByConv(ctx, convs))
}

// ByValues implements valuesBackend when the wrapped backend does;
// false when it does not.
func (c *pathCodec) ByValues(ctx context.Context, kind KeyKind, values []string) ([]Item, bool, error) {
	vb, ok := c.Backend.(valuesBackend)
	if !ok {
		return nil, false, nil
	}
	items, err := c.decItems(vb.ByValues(ctx, kind, values))
	return items, true, err
}

// ByKind implements Backend.
func (c *pathCodec) ByKind(ctx context.Context, kind Kind, since time.Time) ([]Item, error) {
	return c.decItems(c.Backend.ByKind(ctx, kind, since))
}
