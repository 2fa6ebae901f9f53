package index

import (
	"cmp"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/driftkit/driftkit/retrieval"
)

// featuresReference is features as it was before it stopped allocating
// (one pair list sorted by hash): the vectors of every index depend on the
// exact list, so the fast one must agree with it on every text.
func (h *HashEncoder) featuresReference(text string) []feature {
	var raw []feature
	retrieval.Words(text, func(w string, _, _ int) {
		n := 0
		retrieval.SubTokens(w, func(t string) {
			n++
			raw = append(raw, feature{hash64('t', t), 1})
			if utf8.RuneCountInString(t) >= 3 {
				g := "#" + t + "#"
				var o []int
				for i := range g {
					o = append(o, i)
				}
				o = append(o, len(g))
				for i := 0; i+3 < len(o); i++ {
					raw = append(raw, feature{hash64('c', g[o[i]:o[i+3]]), h.ngramWeight})
				}
			}
		})
		if n > 1 {
			raw = append(raw, feature{hash64('i', strings.ToLower(w)), 1})
		}
	})
	slices.SortFunc(raw, func(a, b feature) int { return cmp.Compare(a.h, b.h) })
	out := raw[:0]
	for _, f := range raw {
		if len(out) > 0 && out[len(out)-1].h == f.h {
			out[len(out)-1].w += f.w
			continue
		}
		out = append(out, f)
	}
	return out
}

func TestFeaturesMatchReference(t *testing.T) {
	h := NewHashEncoder(64)
	texts := []string{"", "a", "theorem Nat.Prime.two_le (p : ℕ) [Fact p.Prime] : 2 ≤ p",
		"HTTPServer x2y ConNF.toNearLitter_mem ℝ≥0∞ «term_!» Finset.sum_range_succ_comm'",
		"group group group Group GROUP groups", "\xff\xfebad utf8 \xc3", strings.Repeat("LongIdentifierWithManyParts", 40),
		"αβγ δεζ ΑΒΓ_δ ∀ x ∈ S, f x = 0"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("aAbBzZ09._'!? ℝαΩ∞\u00e9-+()")
	for range 2000 {
		rs := make([]rune, r.IntN(60))
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		texts = append(texts, string(rs))
	}
	for _, text := range texts {
		got, want := h.features(text), h.featuresReference(text)
		if !slices.Equal(got, want) {
			t.Fatalf("features(%q):\n got %v\nwant %v", text, got, want)
		}
	}
}

func TestSubTokensBufMatchesSubTokens(t *testing.T) {
	for _, w := range []string{"ConNF.toNearLitter_mem", "HTTPServer", "x2Y", "ℝ≥0∞", "Nat..succ", "_a_B_", "", "ABC", "aBC.dEF'g!h?i"} {
		var a, b []string
		retrieval.SubTokens(w, func(t string) { a = append(a, t) })
		var buf []byte
		retrieval.SubTokensBuf(w, &buf, func(t string) { b = append(b, strings.Clone(t)) })
		if !slices.Equal(a, b) {
			t.Errorf("%q: SubTokens %q, SubTokensBuf %q", w, a, b)
		}
	}
}

func BenchmarkFeatures(b *testing.B) {
	h := NewHashEncoder(256)
	text := "theorem Finset.sum_range_succ_comm {β : Type u} [AddCommMonoid β] (f : ℕ → β) (n : ℕ) : ∑ x ∈ Finset.range (n + 1), f x = f n + ∑ x ∈ Finset.range n, f x\nsum range succ comm: The sum over the range of n plus one of f equals f of n plus the sum over the range of n."
	for b.Loop() {
		h.features(text)
	}
}

func BenchmarkFeaturesReference(b *testing.B) {
	h := NewHashEncoder(256)
	text := "theorem Finset.sum_range_succ_comm {β : Type u} [AddCommMonoid β] (f : ℕ → β) (n : ℕ) : ∑ x ∈ Finset.range (n + 1), f x = f n + ∑ x ∈ Finset.range n, f x\nsum range succ comm: The sum over the range of n plus one of f equals f of n plus the sum over the range of n."
	for b.Loop() {
		h.featuresReference(text)
	}
}

// tokenTestTexts are random texts over identifier-like words, enough for
// tokenizeCorpus to use several workers (and chunks per worker).
func tokenTestTexts(seed uint64, n int) []string {
	texts := []string{"", "The groups are running; the group RUNS and runs.", "theorem Nat.Prime.two_le (p : ℕ) [Fact p.Prime] : 2 ≤ p",
		"HTTPServer x2y ConNF.toNearLitter_mem ℝ≥0∞ «term_!» İstanbul ΣΑΣ", "\xff\xfe bad utf8 \xc3 and a an the of",
		"group group group Group GROUP groups", strings.Repeat("LongIdentifierWithManyParts ", 40)}
	r := rand.New(rand.NewPCG(seed, 4))
	words := []string{"group", "Groups", "is", "the", "ConNF", "litter_set", "İ", "running", "ℝ", "x2", "a.b", "ΣΑΣ", "caresses", "ponies",
		"ConNF.litter_set", "ℝ≥0∞", "HTTPServer", "Nat.Prime", "\x00", "αβγ_δ", "Finset.sum_range_succ_comm'"}
	for len(texts) < n {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(" .,_("[r.IntN(5)])
		}
		texts = append(texts, b.String())
	}
	return texts
}

