package retrieval

import (
	_ "embed"
	"encoding/json"
	"sync"
)

// A mathematician writes "divides", "derivative", "kernel"; Mathlib's names
// say dvd, deriv, ker. The word-names table (data/word-names.json) maps
// docstring words to the name tokens that declarations whose docstring
// says the word carry far more often than chance — learnt from the
// library's own docstrings by internal/tools/wordnames (Mathlib v4.29.0,
// the dev benchmark's tune-half module groups only), not written for a
// benchmark. With Weights.WordNames (off by default: +0.006 nDCG@10 on the
// tuning half, neutral on the held-out half and the second sets) its tokens
// join the name signal's words (and the reranker's query tokens), never
// BM25's: added to BM25 they lowered the tuning half (0.560 → 0.549; see
// README.md, "theorem search").

//go:embed data/word-names.json
var wordNamesJSON []byte

// wordNames is the embedded table as a Vocabulary (phrases only).
var wordNames = sync.OnceValue(func() *Vocabulary {
	var f vocabularyFile
	if err := json.Unmarshal(wordNamesJSON, &f); err != nil {
		panic("retrieval/data/word-names.json: " + err.Error())
	}
	v, err := NewVocabulary(f.Phrases, f.Notation)
	if err != nil {
		panic("retrieval/data/word-names.json: " + err.Error())
	}
	return v
})

// WordNameTokens returns the name tokens the word-names table gives text's
// words, space-separated (words text already contains are not repeated).
func WordNameTokens(text string) string { return wordNames().Expand(text) }
