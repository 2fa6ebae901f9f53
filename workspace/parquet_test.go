package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func ptr(s string) *string { return &s }

func sampleDeclarations(n int) []Declaration {
	out := make([]Declaration, n)
	for i := range out {
		d := Declaration{
			Library: "driftlib", Revision: "abc123", Name: "Driftlib.Nat.Prime" + strings.Repeat("'", i%3),
			Kind: kinds[i%len(kinds)], Keyword: "def", Module: "Driftlib.Data.Nat.Prime",
			Path: "Driftlib/Data/Nat/Prime.lean", LineStart: int32(i + 1), LineEnd: int32(i + 3),
			Namespace: "Driftlib.Nat", Opens: []string{"Driftlib", "Nat"},
			Modifiers: nil, Attributes: []string{"simp"},
			Signature: "(p : ℕ) : Prop", Code: "def Prime (p : ℕ) : Prop := 2 ≤ p ∧ ∀ m, m ∣ p → m = 1 ∨ m = p",
			StatementDeps: []string{"Nat"}, ProofDeps: []string{"Nat.le", "Dvd.dvd"},
		}
		if i%2 == 0 {
			d.Docstring = ptr("A natural number is *prime* if … «unicode»")
		}
		if i%5 == 0 {
			d.GeneratedFrom = ptr("Driftlib.Nat.Prime")
			d.Modifiers = []string{"private", "noncomputable"}
		}
		if i%7 == 0 {
			d.Docstring = ptr("") // empty but present
		}
		out[i] = d
	}
	return out
}

// normalise maps nil and empty lists to the same value: Parquet does not keep
// the difference for a non-optional list column.
func normalise[T any](rows []T) {
	for i := range rows {
		v := reflect.ValueOf(&rows[i]).Elem()
		for j := 0; j < v.NumField(); j++ {
			f := v.Field(j)
			if f.Kind() == reflect.Slice && f.Len() == 0 {
				f.Set(reflect.Zero(f.Type()))
			}
		}
	}
}

func roundTrip[T any](t *testing.T, name string, rows []T) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := WriteTable(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTable[T](path)
	if err != nil {
		t.Fatal(err)
	}
	normalise(rows)
	normalise(got)
	if !reflect.DeepEqual(got, rows) {
		for i := range rows {
			if i < len(got) && !reflect.DeepEqual(got[i], rows[i]) {
				t.Fatalf("row %d differs:\n got  %+v\n want %+v", i, got[i], rows[i])
			}
		}
		t.Fatalf("got %d rows, want %d", len(got), len(rows))
	}
}

func TestRoundTrip(t *testing.T) {
	t.Run("declarations", func(t *testing.T) {
		// More rows than one row group, so streaming across groups is exercised.
		roundTrip(t, DeclarationsFile, sampleDeclarations(DefaultRowGroupRows+123))
	})
	t.Run("modules", func(t *testing.T) {
		roundTrip(t, ModulesFile, []Module{
			{Library: "l", Name: "A.B", Path: "A/B.lean", Imports: []string{"A", "Init"}, Docstring: ptr("# B"), Declarations: 3},
			{Library: "l", Name: "A", Path: "A.lean", Errors: 2, Unresolved: 5},
		})
	})
	t.Run("informal", func(t *testing.T) {
		roundTrip(t, InformalFile, []Informal{{Name: "A.b", InformalName: "b", InformalStatement: "For all $x$…", Provider: "template", PromptVersion: "v1", InputSHA256: "00ff", PromptTokens: 10, CompletionTokens: 20, CreatedAt: "2026-11-29T00:00:00Z"}})
	})
	t.Run("pairs", func(t *testing.T) {
		roundTrip(t, PairsFile, []Pair{
			{QueryID: "q1", Query: "Every prime…", QuerySource: QuerySourceDocstring, Theorem: "T", Positives: []string{"A", "B"}, Negatives: []string{"C"}, Split: SplitTrain},
			{QueryID: "q2", Query: "x", QuerySource: QuerySourceInformal, Theorem: "U", Positives: []string{"A"}, Split: SplitValid},
		})
	})
	t.Run("usage", func(t *testing.T) {
		roundTrip(t, "usage.parquet", []Usage{{Premise: "A", UsedBy: []string{"x", "y"}, Count: 2}})
	})
	t.Run("empty", func(t *testing.T) {
		roundTrip(t, PairsFile, []Pair{})
	})
}

