package index

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	_ "github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// Names of the bleve analysis components driftkit registers.
const (
	IdentTokenizer = "driftkit_ident"
	IdentAnalyzer  = "driftkit_ident"
)

// identTokenizer emits, for every identifier-like word, its sub-tokens (split
// on '.', '_' and camelCase) and the whole word when it has several parts.
type identTokenizer struct{}

func (identTokenizer) Tokenize(b []byte) analysis.TokenStream {
	var out analysis.TokenStream
	pos := 0
	Words(string(b), func(w string, start, end int) {
		n := 0
		SubTokens(w, func(t string) {
			pos++
			n++
			out = append(out, &analysis.Token{Term: []byte(t), Start: start, End: end, Position: pos, Type: analysis.AlphaNumeric})
		})
		if n > 1 {
			out = append(out, &analysis.Token{Term: []byte(lowerString(w)), Start: start, End: end, Position: pos, Type: analysis.AlphaNumeric})
		}
	})
	return out
}

func init() {
	_ = registry.RegisterTokenizer(IdentTokenizer, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return identTokenizer{}, nil
	})
}

// bleve field names.
const (
	fieldText    = "text"
	fieldName    = "name"
	fieldKind    = "kind"
	fieldPremise = "premise"
)

func bm25Mapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bindex.BM25Scoring
	if err := im.AddCustomAnalyzer(IdentAnalyzer, map[string]any{
		"type":          "custom",
		"tokenizer":     IdentTokenizer,
		"token_filters": []string{lowercase.Name, en.StopName, porter.Name},
	}); err != nil {
		return nil, err
	}
	dm := bleve.NewDocumentStaticMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer = IdentAnalyzer
	text.Store = false
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false
	dm.AddFieldMappingsAt(fieldText, text)
	for _, f := range []string{fieldName, fieldKind, fieldPremise} {
		kw := bleve.NewKeywordFieldMapping()
		kw.Analyzer = keyword.Name
		kw.Store = false
		kw.IncludeInAll = false
		kw.IncludeTermVectors = false
		kw.DocValues = false
		dm.AddFieldMappingsAt(f, kw)
	}
	im.DefaultMapping = dm
	im.DefaultAnalyzer = IdentAnalyzer
	return im, nil
}

type bleveDoc struct {
	Text    string `json:"text"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Premise string `json:"premise"`
}

// buildBM25 writes a bleve index of docs at dir (replacing it). Document IDs
// are row numbers in docs.parquet.
func buildBM25(ctx context.Context, dir string, docs []Doc, premise func(kind string) bool, progress func(int)) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	m, err := bm25Mapping()
	if err != nil {
		return err
	}
	idx, err := bleve.New(dir, m)
	if err != nil {
		return err
	}
	const batchSize = 2000
	b := idx.NewBatch()
	for i := range docs {
		if i%batchSize == 0 && ctx.Err() != nil {
			idx.Close()
			return ctx.Err()
		}
		p := "n"
		if premise(docs[i].Kind) {
			p = "y"
		}
		if err := b.Index(strconv.Itoa(i), bleveDoc{Text: docs[i].Text, Name: docs[i].Name, Kind: docs[i].Kind, Premise: p}); err != nil {
			idx.Close()
			return err
		}
		if b.Size() >= batchSize {
			if err := idx.Batch(b); err != nil {
				idx.Close()
				return err
			}
			progress(b.Size())
			b.Reset()
		}
	}
	if b.Size() > 0 {
		if err := idx.Batch(b); err != nil {
			idx.Close()
			return err
		}
		progress(b.Size())
	}
	return idx.Close()
}

// bm25Index searches a bleve index built by buildBM25. Safe for concurrent use.
type bm25Index struct {
	idx bleve.Index
}

func openBM25(dir string) (*bm25Index, error) {
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("open bm25 index %s: %w", dir, err)
	}
	return &bm25Index{idx: idx}, nil
}

// search returns up to n (row, score) pairs for text, restricted to premise
// candidates (premiseOnly=1), non-premises (premiseOnly=-1) or all (0).
func (b *bm25Index) search(ctx context.Context, text string, n int, premiseOnly int) ([]scored, error) {
	mq := query.NewMatchQuery(text)
	mq.SetField(fieldText)
	mq.Analyzer = IdentAnalyzer
	var q query.Query = mq
	if premiseOnly != 0 {
		bq := query.NewBooleanQuery([]query.Query{mq}, nil, nil)
		v := "y"
		if premiseOnly < 0 {
			v = "n"
		}
		tq := query.NewTermQuery(v)
		tq.SetField(fieldPremise)
		bq.AddFilter(tq)
		q = bq
	}
	req := bleve.NewSearchRequestOptions(q, n, 0, false)
	req.Score = ""
	res, err := b.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	out := make([]scored, 0, len(res.Hits))
	for _, h := range res.Hits {
		row, err := strconv.Atoi(h.ID)
		if err != nil {
			continue
		}
		out = append(out, scored{row: row, score: float32(h.Score)})
	}
	return out, nil
}

func (b *bm25Index) Close() error { return b.idx.Close() }
