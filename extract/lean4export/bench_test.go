package lean4export

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/elabtest"
	"github.com/driftkit/driftkit/workspace"
)

// BenchmarkImport imports a synthetic export of 5,000 declarations (about a
// million lines) per iteration and reports lines and rows per second.
func BenchmarkImport(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "large.ndjson")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	lines, err := elabtest.Large(f, 5000, 30, 200, 1)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(p)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	var rows int64
	for i := 0; i < b.N; i++ {
		ws, _ := workspace.Open(filepath.Join(dir, "ws"+strconv.Itoa(i)))
		st, err := Import(context.Background(), ws, p, Options{Library: "bench", Force: true})
		if err != nil {
			b.Fatal(err)
		}
		rows += st.Declarations
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(lines)*float64(b.N)/s, "lines/s")
	b.ReportMetric(float64(rows)/s, "rows/s")
}

// TestWriteLargeFixture writes a synthetic export for measuring the importer
// as a process (peak RSS): DRIFTKIT_L4E_FIXTURE=FILE DRIFTKIT_L4E_DECLS=N
// (see bench.sh). Without the variable it does nothing.
func TestWriteLargeFixture(t *testing.T) {
	out := os.Getenv("DRIFTKIT_L4E_FIXTURE")
	if out == "" {
		t.Skip("set DRIFTKIT_L4E_FIXTURE=FILE (and DRIFTKIT_L4E_DECLS=N) to write the large fixture")
	}
	n, _ := strconv.Atoi(os.Getenv("DRIFTKIT_L4E_DECLS"))
	if n <= 0 {
		n = 100000
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	lines, err := elabtest.Large(w, n, 40, 400, 7)
	if err == nil {
		err = w.Flush()
	}
	if err2 := f.Close(); err == nil {
		err = err2
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d declarations, %d lines", out, n, lines)
}