func TestNullableDistinct(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.parquet")
	rows := []Declaration{{Name: "a"}, {Name: "b", Docstring: ptr("")}}
	if err := WriteTable(path, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTable[Declaration](path)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Docstring != nil {
		t.Errorf("missing docstring read back as %q", *got[0].Docstring)
	}
	if got[1].Docstring == nil || *got[1].Docstring != "" {
		t.Errorf("empty docstring not kept: %v", got[1].Docstring)
	}
}

func TestCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	if err := WriteTable(good, sampleDeclarations(500)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), data...)
	for i := 100; i < len(flipped)-200; i += 97 {
		flipped[i] ^= 0xff
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"tiny", []byte("PAR1")},
		{"truncated-half", data[:len(data)/2]},
		{"truncated-footer", data[:len(data)-5]},
		{"not-parquet", []byte(strings.Repeat("hello world\n", 100))},
		{"bit-flips", flipped},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name+".parquet")
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadTable[Declaration](p)
			if err == nil {
				t.Fatal("corrupt file read without error")
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != p {
				t.Fatalf("error does not name the file: %v", err)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error is not ErrCorrupt: %v", err)
			}
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("message lacks path: %v", err)
			}
		})
	}
}

func TestSchemaMismatch(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pairs.parquet")
	if err := WriteTable(p, []Pair{{QueryID: "q"}}); err != nil {
		t.Fatal(err)
	}
	_, err := ReadTable[Declaration](p)
	if !errors.Is(err, ErrSchema) {
		t.Fatalf("want ErrSchema, got %v", err)
	}
	if !strings.Contains(err.Error(), "library") {
		t.Fatalf("error should name the missing column: %v", err)
	}
}

func TestAbortKeepsOldFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "declarations.parquet")
	old := sampleDeclarations(3)
	if err := WriteTable(p, old); err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter[Declaration](p)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(sampleDeclarations(10000)...); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	got, err := ReadTable[Declaration](p)
	if err != nil || len(got) != 3 {
		t.Fatalf("old file not intact: %d rows, %v", len(got), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}

func TestFinishThenCommit(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	WriteTable(a, []Pair{{QueryID: "old"}})
	wa, _ := NewWriter[Pair](a)
	wb, _ := NewWriter[Pair](b)
	wa.Write(Pair{QueryID: "new"})
	wb.Write(Pair{QueryID: "new"})
	if err := wa.Finish(); err != nil {
		t.Fatal(err)
	}
	// Finished but not committed: the old table is still in place.
	if got, _ := ReadTable[Pair](a); len(got) != 1 || got[0].QueryID != "old" {
		t.Fatalf("Finish replaced the destination: %+v", got)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Fatal("unfinished writer created its destination")
	}
	// The second table fails: abort both, the first keeps its old content.
	wb.Abort()
	wa.Abort()
	if got, _ := ReadTable[Pair](a); len(got) != 1 || got[0].QueryID != "old" {
		t.Fatalf("abort after Finish lost the old table: %+v", got)
	}
	// The happy path commits.
	wa, _ = NewWriter[Pair](a)
	wa.Write(Pair{QueryID: "new"})
	if err := wa.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := wa.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadTable[Pair](a); len(got) != 1 || got[0].QueryID != "new" {
		t.Fatalf("committed table: %+v", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temp files left: %v", entries)
	}
}

// legacyInformal is informal.parquet as written before the formal-input reuse
// rule added own_input_sha256, informal_sha256 and context.
type legacyInformal struct {
	Name              string `parquet:"name"`
	InformalName      string `parquet:"informal_name"`
	InformalStatement string `parquet:"informal_statement"`
	Provider          string `parquet:"provider,dict"`
	PromptVersion     string `parquet:"prompt_version,dict"`
	InputSHA256       string `parquet:"input_sha256"`
	PromptTokens      int64  `parquet:"prompt_tokens"`
	CompletionTokens  int64  `parquet:"completion_tokens"`
	CreatedAt         string `parquet:"created_at"`
}

func TestInformalAddedColumns(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.parquet")
	if err := WriteTable(old, []legacyInformal{{Name: "A", InformalName: "a", InformalStatement: "s", InputSHA256: "k"}}); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadTable[Informal](old)
	if err != nil {
		t.Fatalf("a table written before the added columns does not load: %v", err)
	}
	if len(rows) != 1 || rows[0].InputSHA256 != "k" || rows[0].OwnInputSHA256 != "" || rows[0].Context != nil {
		t.Errorf("legacy row %+v", rows)
	}
	// A column that was always there is still required.
	type noStatement struct {
		Name string `parquet:"name"`
	}
	bad := filepath.Join(dir, "bad.parquet")
	if err := WriteTable(bad, []noStatement{{Name: "A"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTable[Informal](bad); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "informal_name") {
		t.Errorf("missing original column: %v", err)
	}
	// New rows round-trip, context included.
	cur := filepath.Join(dir, "new.parquet")
	in := []Informal{{Name: "B", InformalName: "b", InformalStatement: "t", InputSHA256: "k2", OwnInputSHA256: "o",
		InformalSHA256: InformalTextSHA256("b", "t"), Context: []InformalContext{{Name: "A", InformalSHA256: "x"}}}, {Name: "C"}}
	if err := WriteTable(cur, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTable[Informal](cur)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].OwnInputSHA256 != "o" || len(got[0].Context) != 1 || got[0].Context[0] != in[0].Context[0] || len(got[1].Context) != 0 {
		t.Errorf("round trip %+v", got)
	}
}

func TestInformalTextSHA256(t *testing.T) {
	// hashlib.sha256(b"n\ns").hexdigest(), the recipe the doc comment gives.
	if got := InformalTextSHA256("n", "s"); got != "c97faa6da4854667e98c4208f75a421fc89ee0789052273e6f42088453c7591d" {
		t.Fatal(got)
	}
}

// TestParallelWriterSameBytes: a table written through a ParallelWriter is
// byte for byte the table Write makes (groups spliced in order, pages copied
// verbatim), for any number of workers, with a partial last group, exactly
// full groups and none, and with rows handed over in odd batches.
func TestParallelWriterSameBytes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rows []Declaration, workers int, mapf func(*Declaration)) []byte {
		t.Helper()
		path := filepath.Join(dir, name)
		f, err := CreateAtomic(path)
		if err != nil {
			t.Fatal(err)
		}
		w := newWriter[Declaration](path, f)
		w.groupN = 100
		if workers == 0 {
			err = w.Write(rows...)
		} else {
			p := w.Parallel(workers)
			if mapf != nil {
				p.Map(mapf)
			}
			for i := 0; i < len(rows) && err == nil; i += 37 {
				err = p.Write(rows[i:min(i+37, len(rows))]...)
			}
			if err == nil {
				err = p.Close()
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Rows(); got != int64(len(rows)) {
			t.Fatalf("%s: Rows() = %d, want %d", name, got, len(rows))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, n := range []int{0, 1, 100, 750, 1234} {
		rows := sampleDeclarations(n)
		for i := range rows {
			// distinct texts per group, so a group spliced out of order shows
			rows[i].Signature = strings.Repeat("x", i%97) + rows[i].Signature
		}
		want := write("seq.parquet", rows, 0, nil)
		for _, workers := range []int{1, 2, 3} {
			if got := write("par.parquet", rows, workers, nil); !bytes.Equal(got, want) {
				t.Errorf("%d rows, %d workers: %d bytes differ from Write's %d", n, workers, len(got), len(want))
			}
		}
		// Map: the rows transformed on the encoders are the file of the
		// transformed rows, and the caller's rows are left as they were
		mapf := func(r *Declaration) { r.Name = "m." + r.Name; r.ProofDeps = append([]string{"d"}, r.ProofDeps...) }
		mapped := make([]Declaration, len(rows))
		for i := range rows {
			mapped[i] = rows[i]
			mapf(&mapped[i])
		}
		before := fmt.Sprint(rows)
		want = write("seqmap.parquet", mapped, 0, nil)
		for _, workers := range []int{1, 2, 3} {
			if got := write("parmap.parquet", rows, workers, mapf); !bytes.Equal(got, want) {
				t.Errorf("%d rows, %d workers, Map: %d bytes differ from Write's %d of the mapped rows", n, workers, len(got), len(want))
			}
		}
		if fmt.Sprint(rows) != before {
			t.Errorf("%d rows: Map changed the caller's rows", n)
		}
	}
}

// TestParallelWriterAfterWrite: a writer that already has rows cannot be
// continued in parallel (its groups would be cut elsewhere).
func TestParallelWriterAfterWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.parquet")
	w, err := NewWriter[Declaration](path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Write(sampleDeclarations(3)...); err != nil {
		t.Fatal(err)
	}
	if err := w.Parallel(2).Write(sampleDeclarations(1)...); err == nil {
		t.Fatal("ParallelWriter over a used writer: no error")
	}
}
