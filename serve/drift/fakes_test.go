package drift

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driftkit/driftkit/lean"
	"github.com/driftkit/driftkit/llm"
	"github.com/driftkit/driftkit/retrieval"
)

// memCorpus is a hand-built retrieval.Corpus: entries and the usage graph
// derived from their statement dependencies (as index/usage.parquet is).
type memCorpus struct {
	entries map[string]retrieval.Entry
	usedBy  map[string][]string
	order   []string
}

func newCorpus(es ...retrieval.Entry) *memCorpus {
	c := &memCorpus{entries: map[string]retrieval.Entry{}, usedBy: map[string][]string{}}
	for _, e := range es {
		c.entries[e.Name] = e
		c.order = append(c.order, e.Name)
		for _, d := range e.StatementDeps {
			c.usedBy[d] = append(c.usedBy[d], e.Name)
		}
	}
	for _, u := range c.usedBy {
		sort.Strings(u)
	}
	return c
}

func (c *memCorpus) Len() int { return len(c.entries) }
func (c *memCorpus) Lookup(name string) (retrieval.Entry, bool) {
	e, ok := c.entries[name]
	return e, ok
}
func (c *memCorpus) UsedBy(p string) []string { return c.usedBy[p] }

func def(name, sig, informal string, deps ...string) retrieval.Entry {
	return retrieval.Entry{Name: name, Kind: "definition", Signature: sig, InformalStatement: informal, StatementDeps: deps}
}

func thm(name, sig, informal string, deps ...string) retrieval.Entry {
	return retrieval.Entry{Name: name, Kind: "theorem", Signature: sig, InformalStatement: informal, StatementDeps: deps}
}

// wordSearcher ranks the corpus's non-theorems by shared lower-case words
// between the query (text and formal) and the name plus informal text.
type wordSearcher struct {
	c             *memCorpus
	ignoreExclude bool
	allKinds      bool // rank theorems too, whatever the filter says
	queries       atomic.Int64
	mu            sync.Mutex
	seen          []retrieval.Query
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}_]+`)

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.ToLower(strings.ReplaceAll(s, ".", " ")), -1) {
		out[w] = true
	}
	return out
}

func (s *wordSearcher) Search(ctx context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	s.queries.Add(1)
	s.mu.Lock()
	s.seen = append(s.seen, q)
	s.mu.Unlock()
	if strings.TrimSpace(q.Text+q.Formal) == "" {
		return nil, retrieval.ErrEmptyQuery
	}
	qw := words(q.Text + " " + q.Formal)
	var hits []retrieval.Hit
	for _, name := range s.c.order {
		e := s.c.entries[name]
		if !q.Filter.AllKinds && !s.allKinds && e.Kind == "theorem" {
			continue
		}
		if !s.ignoreExclude && slices.Contains(q.Filter.Exclude, name) {
			continue
		}
		n := 0
		for w := range words(name + " " + e.InformalStatement) {
			if qw[w] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, retrieval.Hit{Name: name, Kind: e.Kind, Score: float64(n)})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	k := q.K
	if k <= 0 {
		k = 10
	}
	if len(hits) > k {
		hits = hits[:k]
	}
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits, nil
}

// fakeLean is a lean.Checker: a statement with "BAD" in it fails with an
// unknown identifier, "CRASH" cannot be checked, anything else passes
// (with the sorry warning Lean prints).
type fakeLean struct {
	calls atomic.Int64
	delay time.Duration
	mu    sync.Mutex
	codes []string
}

func (f *fakeLean) Backend() string { return "fake" }
func (f *fakeLean) Close() error    { return nil }
func (f *fakeLean) Check(ctx context.Context, sn []lean.Snippet) ([]lean.Result, error) {
	f.calls.Add(1)
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := make([]lean.Result, len(sn))
	for i, s := range sn {
		f.mu.Lock()
		f.codes = append(f.codes, s.Code)
		f.mu.Unlock()
		r := lean.Result{ID: s.ID, Backend: "fake", CodeLine0: 1}
		switch {
		case strings.Contains(s.Code, "CRASH"):
			r.Error = "repl worker crashed (exit status 137)"
		case strings.Contains(s.Code, "BAD"):
			r.Messages = []lean.Message{{Severity: "error", Pos: lean.Pos{Line: 1, Column: 20}, Data: "unknown identifier 'BAD'"}}
		default:
			r.Pass = true
			r.Messages = []lean.Message{{Severity: "warning", Pos: lean.Pos{Line: 1, Column: 8}, Data: "declaration uses 'sorry'"}}
			r.Sorries = []lean.Sorry{{Goal: "⊢ True"}}
		}
		out[i] = r
	}
	return out, nil
}

// fakeBEq judges equivalence on the statements' text after the name:
// equal up to white space → equivalent; "ONEWAY" in the candidate → one
// direction; else not proved.
type fakeBEq struct{ calls atomic.Int64 }

var declHeadRE = regexp.MustCompile(`^(?s).*?(theorem|lemma|example)\s+(\S+)?`)

func beqBody(s string) string {
	s = declHeadRE.ReplaceAllString(s, "")
	s = strings.TrimSuffix(strings.TrimSpace(s), ":= by sorry")
	s = strings.TrimSuffix(strings.TrimSpace(s), ":= sorry")
	return strings.Join(strings.Fields(s), " ")
}

func (f *fakeBEq) Equivalent(ctx context.Context, header, ref, cand string) (Equivalence, error) {
	f.calls.Add(1)
	switch {
	case beqBody(ref) == beqBody(cand):
		return Equivalence{Verdict: Equivalent, Backend: "fake"}, nil
	case strings.Contains(cand, "ONEWAY"):
		return Equivalence{Verdict: OneDirection, Backend: "fake"}, nil
	}
	return Equivalence{Verdict: NotProved, Backend: "fake"}, nil
}

var _ = fmt.Sprint

// pathChatter sends every request to another base URL (a misconfigured
// endpoint) through a real client.
type pathChatter struct{ url string }

func (p pathChatter) Chat(ctx context.Context, r llm.ChatRequest) (llm.ChatResponse, error) {
	c, err := llm.New(llm.Config{BaseURLs: []string{p.url}, Model: "m", MaxRetries: 1, BackoffBase: time.Millisecond})
	if err != nil {
		return llm.ChatResponse{}, err
	}
	defer c.Close()
	return c.Chat(ctx, r)
}
