package index_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftkit/driftkit/index"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// rankingQuery is one line of testdata/rankings/queries.jsonl: the
// statements of testdata/bench.jsonl, ConNF dev and ProofNet valid.
type rankingQuery struct {
	Set    string `json:"set"`
	ID     string `json:"id"`
	Text   string `json:"text"`
	Formal string `json:"formal"`
}

// rankingConfig is one way of searching that the golden file pins. The
// bleve engine is not among them: bleve sums a document's score in an order
// that varies between runs, so its near-ties swap places from one run to
// the next (its files are bleve's own format, which this layout does not
// change).
type rankingConfig struct {
	name  string
	query func(q rankingQuery) retrieval.Query
}

var rankingConfigs = []rankingConfig{
	{"best", func(q rankingQuery) retrieval.Query { return retrieval.Query{Text: q.Text, K: 10} }},
	{"best-exclude", func(q rankingQuery) retrieval.Query {
		return retrieval.Query{Text: q.Text, K: 10, Filter: retrieval.Filter{Exclude: []string{q.ID}}}
	}},
	{"best-formal", func(q rankingQuery) retrieval.Query { return retrieval.Query{Text: q.Text, Formal: q.Formal, K: 10} }},
	{"theorem", func(q rankingQuery) retrieval.Query {
		return retrieval.Query{Text: q.Text, K: 10, Filter: retrieval.Filter{AllKinds: true}}
	}},
	{"bm25", func(q rankingQuery) retrieval.Query {
		return retrieval.Query{Text: q.Text, K: 10, Mode: retrieval.ModeBM25}
	}},
	{"dense", func(q rankingQuery) retrieval.Query {
		return retrieval.Query{Text: q.Text, K: 10, Mode: retrieval.ModeDense}
	}},
	{"hybrid", func(q rankingQuery) retrieval.Query {
		return retrieval.Query{Text: q.Text, K: 10, Mode: retrieval.ModeHybrid}
	}},
}

// TestRankingsUnchanged pins what search returns on the bundled library
// (testdata/lean, its tables extracted and informalized with the template
// provider and frozen in testdata/rankings so that extraction changes do not
// move it) for 517 statements in seven configurations, and what Lookup and
// UsedBy return for every declaration. The golden file was written by the
// index format before driftkit-index/4 (docs.parquet, bm25.postings,
// usage.parquet decoded at Open): a new layout must answer exactly as the
// old one did. A deliberate ranking change updates it with -update and says
// why in the commit.
func TestRankingsUnchanged(t *testing.T) {
	ws := rankingWorkspace(t)
	queries := readRankingQueries(t)
	var out strings.Builder
	ix, err := index.Open(context.Background(), ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, c := range rankingConfigs {
		qs := make([]retrieval.Query, len(queries))
		for i, q := range queries {
			qs[i] = c.query(q)
		}
		// Half one by one, half in one SearchMany: both must agree.
		many, err := ix.SearchMany(context.Background(), qs[len(qs)/2:])
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i, q := range queries {
			var hits []retrieval.Hit
			if i < len(qs)/2 {
				if hits, err = ix.Search(context.Background(), qs[i]); err != nil {
					t.Fatalf("%s %s: %v", c.name, q.ID, err)
				}
			} else {
				hits = many[i-len(qs)/2]
			}
			var list strings.Builder
			for _, h := range hits {
				fmt.Fprintf(&list, "  %d %s %s %.6f %s\n", h.Rank, h.Name, h.Kind, h.Score, signalString(h.Signals))
			}
			// The bench set in full (readable diffs), the others as a
			// digest of the same lines.
			if q.Set == "bench" {
				fmt.Fprintf(&out, "%s %s %s\n%s", c.name, q.Set, q.ID, list.String())
			} else {
				fmt.Fprintf(&out, "%s %s %s %.16x\n", c.name, q.Set, q.ID, sha256.Sum256([]byte(list.String())))
			}
		}
	}
	corpusDigest(t, &out, ix)
	if d := os.Getenv("DRIFTKIT_RANKINGS_OUT"); d != "" {
		os.WriteFile(d, []byte(out.String()), 0o644)
	}
	golden(t, "rankings/rankings", []byte(out.String()))
}

// corpusDigest writes one line per declaration: its name and a digest of
// its Lookup entry and its UsedBy list.
func corpusDigest(t *testing.T, out *strings.Builder, ix *index.Index) {
	g, release := ix.Pin()
	defer release()
	for doc := range g.Len() {
		name := g.Table().Name(doc)
		got, ok := ix.Lookup(name)
		if !ok {
			t.Fatalf("Lookup(%q) of document %d: not found", name, doc)
		}
		b, _ := json.Marshal(struct {
			E retrieval.Entry
			U []string
		}{got, ix.UsedBy(name)})
		fmt.Fprintf(out, "doc %d %s %.16x\n", doc, name, sha256.Sum256(b))
	}
}

func signalString(s map[string]int) string {
	var parts []string
	for _, k := range []string{"bm25", "dense", "neighbors", "assoc", "concept", "mention", "prior", "name", "fused"} {
		if r, ok := s[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%d", k, r))
		}
	}
	if len(parts) != len(s) {
		parts = append(parts, fmt.Sprintf("(%d signals)", len(s)))
	}
	return strings.Join(parts, ",")
}

// rankingWorkspace builds the hash index (and the bleve index) of the
// frozen bundled-library tables.
func rankingWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ws, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{workspace.DeclarationsFile, workspace.InformalFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "rankings", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ws.Path(n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := index.Build(context.Background(), ws, index.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readRankingQueries(t *testing.T) []rankingQuery {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "rankings", "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []rankingQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q rankingQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return qs
}
