package index

import (
	"cmp"
	"maps"
	"math/rand/v2"
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

// BuildPostings analyses with the tokenizer's walk and memoized filters;
// it must count the terms Analyze (what queries use) gives.
func TestAnalyzeChunkMatchesAnalyze(t *testing.T) {
	a, err := identAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"", "The groups are running; the group RUNS and runs.", "theorem Nat.Prime.two_le (p : ℕ) [Fact p.Prime] : 2 ≤ p",
		"HTTPServer x2y ConNF.toNearLitter_mem ℝ≥0∞ «term_!» İstanbul ΣΑΣ", "\xff\xfe bad utf8 \xc3 and a an the of"}
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"group", "Groups", "is", "the", "ConNF", "litter_set", "İ", "running", "ℝ", "x2", "a.b", "ΣΑΣ", "caresses", "ponies"}
	for range 500 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(" .,_"[r.IntN(4)])
		}
		texts = append(texts, b.String())
	}
	c, err := analyzeChunk(t.Context(), a, texts, 0, len(texts))
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		got := map[string]int{}
		for _, p := range c.pairs[c.docOff[i]:c.docOff[i+1]] {
			got[c.terms[p.term]] += int(p.tf)
		}
		want := analyzeTerms(a, text)
		if !maps.Equal(got, want) || int(c.length[i]) != len(a.Analyze([]byte(text))) {
			t.Fatalf("%q: chunk %v (%d tokens), Analyze %v (%d)", text, got, c.length[i], want, len(a.Analyze([]byte(text))))
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
