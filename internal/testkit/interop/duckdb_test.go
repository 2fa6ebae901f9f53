package interop

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/driftkit/driftkit/internal/testkit/sample"
	"github.com/driftkit/driftkit/workspace"
)

func query[T any](t *testing.T, db *sql.DB, q string, args ...any) T {
	t.Helper()
	var v T
	if err := db.QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v
}

// TestDuckDBReadsEveryTable writes each table with the sample rows and checks
// row counts, a list column and a nullable column through DuckDB.
func TestDuckDBReadsEveryTable(t *testing.T) {
	dir := t.TempDir()
	counts, err := sample.WriteAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	for file, n := range counts {
		p := filepath.Join(dir, file)
		got := query[int64](t, db, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s')", p))
		if got != n {
			t.Errorf("%s: duckdb counts %d rows, we wrote %d", file, got, n)
		}
	}

	decl := filepath.Join(dir, workspace.DeclarationsFile)
	want := sample.Declarations()
	var wantDocs, wantDeps int64
	for _, d := range want {
		if d.Docstring != nil {
			wantDocs++
		}
		wantDeps += int64(len(d.StatementDeps))
	}
	if got := query[int64](t, db, fmt.Sprintf("SELECT count(docstring) FROM read_parquet('%s')", decl)); got != wantDocs {
		t.Errorf("non-null docstrings: duckdb %d, want %d", got, wantDocs)
	}
	if got := query[int64](t, db, fmt.Sprintf("SELECT sum(len(statement_deps)) FROM read_parquet('%s')", decl)); got != wantDeps {
		t.Errorf("statement_deps elements: duckdb %d, want %d", got, wantDeps)
	}
	// A list element and a unicode name survive exactly.
	name := query[string](t, db, fmt.Sprintf("SELECT name FROM read_parquet('%s') WHERE list_contains(statement_deps, 'Driftlib.Nat.Prime') ORDER BY line_start LIMIT 1", decl))
	if name != want[1].Name {
		t.Errorf("list_contains found %q, want %q", name, want[1].Name)
	}
	typ := query[string](t, db, fmt.Sprintf("SELECT typeof(opens) FROM read_parquet('%s') LIMIT 1", decl))
	if typ != "VARCHAR[]" {
		t.Errorf("opens has DuckDB type %s, want VARCHAR[] (a Parquet LIST)", typ)
	}
	gen := query[int64](t, db, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s') WHERE generated_from IS NOT NULL", decl))
	var wantGen int64
	for _, d := range want {
		if d.GeneratedFrom != nil {
			wantGen++
		}
	}
	if gen != wantGen {
		t.Errorf("generated_from non-null: duckdb %d, want %d", gen, wantGen)
	}
	ls := query[int32](t, db, fmt.Sprintf("SELECT max(line_end) FROM read_parquet('%s')", decl))
	var wantMax int32
	for _, d := range want {
		wantMax = max(wantMax, d.LineEnd)
	}
	if ls != wantMax {
		t.Errorf("max(line_end) = %d, want %d", ls, wantMax)
	}
}

// TestDuckDBStaleContextQuery runs the curator's audit query the README gives
// for informal.parquet: rows whose prompt carried a dependency text that is
// no longer the dependency's current one. The sample has one such row.
func TestDuckDBStaleContextQuery(t *testing.T) {
	dir := t.TempDir()
	if _, err := sample.WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := filepath.Join(dir, workspace.InformalFile)
	// The README's query, with the workspace path filled in.
	q := strings.ReplaceAll(`SELECT r.name, c.name AS dependency
FROM read_parquet('WS/informal.parquet') r, unnest(r.context) AS u(c)
JOIN read_parquet('WS/informal.parquet') d ON d.name = c.name
WHERE d.informal_sha256 <> c.informal_sha256`, "WS/informal.parquet", p)
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var name, dep string
		if err := rows.Scan(&name, &dep); err != nil {
			t.Fatal(err)
		}
		got = append(got, name+" <- "+dep)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := "Driftlib.Nat.Prime.two_le <- Driftlib.Nat.Prime"; len(got) != 1 || got[0] != want {
		t.Errorf("stale rows %v, want [%s]", got, want)
	}
}
