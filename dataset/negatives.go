// Package dataset is the stage that makes training data from a workspace:
// mining dependency-retrieval pairs with hard negatives (dataset/mine) and
// writing them for outside trainers and publishers (dataset/export:
// FlagEmbedding JSONL, a Hugging Face dataset folder). This package holds
// what both share: the one random-negative fill and the labels of where a
// negative came from. The tables themselves are package workspace's.
package dataset

import (
	"github.com/driftkit/driftkit/workspace"
	"hash/fnv"
	"math/rand/v2"
	"slices"
)

// Sources of a workspace.Pair's negatives (workspace.Pair.NegativeSources).
const (
	// NegativeMined is a hard negative: ranked high by a retriever for the
	// query without being one of its premises.
	NegativeMined = "mined"
	// NegativeRandom is a premise candidate drawn at random: the fallback
	// when too few mined negatives exist (or no index was used), and far
	// easier to tell apart than a mined one.
	NegativeRandom = "random"
)

// NegativeRNG is the random source of one query's negatives: seeded by the
// run's seed and the query id, so a pair's negatives do not depend on the
// order or the number of workers.
func NegativeRNG(seed uint64, queryID string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(queryID))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// FillRandomNegatives is the one implementation of the random fill (mine and
// export both use it): it appends premise candidates drawn from pool with
// rng to neg until neg holds want names, skipping names already in neg and
// those bad rejects (the theorem, its positives). It gives up after 20 draws
// per wanted name, so a pool of mostly rejected names cannot loop. It
// returns the extended slice and how many names were added; the added names
// are NegativeRandom negatives.
func FillRandomNegatives(rng *rand.Rand, neg []string, want int, pool []string, bad func(string) bool) ([]string, int) {
	added := 0
	for tries := 0; len(neg) < want && tries < 20*want && len(pool) > 0; tries++ {
		n := pool[rng.IntN(len(pool))]
		if !bad(n) && !slices.Contains(neg, n) {
			neg = append(neg, n)
			added++
		}
	}
	return neg, added
}

// NegativeSourcesOf returns p's negative sources, one per negative. A row
// written before pairs.parquet had the column has none: its negatives are
// returned as "" (unknown).
func NegativeSourcesOf(p *workspace.Pair) []string {
	if len(p.NegativeSources) == len(p.Negatives) {
		return p.NegativeSources
	}
	return make([]string, len(p.Negatives))
}
