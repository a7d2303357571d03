package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nutrab2b/b2bx/apiclient"
	"github.com/nutrab2b/b2bx/apiclient/events"
	"github.com/nutrab2b/b2bx/apiclient/spool"
)

var hostile = Table{Name: "mailbox", Columns: []string{"id", "note"}, Rows: [][]string{
	{"a,1", `say "hi"`},
	{"=HYPERLINK(\"http://x\")", "+1"},
	{"-2", "@SUM(A1)"},
	{"esc\x1b[2Jx", "line\nbreak"},
	{"short"},
}}

func TestCSVReadsBackSanitisedAndNeutralised(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.CSV")
	if err := WriteTable(p, hostile, false); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(p)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"id", "note"}, {"a,1", `say "hi"`}, {"'=HYPERLINK(\"http://x\")", "'+1"}, {"'-2", "'@SUM(A1)"},
		{"esc^[[2Jx", "line^Jbreak"}, {"short", ""}}
	if len(recs) != len(want) {
		t.Fatalf("%d records: %q", len(recs), recs)
	}
	for i := range want {
		if strings.Join(recs[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q", i, recs[i], want[i])
		}
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}

func TestJSONKeepsColumnOrder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.json")
	tb := Table{Name: "uploads", Columns: []string{"z", "a"}, Rows: [][]string{{"1", "=2"}, {"x\x1b"}, {`q"<ü>\`, "\u009b"}}}
	if err := WriteTable(p, tb, false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	var got struct {
		Table   string              `json:"table"`
		Columns []string            `json:"columns"`
		Rows    []map[string]string `json:"rows"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got.Table != "uploads" || len(got.Rows) != 3 || got.Rows[2]["z"] != `q"<ü>\` || got.Rows[2]["a"] != "<U+009B>" || got.Rows[0]["a"] != "=2" || got.Rows[1]["z"] != "x^[" || got.Rows[1]["a"] != "" {
		t.Fatalf("decoded %+v", got)
	}
	if !bytes.Contains(b, []byte(`{"z": "1", "a": "=2"}`)) || !bytes.Contains(b, []byte(`"a": "<U+009B>"`)) {
		t.Fatalf("keys not in column order: %s", b)
	}
	empty := filepath.Join(t.TempDir(), "e.json")
	if err := WriteTable(empty, Table{Name: "x", Columns: []string{"c"}}, false); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(empty)
	if err := json.Unmarshal(b, &got); err != nil || len(got.Rows) != 0 {
		t.Fatalf("empty table: %v %s", err, b)
	}
}

func TestNoOverwriteUnlessForced(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(p, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteTable(p, hostile, false)
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), ":export! ") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "keep" {
		t.Fatalf("overwritten: %q", b)
	}
	if err := WriteTable(p, hostile, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); !strings.HasPrefix(string(b), "id,note") {
		t.Fatalf("not replaced: %q", b)
	}
	assertNoTemps(t, dir)
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestAtomicOnFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.json")
	err := WriteFile(p, false, func(w io.Writer) error {
		_, _ = w.Write([]byte("{half"))
		return errors.New("disk on fire")
	})
	if err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a failed write left the target")
	}
	assertNoTemps(t, dir)
}

func TestBadPaths(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "nope", "t.csv"), "does not exist"},
		{filepath.Join(dir, "t.xlsx"), ".csv or .json"},
		{dir + "/", "does not end in .csv or .json"},
	} {
		err := WriteTable(c.path, hostile, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	if err := WriteFile(dir+"/", false, func(io.Writer) error { return nil }); err == nil || !strings.Contains(err.Error(), "is no file name") {
		t.Errorf("a directory path: %v", err)
	}
	sub := filepath.Join(dir, "d.csv")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(sub, hostile, true); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if err := WriteTable(filepath.Join(dir, "x\x1b.csv.txt"), hostile, false); err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("error not sanitised: %v", err)
	}
}

func TestTables(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	m := MailboxTable("backlog", []apiclient.Entry{{DeliveryAttemptID: "d1", MessageType: "CONTRL", PayloadSize: 12, PayloadSHA256: "ab", Status: "due", CreatedAt: at}})
	if len(m.Rows) != 1 || m.Rows[0][0] != "d1" || m.Rows[0][3] != "12" || m.Rows[0][6] != "2026-01-02T02:04:05Z" || len(m.Rows[0]) != len(m.Columns) {
		t.Fatalf("mailbox %+v", m)
	}
	u := UploadsTable([]spool.UploadRecord{{Key: "k", N: 2, Outcome: spool.OutcomeAccepted, HTTPStatus: 202, Fixes: "up-1"}}, func(int) string { return "CONTRL: accepted" })
	row := u.Rows[0]
	if len(row) != len(u.Columns) || row[4] != "k" || row[7] != "202" || row[13] != "up-1" || row[14] != "CONTRL: accepted" {
		t.Fatalf("uploads %q", row)
	}
	f := FindingsTable([]events.Finding{{Severity: "error", Code: "dup", Delivery: 1, Event: 2, Message: "twice"}})
	if len(f.Rows[0]) != len(f.Columns) || f.Rows[0][7] != "twice" || f.Rows[0][3] != "1" {
		t.Fatalf("findings %q", f.Rows[0])
	}
}

func TestOnlyMarkedRows(t *testing.T) {
	got := hostile.Only([]int{4, 0, 99, -1})
	if len(got.Rows) != 2 || got.Rows[0][0] != "short" || got.Rows[1][0] != "a,1" || got.Name != "mailbox" || len(got.Columns) != 2 {
		t.Fatalf("%+v", got)
	}
}

// A spreadsheet set to ';' (de-DE, de-AT, fr, nl) or reading a pasted
// tab-separated line splits a cell at that separator: such a cell is
// quoted, and no part after a separator starts a formula.
func TestCSVSemicolonAndTabLocales(t *testing.T) {
	tb := Table{Name: "mailbox", Columns: []string{"v"}, Rows: [][]string{
		{"X;=1+1"}, {"X;=cmd|' /C calc'!A0"}, {"a; +1"}, {"a,@SUM(1)"}, {"plain;text"}, {"a-b;c=d"}, {" lead"}, {"x\t-1"},
	}}
	var b bytes.Buffer
	if err := EncodeCSV(&b, tb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{"v", `"X;'=1+1"`, `"X;'=cmd|' /C calc'!A0"`, `"a; '+1"`, `"a,'@SUM(1)"`, `"plain;text"`, `"a-b;c=d"`, `" lead"`, "x^I-1"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("CSV\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		for _, sep := range []string{";", ",", "\t"} {
			for _, part := range strings.Split(r[0], sep)[1:] {
				if p := strings.TrimLeft(part, " "); p != "" && strings.ContainsRune("=+-@", rune(p[0])) {
					t.Errorf("cell %q: part %q after %q starts a formula", r[0], part, sep)
				}
			}
		}
	}
}