// BuildPostings analyses with the tokenizer's walk and the filters applied
// per distinct token; it must count the terms Analyze (what queries use)
// gives.
func TestTokenizeCorpusMatchesAnalyze(t *testing.T) {
	a, err := identAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	texts := tokenTestTexts(3, 5000)
	ct, err := tokenizeCorpus(t.Context(), a, texts, false)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOMAXPROCS(0) > 1 && len(ct.dicts) < 2 {
		t.Fatalf("%d workers", len(ct.dicts))
	}
	for i, text := range texts {
		c := ct.chunkOf(i)
		j := i - c.start
		got := map[string]int{}
		for _, p := range c.pairs[c.pairOff[j]:c.pairOff[j+1]] {
			got[c.dict.terms[p.term]] += int(p.tf)
		}
		want := analyzeTerms(a, text)
		if !maps.Equal(got, want) || int(c.length[j]) != len(a.Analyze([]byte(text))) {
			t.Fatalf("%q: chunk %v (%d tokens), Analyze %v (%d)", text, got, c.length[j], want, len(a.Analyze([]byte(text))))
		}
	}
}

// The build fits and embeds from the tokenized corpus: the same document
// frequencies as Fit and, bit for bit, the vectors EncodeOne gives.
func TestTokensFitAndEncodeMatchTexts(t *testing.T) {
	a, err := identAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	texts := tokenTestTexts(7, 5000)
	ct, err := tokenizeCorpus(t.Context(), a, texts, true)
	if err != nil {
		t.Fatal(err)
	}
	h, ref := NewHashEncoder(64), NewHashEncoder(64)
	h.fitTokens(ct)
	ref.Fit(texts)
	if !slices.Equal(h.df, ref.df) || h.n != ref.n || h.state != ref.state {
		t.Fatal("fitTokens' document frequencies differ from Fit's")
	}
	got, want := make([]float32, 64), make([]float32, 64)
	for i, text := range texts {
		h.encodeTokens(ct, i, got)
		ref.EncodeOne(text, want)
		for k := range got {
			if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
				t.Fatalf("document %d %q: encodeTokens %v, EncodeOne %v", i, text, got, want)
			}
		}
	}
}

// Fit counts each distinct feature of a document once, as a count over
// the reference features does.
func TestFitMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	words := []string{"group", "Groups", "ConNF.litter_set", "ℝ≥0∞", "x2", "a", "HTTPServer", "theorem", "Nat.Prime", "\x00", ""}
	var texts []string
	for range 3000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(" .(_"[r.IntN(4)])
		}
		texts = append(texts, b.String())
	}
	h := NewHashEncoder(64)
	h.Fit(texts)
	want := make([]uint32, dfBuckets)
	for _, text := range texts {
		for _, f := range h.featuresReference(text) {
			want[f.h%dfBuckets]++
		}
	}
	if !slices.Equal(h.df, want) {
		t.Fatal("Fit's document frequencies differ from the reference features'")
	}
}
