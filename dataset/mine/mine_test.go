package mine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/internal/testkit/minetest"
	"github.com/driftkit/driftkit/workspace"
)

func fixture(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	if err := minetest.WriteWorkspace(dir, 3, false); err != nil {
		t.Fatal(err)
	}
	ws, _ := workspace.Open(dir)
	return ws
}

func readPairs(t *testing.T, ws *workspace.Workspace) []workspace.Pair {
	t.Helper()
	p, err := workspace.ReadTable[workspace.Pair](ws.Path(workspace.PairsFile))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeRanker ranks every premise candidate alphabetically, with the query's
// (known) positives first, so that ranks 0-1 are positives.
type fakeRanker struct {
	premises []string
	pos      map[string][]string // query → positives
}

func (f *fakeRanker) Rank(ctx context.Context, query, exclude string, k int) ([]string, error) {
	out := slices.Clone(f.pos[query])
	for _, p := range f.premises {
		if !slices.Contains(out, p) && p != exclude {
			out = append(out, p)
		}
	}
	return out[:min(k, len(out))], nil
}

func (f *fakeRanker) Name() string { return "fake" }

// checkNegatives fails when a pair's negatives hold one of its positives,
// its own theorem or a name twice (#24: a ranked-window filter letting
// positives through passed every test that checked only the random fill).
// It returns the positives the ranked list put in the window: a test whose
// windows hold none cannot see the filter work.
func checkNegatives(t *testing.T, p workspace.Pair, window []string) int {
	t.Helper()
	seen := map[string]bool{}
	for _, n := range p.Negatives {
		if slices.Contains(p.Positives, n) || n == p.Theorem || seen[n] {
			t.Errorf("%s: negative %s is a positive, the theorem or a repeat (positives %v, negatives %v)", p.QueryID, n, p.Positives, p.Negatives)
		}
		seen[n] = true
	}
	inWindow := 0
	for _, n := range window {
		if slices.Contains(p.Positives, n) {
			inWindow++
		}
	}
	return inWindow
}

func TestMineWithoutIndex(t *testing.T) {
	ws := fixture(t)
	st, err := Mine(context.Background(), ws, Options{ValidFrac: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	decls, infs := minetest.Tables(3)
	kind := map[string]string{}
	module := map[string]string{}
	for _, d := range decls {
		kind[d.Name] = d.Kind
		module[d.Name] = d.Module
	}
	templ := 0
	for _, r := range infs {
		if r.Provider == "template" {
			templ++
		}
	}
	if st.TemplateExcluded != templ {
		t.Errorf("template excluded %d, want %d", st.TemplateExcluded, templ)
	}
	pairs := readPairs(t, ws)
	if len(pairs) != st.Pairs || st.BySource["docstring"] != 51 || st.BySource["informal"] != 51-templ {
		t.Fatalf("%d pairs, stats %+v", len(pairs), st)
	}
	splitOf := map[string]string{}
	for _, p := range pairs {
		if len(p.Positives) == 0 || len(p.Negatives) != 15 {
			t.Fatalf("%s: %d positives, %d negatives", p.QueryID, len(p.Positives), len(p.Negatives))
		}
		for _, x := range p.Positives {
			if x == "Eq" || x == p.Theorem || !workspace.IsPremiseKind(kind[x]) {
				t.Fatalf("%s: bad positive %s", p.QueryID, x)
			}
		}
		for _, x := range p.Negatives {
			if slices.Contains(p.Positives, x) || x == p.Theorem || !workspace.IsPremiseKind(kind[x]) {
				t.Fatalf("%s: bad negative %s", p.QueryID, x)
			}
		}
		if len(p.NegativeSources) != len(p.Negatives) || slices.ContainsFunc(p.NegativeSources, func(s string) bool { return s != dataset.NegativeRandom }) {
			t.Fatalf("%s: without an index every negative is random; sources %q", p.QueryID, p.NegativeSources)
		}
		m := module[p.Theorem]
		if s, ok := splitOf[m]; ok && s != p.Split {
			t.Fatalf("module %s in splits %s and %s", m, s, p.Split)
		}
		splitOf[m] = p.Split
	}
	if st.BySplit["valid"] == 0 || st.BySplit["train"] == 0 {
		t.Errorf("splits %v: want both train and valid with 12 modules at 0.3", st.BySplit)
	}
	m, _ := ws.ReadManifest()
	r := m.LastRun("mine")
	if r == nil || !slices.ContainsFunc(r.Notes, func(s string) bool { return strings.Contains(s, "random premise candidates") }) {
		t.Fatalf("manifest does not label random negatives: %+v", r)
	}
}

func TestMineAllowTemplateAndStoplist(t *testing.T) {
	ws := fixture(t)
	st, err := Mine(context.Background(), ws, Options{AllowTemplate: true, Stoplist: []string{}, Sources: []string{"informal"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.TemplateExcluded != 0 || st.BySource["informal"] != 51 {
		t.Fatalf("stats %+v", st)
	}
	withEq := 0
	for _, p := range readPairs(t, ws) {
		if slices.Contains(p.Positives, "Eq") {
			withEq++
		}
	}
	if withEq != st.Pairs {
		t.Fatalf("empty stoplist: %d of %d pairs have Eq", withEq, st.Pairs)
	}
}

func TestMineHardNegatives(t *testing.T) {
	ws := fixture(t)
	decls, _ := minetest.Tables(3)
	fr := &fakeRanker{pos: map[string][]string{}}
	for _, d := range decls {
		if workspace.IsPremiseKind(d.Kind) {
			fr.premises = append(fr.premises, d.Name)
		}
	}
	sort.Strings(fr.premises)
	// Positives of each query: run once without a ranker to learn them.
	if _, err := Mine(context.Background(), ws, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range readPairs(t, ws) {
		fr.pos[p.Query] = p.Positives
	}
	mine := func(seed uint64) []workspace.Pair {
		if _, err := Mine(context.Background(), ws, Options{Ranker: fr, RangeLo: 2, RangeHi: 20, Negatives: 5, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		return readPairs(t, ws)
	}
	a, b, c := mine(1), mine(1), mine(2)
	differ, positivesInWindow := false, 0
	for i, p := range a {
		ranked, _ := fr.Rank(context.Background(), p.Query, p.Theorem, 20)
		window := ranked[2:20]
		positivesInWindow += checkNegatives(t, p, window)
		if len(p.Negatives) != 5 {
			t.Fatalf("%s: %d negatives", p.QueryID, len(p.Negatives))
		}
		last := -1
		for _, n := range p.Negatives {
			j := slices.Index(window, n)
			if j < 0 {
				t.Fatalf("%s: negative %s outside ranks 2-20", p.QueryID, n)
			}
			if j < last {
				t.Fatalf("%s: negatives not in rank order", p.QueryID)
			}
			last = j
		}
		if !slices.Equal(p.Negatives, b[i].Negatives) {
			t.Fatalf("%s: same seed, different negatives", p.QueryID)
		}
		if !slices.Equal(p.Negatives, c[i].Negatives) {
			differ = true
		}
	}
	if !differ {
		t.Error("a different seed sampled the same negatives everywhere")
	}
	if positivesInWindow == 0 {
		t.Error("no ranked window held a positive: the filter is untested")
	}
}

// TestMineLabelsRandomFill: a ranker that leaves too few candidates gets
// its pairs filled with random premise candidates, and each negative says
// which it is — the mined ones first, from the ranked window.
func TestMineLabelsRandomFill(t *testing.T) {
	ws := fixture(t)
	decls, _ := minetest.Tables(3)
	fr := &fakeRanker{pos: map[string][]string{}}
	for _, d := range decls {
		if workspace.IsPremiseKind(d.Kind) {
			fr.premises = append(fr.premises, d.Name)
		}
	}
	sort.Strings(fr.premises)
	// The window 0-3 holds at most 3 names, some of them positives.
	st, err := Mine(context.Background(), ws, Options{Ranker: fr, RangeLo: 0, RangeHi: 3, Negatives: 6})
	if err != nil {
		t.Fatal(err)
	}
	pairs := readPairs(t, ws)
	filled, mined := 0, 0
	for _, p := range pairs {
		ranked, _ := fr.Rank(context.Background(), p.Query, p.Theorem, 3)
		checkNegatives(t, p, ranked)
		if len(p.NegativeSources) != len(p.Negatives) || len(p.Negatives) != 6 {
			t.Fatalf("%s: %d negatives, %d sources", p.QueryID, len(p.Negatives), len(p.NegativeSources))
		}
		random := false
		for i, n := range p.Negatives {
			switch p.NegativeSources[i] {
			case dataset.NegativeMined:
				mined++
				if random || !slices.Contains(ranked, n) {
					t.Errorf("%s: mined negative %s is not from the ranked window %v (or follows a random one)", p.QueryID, n, ranked)
				}
			case dataset.NegativeRandom:
				random = true
			default:
				t.Errorf("%s: negative source %q", p.QueryID, p.NegativeSources[i])
			}
		}
		if random {
			filled++
		}
	}
	if filled != st.FilledNegatives || filled != len(pairs) || mined == 0 {
		t.Errorf("%d of %d pairs with random negatives, stats say %d; %d mined", filled, len(pairs), st.FilledNegatives, mined)
	}
}

func TestMineWithIndex(t *testing.T) {
	ws := fixture(t)
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), ws.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, mode := range []index.Mode{index.ModeBM25, index.ModeBest} {
		st, err := Mine(context.Background(), ws, Options{Ranker: IndexRanker{Searcher: ix, Mode: mode}, RangeLo: 1, RangeHi: 30, Negatives: 4, Force: true})
		if err != nil {
			t.Fatal(err)
		}
		// BM25 matches only documents sharing a word with the query, so
		// it may leave fewer than RangeHi candidates; best mode adds the
		// usage prior over every candidate.
		if mode == index.ModeBest && st.FilledNegatives != 0 {
			t.Errorf("%s: %d pairs needed random negatives with a 61-premise corpus", mode, st.FilledNegatives)
		}
		positivesInWindow := 0
		for _, p := range readPairs(t, ws) {
			if len(p.Negatives) != 4 {
				t.Fatalf("%s %s: %d negatives", mode, p.QueryID, len(p.Negatives))
			}
			ranked, err := IndexRanker{Searcher: ix, Mode: mode}.Rank(context.Background(), p.Query, p.Theorem, 30)
			if err != nil {
				t.Fatal(err)
			}
			positivesInWindow += checkNegatives(t, p, ranked[min(1, len(ranked)):])
		}
		if positivesInWindow == 0 {
			t.Errorf("%s: no ranked window held a positive: the filter is untested", mode)
		}
	}
}

func TestMineDecontamination(t *testing.T) {
	ws := fixture(t)
	decls, _ := minetest.Tables(3)
	var thm []workspace.Declaration
	for _, d := range decls {
		if d.Kind == workspace.KindTheorem {
			thm = append(thm, d)
		}
	}
	bench := filepath.Join(t.TempDir(), "bench.jsonl")
	lines := []string{
		// by name (full_name)
		fmt.Sprintf(`{"full_name": %q, "formal_stmt": "", "informal_stmt": "x"}`, thm[0].Name),
		// by normalised statement, written differently
		fmt.Sprintf(`{"full_name": "Other.name", "formal_stmt": "theorem foo\n  %s :=\nsorry"}`, strings.ReplaceAll(thm[1].Signature, " ", "  ")),
		// by informal text (the docstring of thm[2], in other case and spacing)
		fmt.Sprintf(`{"problem_name": "p3", "informal_stmt": "  %s  "}`, strings.ToUpper(*thm[2].Docstring)),
		``,
		`{"full_name": "Unrelated.theorem"}`,
	}
	os.WriteFile(bench, []byte(strings.Join(lines, "\n")), 0o644)
	st, err := Mine(context.Background(), ws, Options{Exclude: []string{bench}})
	if err != nil {
		t.Fatal(err)
	}
	// thm[0]: 2 pairs (informal + docstring). The fixture repeats each theorem
	// in 3 module copies with the same signature and docstring: thm[1]'s
	// statement matches 3 × 2 pairs, thm[2]'s docstring 3 docstring pairs.
	if st.Decontaminated != 11 || st.BenchmarkItems[bench] != 4 {
		t.Fatalf("decontaminated %d (%v), items %v", st.Decontaminated, st.DecontaminatedBy, st.BenchmarkItems)
	}
	for k, want := range map[string]int{"name": 2, "statement": 6, "informal": 3} {
		if got := st.DecontaminatedBy[fmt.Sprintf("%s (%s)", bench, k)]; got != want {
			t.Errorf("by %s: %d, want %d", k, got, want)
		}
	}
	sigOf := map[string]string{}
	for _, d := range thm {
		sigOf[d.Name] = d.Signature
	}
	for _, p := range readPairs(t, ws) {
		if p.Theorem == thm[0].Name || p.Query == *thm[2].Docstring || NormaliseStatement(sigOf[p.Theorem]) == NormaliseStatement(thm[1].Signature) {
			t.Fatalf("contaminated pair kept: %s", p.QueryID)
		}
	}
}

func TestMineErrors(t *testing.T) {
	ws := fixture(t)
	if _, err := Mine(context.Background(), ws, Options{ValidFrac: 0.7, TestFrac: 0.4}); err == nil {
		t.Error("fractions over 1 accepted")
	}
	if _, err := Mine(context.Background(), ws, Options{Sources: []string{"proofs"}}); err == nil {
		t.Error("unknown source accepted")
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"full_name\": \"a\"}\n{not json\n"), 0o644)
	_, err := Mine(context.Background(), ws, Options{Exclude: []string{bad}})
	var be *BenchError
	if !errors.As(err, &be) || be.Line != 2 || !errors.Is(err, ErrBenchmark) {
		t.Fatalf("bad benchmark: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Mine(ctx, ws, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
	if ws.Has(workspace.PairsFile) {
		t.Fatal("pairs.parquet written by a failed run")
	}
	// A run that can make no pair says why.
	os.Remove(ws.Path(workspace.InformalFile))
	if _, err := Mine(context.Background(), ws, Options{Sources: []string{"informal"}}); !errors.Is(err, ErrNoPairs) {
		t.Fatalf("no queries: err = %v", err)
	}
}

// TestMineExcludeRelativePath: benchmark paths are relative to the working
// directory, not the workspace.
func TestMineExcludeRelativePath(t *testing.T) {
	ws := fixture(t)
	st, err := Mine(context.Background(), ws, Options{Exclude: []string{"testdata/proofnet_sample.jsonl"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.BenchmarkItems[mustAbs(t, "testdata/proofnet_sample.jsonl")] != 3 {
		t.Fatalf("items %v", st.BenchmarkItems)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestMineLimit(t *testing.T) {
	ws := fixture(t)
	st, err := Mine(context.Background(), ws, Options{Limit: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	a := readPairs(t, ws)
	if st.Pairs != 10 || len(a) != 10 {
		t.Fatalf("limit 10: %d pairs", len(a))
	}
	Mine(context.Background(), ws, Options{Limit: 10, Seed: 3})
	b := readPairs(t, ws)
	for i := range a {
		if a[i].QueryID != b[i].QueryID {
			t.Fatal("limited sample not deterministic")
		}
	}
}

func TestSplitDeterministic(t *testing.T) {
	counts := map[string]int{}
	for i := 0; i < 10000; i++ {
		m := fmt.Sprintf("Mathlib.M%d", i)
		s := Split(m, 1, 0.1, 0.05)
		if Split(m, 1, 0.1, 0.05) != s {
			t.Fatal("split not deterministic")
		}
		counts[s]++
	}
	if counts["valid"] < 850 || counts["valid"] > 1150 || counts["test"] < 380 || counts["test"] > 620 {
		t.Fatalf("split fractions off: %v", counts)
	}
}

// oneByOne hides a ranker's RankMany: Mine asks it query by query.
type oneByOne struct{ Ranker }

// TestBatchedMiningIsOneByOne: pairs.parquet mined with an index ranker in
// batches (RankMany) is byte for byte the one mined query by query.
func TestBatchedMiningIsOneByOne(t *testing.T) {
	ws := fixture(t)
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{HashDim: 64}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), ws.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var r Ranker = IndexRanker{Searcher: ix, Mode: index.ModeBest}
	if _, ok := r.(BatchRanker); !ok {
		t.Fatal("IndexRanker is not a BatchRanker")
	}
	var files [2][]byte
	for i, r := range []Ranker{r, oneByOne{r}} {
		if _, err := Mine(context.Background(), ws, Options{Ranker: r, RangeLo: 1, RangeHi: 30, Negatives: 4, Force: true, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		if files[i], err = os.ReadFile(ws.Path(workspace.PairsFile)); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("pairs.parquet mined in batches differs from the one mined query by query")
	}
	if n := len(readPairs(t, ws)); n <= rankBatch {
		t.Errorf("%d pairs: not more than one batch", n)
	}
}
