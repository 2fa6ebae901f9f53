package retrieval

import "math"

// Metrics of one ranked list (or their macro average over queries) at a
// cutoff K. Every retrieval evaluation — `eval retrieval`, the DRIFT
// runner's union of sub-query premises — scores with ScoreAt, so their
// numbers can be read side by side.
type Metrics struct {
	K    int     `json:"k"`
	P    float64 `json:"precision"`
	R    float64 `json:"recall"`
	F1   float64 `json:"f1"`
	NDCG float64 `json:"ndcg"`
}

// ScoreAt scores the first k names of ranked against the gold set:
// P = hits/k, R = hits/|gold|, F1 their harmonic mean (0 without a hit) and
// binary nDCG. A set (DRIFT's union of premises) is scored with
// k = len(set). k ≤ 0 or an empty gold set scores zero.
func ScoreAt(ranked []string, gold map[string]bool, k int) Metrics {
	m := Metrics{K: k}
	if k <= 0 || len(gold) == 0 {
		return m
	}
	hit := 0
	var dcg float64
	for i := 0; i < k && i < len(ranked); i++ {
		if gold[ranked[i]] {
			hit++
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	var idcg float64
	for i := 0; i < k && i < len(gold); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	m.P, m.R = float64(hit)/float64(k), float64(hit)/float64(len(gold))
	if m.P+m.R > 0 {
		m.F1 = 2 * m.P * m.R / (m.P + m.R)
	}
	if idcg > 0 {
		m.NDCG = dcg / idcg
	}
	return m
}

// GoldPremises returns a benchmark item's gold premises without repeats and
// without the item's own declaration self (which is never a candidate, so
// counting it would only lower recall). It never returns nil.
func GoldPremises(gold []string, self string) []string {
	seen := map[string]bool{self: self != ""}
	out := []string{}
	for _, g := range gold {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}
