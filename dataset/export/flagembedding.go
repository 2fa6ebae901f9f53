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
	if opts.Type == "" {
		opts.Type = "normal"
	}
	switch {
	case opts.MinNegatives == 0:
		opts.MinNegatives = 3
	case opts.MinNegatives < 0: // no filling (countflag.None)
		opts.MinNegatives = 0
	}
	if opts.Recipe == nil {
		r := DRIFTRecipe()
		opts.Recipe = &r
	}
	rel := func(n string) string { return filepath.ToSlash(filepath.Join(workspace.ExportDir, FlagDir, n)) }
	names := []string{FlagTrainFile, FlagValidFile, FlagTestFile, FlagCorpusFile, FlagScriptFile}
	relNames := make([]string, len(names))
	for i, n := range names {
		relNames[i] = rel(n)
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
	text := make(map[string]string, len(docs))
	var pool []string // premise candidates, for filling negatives
	for _, d := range docs {
		text[d.Name] = d.Text
		if workspace.IsPremiseKind(d.Kind) {
			pool = append(pool, d.Name)
		}
	}
	run.Phase("load", time.Since(t0))

	dir := ws.Path(workspace.ExportDir, FlagDir)
	st := &FlagStats{Dir: dir}
	tx := ws.Begin("export flagembedding")
	defer tx.Abort() // a failure anywhere leaves the old export
	files := map[string]*jsonlFile{}
	for _, n := range []string{FlagTrainFile, FlagValidFile, FlagCorpusFile} {
		f, err := createJSONL(tx, rel(n))
		if err != nil {
			return nil, err
		}
		files[n] = f
	}
	t0 = time.Now()
	err = workspace.EachRow(pairsPath, func(p *workspace.Pair) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ex := FlagExample{Query: p.Query, Prompt: opts.Prompt, Type: opts.Type, QueryID: p.QueryID,
			Theorem: p.Theorem, Source: p.QuerySource, Pos: []string{}, Neg: []string{}, NegSources: []string{}}
		for _, n := range p.Positives {
			if t, ok := text[n]; ok {
				ex.Pos = append(ex.Pos, t)
			} else {
				st.MissingDocs++
			}
		}
		if len(ex.Pos) == 0 {
			st.Skipped++
			return nil
		}
		used := map[string]bool{p.Theorem: true}
		for _, n := range p.Positives {
			used[n] = true
		}
		var neg []string
		sources := dataset.NegativeSourcesOf(p)
		for i, n := range p.Negatives {
			if _, ok := text[n]; ok && !used[n] {
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
			neg, added = dataset.FillRandomNegatives(dataset.NegativeRNG(opts.Seed, p.QueryID), neg, opts.MinNegatives, pool,
				func(n string) bool { return used[n] })
			for range added {
				ex.NegSources = append(ex.NegSources, dataset.NegativeRandom)
			}
			if len(neg) == 0 {
				return fmt.Errorf("%s: pair %s: no negative can be found (the corpus has only its positives)", pairsPath, p.QueryID)
			}
		}
		for _, n := range neg {
			ex.Neg = append(ex.Neg, text[n])
		}
		for i, s := range ex.NegSources {
			switch s {
			case dataset.NegativeRandom:
				st.RandomNegatives++
			case "":
				ex.NegSources[i] = "unknown" // pairs.parquet of an older driftkit
			}
		}
		var f *jsonlFile
		switch p.Split {
		case workspace.SplitTrain:
			f, st.Train = files[FlagTrainFile], st.Train+1
		case workspace.SplitValid:
			f, st.Valid = files[FlagValidFile], st.Valid+1
		case workspace.SplitTest:
			if files[FlagTestFile] == nil {
				f, err := createJSONL(tx, rel(FlagTestFile))
				if err != nil {
					return err
				}
				files[FlagTestFile] = f
			}
			f, st.Test = files[FlagTestFile], st.Test+1
		default:
			return fmt.Errorf("%s: pair %s: unknown split %q", pairsPath, p.QueryID, p.Split)
		}
		return f.write(&ex)
	})
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if opts.AllKinds || workspace.IsPremiseKind(d.Kind) {
			if err := files[FlagCorpusFile].write(CorpusLine{Text: d.Text, Name: d.Name, Kind: d.Kind}); err != nil {
				return nil, err
			}
			st.Corpus++
		}
	}
	if st.Train == 0 {
		return nil, fmt.Errorf("%s: no training pairs with a positive in the corpus (%d skipped)", pairsPath, st.Skipped)
	}
	sf, err := tx.CreateMode(rel(FlagScriptFile), 0o755) // executable
	if err != nil {
		return nil, err
	}
	if _, err := sf.WriteString(opts.Recipe.Script()); err != nil {
		return nil, &workspace.FileError{Path: sf.Dest(), Row: -1, Err: err}
	}
	if err := sf.Commit(); err != nil {
		return nil, err
	}
	for _, n := range slices.Sorted(maps.Keys(files)) {
		if err := files[n].commit(); err != nil {
			return nil, err
		}
		tx.Output(rel(n), filesRows(n, st))
	}
	if files[FlagTestFile] == nil {
		// no test split this time: a test.jsonl of an earlier export would
		// not match the other files
		if err := tx.Remove(rel(FlagTestFile)); err != nil {
			return nil, err
		}
	}
	tx.Output(rel(FlagScriptFile), 0)
	run.Phase("write", time.Since(t0))
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
	return st, tx.Commit(run)
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
