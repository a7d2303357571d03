package dict

import (
	"archive/zip"
	"bytes"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nutrab2b/b2bx/internal/testshared"
	"github.com/stretchr/testify/require"
)

// sourceDir is the directory sources' location ($B2BX_EDIFACT_DIR, else
// ../shared/edifact-directory); tests that read them skip when it is
// absent (CI clones only the repository), or fail with
// B2BX_REQUIRE_SHARED=1 (see testshared).
func sourceDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("B2BX_EDIFACT_DIR")
	if dir == "" {
		dir = testshared.Dir("edifact-directory")
	}
	testshared.Require(t, "the EDIFACT directory sources", filepath.Join(dir, "unece-d96a", "d96a.zip"))
	return dir
}

// d96aFile returns a file from inside a nested zip of the D.96A archive.
func d96aFile(t *testing.T, dir, nested, name string) string {
	t.Helper()
	outer, err := zip.OpenReader(filepath.Join(dir, "unece-d96a", "d96a.zip"))
	require.NoError(t, err)
	defer outer.Close()
	for _, f := range outer.File {
		if !strings.EqualFold(filepath.Base(f.Name), nested) {
			continue
		}
		b := readAll(t, f)
		inner, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		require.NoError(t, err)
		for _, g := range inner.File {
			if strings.EqualFold(filepath.Base(g.Name), name) {
				return strings.ReplaceAll(string(readAll(t, g)), "\r\n", "\n")
			}
		}
	}
	t.Fatalf("%s/%s not in the D.96A zip", nested, name)
	return ""
}

func readAll(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// unclTitle finds a code's title in a UNCL/UNSL text the simple way: the
// element's entry starts with its id after the change indicators, and a
// code line starts with the value and has the title after it; a wrapped
// title continues on lines indented by exactly ten columns.
func unclTitle(text, elem, code string) (string, bool) {
	head := regexp.MustCompile(`(?m)^[ *+#|X-]{2}` + elem + `  .*$`)
	loc := head.FindStringIndex(text)
	if loc == nil {
		return "", false
	}
	rest := text[loc[1]:]
	if end := regexp.MustCompile(`(?m)^[ *+#|X-]{2}\d{4}  `).FindStringIndex(rest); end != nil {
		rest = rest[:end[0]]
	}
	re := regexp.MustCompile(`(?m)^[ *+#|X-]{2} *` + regexp.QuoteMeta(code) + ` +(\S.*)$`)
	loc = re.FindStringSubmatchIndex(rest)
	if loc == nil {
		return "", false
	}
	title := strings.TrimSpace(rest[loc[2]:loc[3]])
	for _, l := range strings.Split(rest[loc[1]:], "\n")[1:] {
		if len(l) <= 10 || strings.TrimSpace(l[:10]) != "" || l[10] == ' ' {
			break
		}
		title += " " + strings.TrimSpace(l)
	}
	return title, true
}

// xmlTitle finds a code's title in a pydifact data_elements.xml.
func xmlTitle(text, elem, code string) (string, bool) {
	start := strings.Index(text, `<data_element id="`+elem+`"`)
	if start < 0 {
		return "", false
	}
	rest := text[start:]
	rest = rest[:strings.Index(rest, "</data_element>")]
	m := regexp.MustCompile(`<code id="` + regexp.QuoteMeta(code) + `" title="([^"]*)"`).FindStringSubmatch(rest)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(m[1]), true
}

func TestCodeNamesAgainstSources(t *testing.T) {
	dir := sourceDir(t)
	d96a := []string{d96aFile(t, dir, "UNCL.ZIP", "UNCL-1.96A"), d96aFile(t, dir, "UNCL.ZIP", "UNCL-2.96A"), d96aFile(t, dir, "UNSL.ZIP", "UNSL.96A")}
	readX := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dir, "pydifact-d24a", p))
		require.NoError(t, err)
		return string(b)
	}
	d24a, v3, v4 := readX("d24a/data_elements.xml"), readX("service_v300/data_elements.xml"), readX("service_v402/data_elements.xml")
	for _, tc := range codeSpotChecks {
		var got string
		var ok bool
		switch tc.d {
		case D96A:
			for _, txt := range d96a {
				if got, ok = unclTitle(txt, tc.elem, tc.code); ok {
					break
				}
			}
		case D24A:
			got, ok = xmlTitle(d24a, tc.elem, tc.code)
		case Service3:
			if got, ok = xmlTitle(v3, tc.elem, tc.code); !ok {
				got, ok = unclTitle(d96a[2], tc.elem, tc.code)
			}
		case Service4:
			got, ok = xmlTitle(v4, tc.elem, tc.code)
		}
		require.True(t, ok, "%v %s %s not found in the source", tc.d, tc.elem, tc.code)
		require.Equal(t, tc.want, got, "%v %s %s", tc.d, tc.elem, tc.code)
	}
}

func TestNamesAgainstSources(t *testing.T) {
	dir := sourceDir(t)
	trsdi := d96aFile(t, dir, "TRSD.ZIP", "TRSDI1.96A")
	tred := d96aFile(t, dir, "TRED.ZIP", "TRED.96A")
	for _, tag := range []string{"NAD", "BGM", "DTM", "LIN", "QTY", "ERC", "CNT"} {
		s, ok := LookupSegment(D96A, tag)
		require.True(t, ok, tag)
		require.Regexp(t, `(?m)^[ *+#|X-]{3}`+tag+` +`+regexp.QuoteMeta(s.Name)+`\s*$`, trsdi, tag)
	}
	for _, id := range []string{"1225", "1004", "3035", "2005", "6060"} {
		e, ok := LookupElement(D96A, id)
		require.True(t, ok, id)
		require.Regexp(t, `(?m)^[ *+#|X-]{3}`+id+`  `+regexp.QuoteMeta(e.Name)+`\s*$`, tred, id)
		require.Contains(t, tred, "Repr: "+e.Repr)
	}
	segs, err := os.ReadFile(filepath.Join(dir, "pydifact-d24a", "d24a", "segments.xml"))
	require.NoError(t, err)
	require.Contains(t, string(segs), `<segment id="NAD" name="NameAndAddress"`)
	nad, _ := LookupSegment(D24A, "NAD")
	require.Equal(t, "Name and address", nad.Name)
	require.Contains(t, string(segs), `<data_element id="3035" name="PartyFunctionCodeQualifier" required="true"`)
	require.Equal(t, "Party function code qualifier", nad.Elements[0].Name)
	require.True(t, nad.Elements[0].Mandatory)
}
