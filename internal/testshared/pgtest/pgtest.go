// Package pgtest hands tests a fresh, empty PostgreSQL database on the
// server named by B2BX_TEST_POSTGRES (a DSN with rights to create
// databases). Each database is dropped when its test ends. Without the
// variable the tests skip with one line; with B2BX_REQUIRE_POSTGRES=1 (CI)
// they fail instead, so a run that should test PostgreSQL cannot pass by
// skipping.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// Env names the server's DSN; RequireEnv "1" turns its absence into a
// failure.
const (
	Env        = "B2BX_TEST_POSTGRES"
	RequireEnv = "B2BX_REQUIRE_POSTGRES"
)

// prefix marks the databases this package creates (a crashed run's
// leftovers are recognisable); PrefixEnv replaces it (several checkouts
// sharing one server each use their own).
const prefix = "b2bx_test_"

// PrefixEnv names the optional database name prefix.
const PrefixEnv = "B2BX_TEST_POSTGRES_PREFIX"

// wait bounds each administrative statement.
const wait = 30 * time.Second

// Server returns the server DSN, or skips (fails when required) t.
func Server(t testing.TB) string {
	t.Helper()
	dsn := strings.TrimSpace(os.Getenv(Env))
	if dsn == "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("PostgreSQL tests: %s is not set and %s=1 requires them (run .ci/scripts/pg-throwaway.sh)", Env, RequireEnv)
		}
		t.Skipf("PostgreSQL tests skipped: set %s to a server DSN (.ci/scripts/pg-throwaway.sh starts one)", Env)
	}
	return dsn
}

// DSN creates a fresh, empty database on the test server and returns its
// DSN; the database is dropped at cleanup.
func DSN(t testing.TB) string {
	t.Helper()
	server := Server(t)
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("%s is not a URL DSN (postgres://user@host:port/db?sslmode=disable): %v", Env, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	p := prefix
	if v := os.Getenv(PrefixEnv); v != "" {
		p = strings.ToLower(v)
	}
	name := p + hex.EncodeToString(b[:])
	admin(t, server, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	t.Cleanup(func() {
		admin(t, server, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
	u.Path = "/" + name
	return u.String()
}

// NewDB is DSN opened through database/sql (driver "pgx"), closed at
// cleanup (before the drop).
func NewDB(t testing.TB) *sql.DB {
	t.Helper()
	dsn := DSN(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatalf("open %s: %v", Redact(dsn), err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Exec runs statements as the server's user (roles, grants).
func Exec(t testing.TB, dsn string, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", Redact(dsn), err)
	}
	defer c.Close(context.Background())
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func admin(t testing.TB, server, stmt string) {
	t.Helper()
	Exec(t, server, stmt)
}

// Redact drops a password from a DSN for messages.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(a DSN that is not a URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.Redacted()
}

// WithUser is dsn with another user and password (a least-rights role).
func WithUser(dsn, user, password string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(fmt.Sprintf("pgtest: %v", err))
	}
	u.User = url.UserPassword(user, password)
	return u.String()
}
