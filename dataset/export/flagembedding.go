// Package export writes a workspace's tables in the layouts of outside tools:
// FlagEmbedding's fine-tuning JSONL (with the fine-tune script) and a Hugging
// Face dataset folder (dataset card and Parquet shards).
//
// Documents are rendered by workspace.Render through workspace.LoadDocuments, so the
// passages a model is fine-tuned on are exactly the texts the index embeds.
package export

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/workspace"
)

// File names inside WS/export/flagembedding/.
const (
	FlagDir        = "flagembedding"
	FlagTrainFile  = "train.jsonl"
	FlagValidFile  = "valid.jsonl"
	FlagTestFile   = "test.jsonl"
	FlagCorpusFile = "corpus.jsonl"
	FlagScriptFile = "finetune.sh"
)

// FlagOptions configure the FlagEmbedding export.
type FlagOptions struct {
	// Prompt is written as each example's "prompt". In FlagEmbedding's
	// same-dataset mode (which DRIFT's recipe uses) it is always prepended to
	// the query, so the default is "" (BGE-M3 uses no query instruction).
	Prompt string
	// Type is each example's "type" (default "normal": the group size comes
	// from --train_group_size).
	Type string
	// MinNegatives is the least number of negatives per example; pairs with
	// fewer mined negatives are filled with random premise candidates (seeded),
	// so "neg" is never empty. 0: the default 3 (DRIFT's train_group_size
	// 4 − 1); negative: no filling (--min-negatives 0).
	MinNegatives int
	// Seed makes the random fill deterministic.
	Seed uint64
	// AllKinds puts every declaration in corpus.jsonl, not only premise
	// candidates (workspace.IsPremiseKind).
	AllKinds bool
	// Recipe is the fine-tune recipe written to finetune.sh (default
	// DRIFTRecipe()).
	Recipe *Recipe
	Force  bool
}

// FlagStats counts what the FlagEmbedding export wrote.
type FlagStats struct {
	Train, Valid, Test int
	// Skipped pairs had no positive found in the corpus.
	Skipped int
	// Filled pairs had fewer than MinNegatives negatives in pairs.parquet
	// and got random ones here.
	Filled int
	// RandomNegatives counts the random negatives written (mine's fill and
	// this export's).
	RandomNegatives int
	// MissingDocs counts positive or negative names absent from the corpus.
	MissingDocs int
	Corpus      int
	Dir         string
}

// FlagExample is one line of train.jsonl / valid.jsonl in FlagEmbedding's
// schema. QueryID, Theorem and Source are extra columns FlagEmbedding ignores.
type FlagExample struct {
	Query  string   `json:"query"`
	Pos    []string `json:"pos"`
	Neg    []string `json:"neg"`
	Prompt string   `json:"prompt"`
	Type   string   `json:"type"`
	// PosScores and NegScores are written only when scores exist (teacher
	// scores for --knowledge_distillation); driftkit's pairs carry none yet.
	PosScores []float64 `json:"pos_scores,omitempty"`
	NegScores []float64 `json:"neg_scores,omitempty"`
	QueryID   string    `json:"query_id"`
	Theorem   string    `json:"theorem"`
	Source    string    `json:"query_source"`
	// NegSources labels each of Neg: mined (a hard negative), random (a
	// random premise candidate, from mine's fill or this export's) or
	// unknown (pairs of an older driftkit). FlagEmbedding ignores it.
	NegSources []string `json:"neg_sources"`
}

