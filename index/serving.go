package index

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/driftkit/driftkit/internal/progress"
	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// servingBuild writes a generation's files other than the vectors — the
// table and the postings Open maps, the Parquet copies for other tools,
// and the bleve index when asked — each on its own goroutine, while Build
// computes the vectors (on a 2-core machine most of them are single-
// threaded: running them side by side is what shortens the build).
type servingBuild struct {
	g      *errgroup.Group
	cancel context.CancelFunc
	mu     sync.Mutex
	phases map[string]time.Duration
	usage  int // rows of usage.parquet
	// tokens takes the tokenized corpus for the postings (nil: tokenize
	// it), once.
	tokens chan *corpusTokens
	// notations is the number of notation symbols the table holds.
	notations int
	// formulaGrams is the number of grams formula.dk holds.
	formulaGrams int
}

// startServing starts the writers of the serving files into stage.
func startServing(ctx context.Context, stage, gen string, docs []Doc, texts []string, notations []workspace.Notation, proofUses map[string]int32, bleve bool) *servingBuild {
	ctx, cancel := context.WithCancel(ctx)
	g, ctx := errgroup.WithContext(ctx)
	s := &servingBuild{g: g, cancel: cancel, phases: map[string]time.Duration{}}
	usage := BuildUsage(docs)
	s.usage = len(usage)
	// The postings are built from the corpus Build tokenized for the hash
	// encoder (one tokenizing pass for both, #29), or, with another
	// encoder (nil sent), tokenized here. The phase starts when the
	// tokens arrive.
	s.tokens = make(chan *corpusTokens, 1)
	s.g.Go(func() error {
		var ct *corpusTokens
		select {
		case ct = <-s.tokens:
		case <-ctx.Done():
			return ctx.Err()
		}
		t0 := time.Now()
		a, err := identAnalyzer()
		if err != nil {
			return err
		}
		if ct == nil {
			if ct, err = tokenizeCorpus(ctx, a, texts, false); err != nil {
				return err
			}
		}
		err = postingsFromTokens(ct, a, 0).save(filepath.Join(stage, PostingsName), gen)
		s.mu.Lock()
		s.phases["bm25_postings"] = time.Since(t0)
		s.mu.Unlock()
		return err
	})
	s.run(ctx, "formula_postings", func() error {
		sigs := make([]string, len(docs))
		for i := range docs {
			sigs[i] = docs[i].Signature
		}
		p, err := BuildFormulaPostings(ctx, sigs, formulaMaxDF)
		if err != nil {
			return err
		}
		s.formulaGrams = p.terms.Len() // read after wait
		return p.save(filepath.Join(stage, FormulaName), gen)
	})
	s.run(ctx, "write_table", func() error {
		c := retrieval.BuildTableColumns(tableEntries(docs), usedByMap(usage))
		s.notations = c.AddNotations(notations) // read after wait
		c.AddProofUses(proofUses)
		return writeTable(filepath.Join(stage, TableName), gen, c)
	})
	s.run(ctx, "write_parquet", func() error {
		if err := workspace.WriteTable(filepath.Join(stage, DocsName), docs); err != nil {
			return err
		}
		return workspace.WriteTable(filepath.Join(stage, UsageName), usage)
	})
	if bleve {
		s.run(ctx, "bm25_bleve", func() error {
			bar := progress.Start(ctx, "bm25 (bleve)", int64(len(docs)))
			defer bar.Finish()
			if err := buildBM25(ctx, filepath.Join(stage, BM25Name), docs, bar.Add); err != nil {
				return fmt.Errorf("bleve index: %w", err)
			}
			// bleve makes its folder 0700 and its files 0600: other users
			// could not search a shared workspace.
			return workspace.ShareModes(filepath.Join(stage, BM25Name))
		})
	}
	return s
}

// run starts one writer and records its time.
func (s *servingBuild) run(ctx context.Context, phase string, fn func() error) {
	s.g.Go(func() error {
		t0 := time.Now()
		if err := ctx.Err(); err != nil {
			return err
		}
		err := fn()
		s.mu.Lock()
		s.phases[phase] = time.Since(t0)
		s.mu.Unlock()
		return err
	})
}

// wait waits for every writer and returns the first error.
func (s *servingBuild) wait() error { return s.g.Wait() }

// stop cancels the writers still running and waits for them (deferred by
// Build: a failed build leaves no goroutine writing into its staging
// folder).
func (s *servingBuild) stop() {
	s.cancel()
	s.g.Wait()
}

// tableEntries are the documents as the table's entries.
func tableEntries(docs []Doc) []retrieval.Entry {
	out := make([]retrieval.Entry, len(docs))
	for i := range docs {
		d := &docs[i]
		out[i] = retrieval.Entry{Name: d.Name, Kind: d.Kind, Module: d.Module, Library: d.Library, Signature: d.Signature,
			InformalName: d.InformalName, InformalStatement: d.InformalStatement, InformalSource: d.InformalSource, StatementDeps: d.Deps}
	}
	return out
}

// usedByMap is the usage graph as NewTable takes it.
func usedByMap(usage []workspace.Usage) map[string][]string {
	m := make(map[string][]string, len(usage))
	for _, u := range usage {
		m[u.Premise] = u.UsedBy
	}
	return m
}
