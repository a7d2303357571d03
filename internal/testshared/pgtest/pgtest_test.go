package pgtest

import (
	"context"
	"testing"
)

func TestFreshDatabaseIsEmptyAndDropped(t *testing.T) {
	server := Server(t)
	var name string
	t.Run("fresh", func(t *testing.T) {
		db := NewDB(t)
		var n int
		if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("a fresh database has %d tables", n)
		}
		if err := db.QueryRowContext(t.Context(), `SELECT current_database()`).Scan(&name); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(t.Context(), `CREATE TABLE x (a int)`); err != nil {
			t.Fatal(err)
		}
	})
	db := NewDB(t)
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("database %s of the finished subtest was not dropped", name)
	}
	_ = server
}

func TestRedact(t *testing.T) {
	got := Redact("postgres://u:s3cret@h:5432/d")
	if got != "postgres://u:xxxxx@h:5432/d" {
		t.Fatal(got)
	}
}
