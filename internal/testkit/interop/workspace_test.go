package interop

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/extract"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/informalize"
	"github.com/driftkit/driftkit/workspace"
)

// TestDuckDBReadsRealWorkspace runs extract, informalize (template) and
// index over the bundled library and reads every Parquet file of the
// workspace with DuckDB: row counts must match what the manifest recorded.
func TestDuckDBReadsRealWorkspace(t *testing.T) {
	ws, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src := filepath.Join("..", "..", "..", "testdata", "lean")
	if _, err := extract.Run(ctx, ws, extract.Options{Sources: []extract.Source{{Dir: src, Library: "driftlib", Revision: "test"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := informalize.Run(ctx, ws, informalize.Options{Provider: informalize.Template{}, Out: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Build(ctx, ws, index.BuildOptions{HashDim: 32}); err != nil {
		t.Fatal(err)
	}
	m, err := ws.ReadManifest()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int64{}
	for _, r := range m.Runs {
		for _, o := range r.Outputs {
			if strings.HasSuffix(o.Path, ".parquet") {
				rows[o.Path] = o.Rows
			}
		}
	}
	gen, err := index.CurrentDir(ws.Dir)
	if err != nil {
		t.Fatal(err)
	}
	gen, _ = filepath.Rel(ws.Dir, gen)
	for _, want := range []string{workspace.DeclarationsFile, workspace.ModulesFile, workspace.InformalFile, gen + "/docs.parquet", gen + "/usage.parquet"} {
		if _, ok := rows[filepath.ToSlash(want)]; !ok {
			t.Errorf("manifest records no %s (has %v)", want, rows)
		}
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for rel, n := range rows {
		p := ws.Path(rel)
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
		got := query[int64](t, db, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s')", p))
		if got != n || n == 0 {
			t.Errorf("%s: duckdb counts %d rows, manifest says %d", rel, got, n)
		}
	}
	// Every statement dependency of a written declaration is itself a row or a
	// core name: a join DuckDB can do over our list column.
	decl := ws.Path(workspace.DeclarationsFile)
	n := query[int64](t, db, fmt.Sprintf(`SELECT count(*) FROM (SELECT unnest(statement_deps) AS dep FROM read_parquet('%[1]s'))
		WHERE dep IN (SELECT name FROM read_parquet('%[1]s'))`, decl))
	if n == 0 {
		t.Error("no statement dependency joins back to a declaration row")
	}
}