// CorpusLine is one line of corpus.jsonl, usable as hn_mine's
// --candidate_pool (which reads "text").
type CorpusLine struct {
	Text string `json:"text"`
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// jsonlFile is an atomically replaced JSON-lines output.
type jsonlFile struct {
	af   *workspace.AtomicFile
	w    *bufio.Writer
	enc  *json.Encoder
	path string
	rows int64
}

func createJSONL(tx *workspace.Txn, rel string) (*jsonlFile, error) {
	af, err := tx.Create(rel)
	if err != nil {
		return nil, err
	}
	path := af.Dest()
	w := bufio.NewWriterSize(af, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonlFile{af: af, w: w, enc: enc, path: path}, nil
}

func (f *jsonlFile) write(v any) error {
	f.rows++
	if err := f.enc.Encode(v); err != nil {
		return &workspace.FileError{Path: f.path, Row: f.rows - 1, Err: err}
	}
	return nil
}

func (f *jsonlFile) commit() error {
	if err := f.w.Flush(); err != nil {
		f.af.Abort()
		return &workspace.FileError{Path: f.path, Row: -1, Err: err}
	}
	return f.af.Commit()
}

// FlagEmbedding writes WS/export/flagembedding/: train.jsonl, valid.jsonl
// (test.jsonl when pairs have a test split), corpus.jsonl and finetune.sh.
// The files and the manifest entry replace the old ones together (one
// workspace.Txn), and only when everything was written.
func FlagEmbedding(ctx context.Context, ws *workspace.Workspace, opts FlagOptions) (*FlagStats, error) {
	opts.defaults()
	names := []string{FlagTrainFile, FlagValidFile, FlagTestFile, FlagCorpusFile, FlagScriptFile}
	relNames := make([]string, len(names))
	for i, n := range names {
		relNames[i] = flagRel(n)
	}
	unlock, err := ws.Lock("export flagembedding")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := ws.GuardOutputs(opts.Force, relNames...); err != nil {
		return nil, err
	}
	pairsPath := ws.Path(workspace.PairsFile)
	if !ws.Has(workspace.PairsFile) {
		return nil, ws.Missing(workspace.PairsFile, "pairs")
	}
	run := ws.StartRun("export flagembedding", map[string]any{"prompt": opts.Prompt, "type": opts.Type,
		"min_negatives": opts.MinNegatives, "seed": opts.Seed, "all_kinds": opts.AllKinds})
	t0 := time.Now()
	c, err := loadFlagCorpus(ws, run)
	if err != nil {
		return nil, err
	}
	run.Phase("load", time.Since(t0))

	st := &FlagStats{Dir: ws.Path(workspace.ExportDir, FlagDir)}
	tx := ws.Begin("export flagembedding")
	defer tx.Abort() // a failure anywhere leaves the old export
	fw, err := newFlagFiles(tx)
	if err != nil {
		return nil, err
	}
	t0 = time.Now()
	err = workspace.EachRow(pairsPath, func(p *workspace.Pair) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ex, ok, err := c.example(p, opts, st)
		if err != nil {
			return fmt.Errorf("%s: %w", pairsPath, err)
		}
		if !ok {
			return nil
		}
		f, err := fw.split(p.Split, st)
		if err != nil {
			return fmt.Errorf("%s: pair %s: %w", pairsPath, p.QueryID, err)
		}
		return f.write(ex)
	})
	if err != nil {
		return nil, err
	}
	if err := fw.corpus(c.docs, opts.AllKinds, st); err != nil {
		return nil, err
	}
	if st.Train == 0 {
		return nil, fmt.Errorf("%s: no training pairs with a positive in the corpus (%d skipped)", pairsPath, st.Skipped)
	}
	if err := fw.commit(opts.Recipe.Script(), st); err != nil {
		return nil, err
	}
	run.Phase("write", time.Since(t0))
	recordFlagStats(run, st, opts)
	return st, tx.Commit(run)
}

// defaults fills the options' zero values.
func (o *FlagOptions) defaults() {
	if o.Type == "" {
		o.Type = "normal"
	}
	switch {
	case o.MinNegatives == 0:
		o.MinNegatives = 3
	case o.MinNegatives < 0: // no filling (countflag.None)
		o.MinNegatives = 0
	}
	if o.Recipe == nil {
		r := DRIFTRecipe()
		o.Recipe = &r
	}
}

// flagRel is the workspace path of an export file.
func flagRel(n string) string {
	return filepath.ToSlash(filepath.Join(workspace.ExportDir, FlagDir, n))
}

// flagCorpus is the documents passages are rendered from: their text by
// name, and the premise candidates that fill negatives.
type flagCorpus struct {
	docs []workspace.Document
	text map[string]string
	pool []string
}

// loadFlagCorpus renders the workspace's documents as the index does.
func loadFlagCorpus(ws *workspace.Workspace, run *workspace.RunRecorder) (*flagCorpus, error) {
	docs, err := workspace.LoadDocuments(ws)
	if err != nil {
		return nil, err
	}
	for _, n := range []string{workspace.DeclarationsFile, workspace.InformalFile, workspace.PairsFile} {
		if ws.Has(n) {
			if err := run.Input(n); err != nil {
				return nil, err
			}
		}
	}
	c := &flagCorpus{docs: docs, text: make(map[string]string, len(docs))}
	for _, d := range docs {
		c.text[d.Name] = d.Text
		if workspace.IsPremiseKind(d.Kind) {
			c.pool = append(c.pool, d.Name)
		}
	}
	return c, nil
}

// example is pair p as a FlagEmbedding example: its positives' and mined
// negatives' passages (never the theorem, a positive or a negative twice),
// filled with random premise candidates up to opts.MinNegatives. ok is
// false for a pair none of whose positives has a document (skipped).
func (c *flagCorpus) example(p *workspace.Pair, opts FlagOptions, st *FlagStats) (ex *FlagExample, ok bool, err error) {
	ex = &FlagExample{Query: p.Query, Prompt: opts.Prompt, Type: opts.Type, QueryID: p.QueryID,
		Theorem: p.Theorem, Source: p.QuerySource, Pos: []string{}, Neg: []string{}, NegSources: []string{}}
	for _, n := range p.Positives {
		if t, ok := c.text[n]; ok {
			ex.Pos = append(ex.Pos, t)
		} else {
			st.MissingDocs++
		}
	}
	if len(ex.Pos) == 0 {
		st.Skipped++
		return nil, false, nil
	}
	used := map[string]bool{p.Theorem: true}
	for _, n := range p.Positives {
		used[n] = true
	}
	var neg []string
	sources := dataset.NegativeSourcesOf(p)
	for i, n := range p.Negatives {
		if _, ok := c.text[n]; ok && !used[n] {
			used[n] = true
			neg = append(neg, n)
			ex.NegSources = append(ex.NegSources, sources[i])
		} else if !ok {
			st.MissingDocs++
		}
	}
	if len(neg) < opts.MinNegatives {
		st.Filled++
		var added int
		neg, added = dataset.FillRandomNegatives(dataset.NegativeRNG(opts.Seed, p.QueryID), neg, opts.MinNegatives, c.pool,
			func(n string) bool { return used[n] })
		for range added {
			ex.NegSources = append(ex.NegSources, dataset.NegativeRandom)
		}
		if len(neg) == 0 {
			return nil, false, fmt.Errorf("pair %s: no negative can be found (the corpus has only its positives)", p.QueryID)
		}
	}
	for _, n := range neg {
		ex.Neg = append(ex.Neg, c.text[n])
	}
	for i, s := range ex.NegSources {
		switch s {
		case dataset.NegativeRandom:
			st.RandomNegatives++
		case "":
			ex.NegSources[i] = "unknown" // pairs.parquet of an older driftkit
		}
	}
	return ex, true, nil
}

// flagFiles are the export's JSON-lines files in a transaction; test.jsonl
// is made only when a pair is of the test split.
type flagFiles struct {
	tx    *workspace.Txn
	files map[string]*jsonlFile
}

func newFlagFiles(tx *workspace.Txn) (*flagFiles, error) {
	fw := &flagFiles{tx: tx, files: map[string]*jsonlFile{}}
	for _, n := range []string{FlagTrainFile, FlagValidFile, FlagCorpusFile} {
		f, err := createJSONL(tx, flagRel(n))
		if err != nil {
			return nil, err
		}
		fw.files[n] = f
	}
	return fw, nil
}

// split is the file of a pair of split, counted in st.
func (fw *flagFiles) split(split string, st *FlagStats) (*jsonlFile, error) {
	switch split {
	case workspace.SplitTrain:
		st.Train++
		return fw.files[FlagTrainFile], nil
	case workspace.SplitValid:
		st.Valid++
		return fw.files[FlagValidFile], nil
	case workspace.SplitTest:
		if fw.files[FlagTestFile] == nil {
			f, err := createJSONL(fw.tx, flagRel(FlagTestFile))
			if err != nil {
				return nil, err
			}
			fw.files[FlagTestFile] = f
		}
		st.Test++
		return fw.files[FlagTestFile], nil
	}
	return nil, fmt.Errorf("unknown split %q", split)
}

// corpus writes corpus.jsonl: the premise candidates' documents (every
// document with allKinds).
func (fw *flagFiles) corpus(docs []workspace.Document, allKinds bool, st *FlagStats) error {
	for _, d := range docs {
		if allKinds || workspace.IsPremiseKind(d.Kind) {
			if err := fw.files[FlagCorpusFile].write(CorpusLine{Text: d.Text, Name: d.Name, Kind: d.Kind}); err != nil {
				return err
			}
			st.Corpus++
		}
	}
	return nil
}

// commit writes finetune.sh and completes the files as the transaction's
// outputs; a test.jsonl of an earlier export goes when this one has none.
func (fw *flagFiles) commit(script string, st *FlagStats) error {
	tx := fw.tx
	sf, err := tx.CreateMode(flagRel(FlagScriptFile), 0o755) // executable
	if err != nil {
		return err
	}
	if _, err := sf.WriteString(script); err != nil {
		return &workspace.FileError{Path: sf.Dest(), Row: -1, Err: err}
	}
	if err := sf.Commit(); err != nil {
		return err
	}
	for _, n := range slices.Sorted(maps.Keys(fw.files)) {
		if err := fw.files[n].commit(); err != nil {
			return err
		}
		tx.Output(flagRel(n), filesRows(n, st))
	}
	if fw.files[FlagTestFile] == nil {
		// no test split this time: a test.jsonl of an earlier export would
		// not match the other files
		if err := tx.Remove(flagRel(FlagTestFile)); err != nil {
			return err
		}
	}
	tx.Output(flagRel(FlagScriptFile), 0)
	return nil
}

// recordFlagStats records the export's counts in the run.
func recordFlagStats(run *workspace.RunRecorder, st *FlagStats, opts FlagOptions) {
	run.Count("train", int64(st.Train))
	run.Count("valid", int64(st.Valid))
	run.Count("test", int64(st.Test))
	run.Count("skipped_no_positive", int64(st.Skipped))
	run.Count("filled_negatives", int64(st.Filled))
	run.Count("random_negatives", int64(st.RandomNegatives))
	run.Count("missing_docs", int64(st.MissingDocs))
	run.Count("corpus", int64(st.Corpus))
	if st.Filled > 0 {
		run.Note(fmt.Sprintf("%d pairs had fewer than %d mined negatives and were filled with random premise candidates", st.Filled, opts.MinNegatives))
	}
}

func filesRows(name string, st *FlagStats) int64 {
	switch name {
	case FlagTrainFile:
		return int64(st.Train)
	case FlagValidFile:
		return int64(st.Valid)
	case FlagTestFile:
		return int64(st.Test)
	case FlagCorpusFile:
		return int64(st.Corpus)
	}
	return 0
}
