package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
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
	identTokens(string(b), nil, func(t string, start, end int, whole bool) {
		if !whole {
			pos++
		}
		out = append(out, &analysis.Token{Term: []byte(t), Start: start, End: end, Position: pos, Type: analysis.AlphaNumeric})
	})
	return out
}

// identTokens is the tokenizer's walk over a text: for every word its
// sub-tokens, then (whole) the lower-cased word when it has several. With
// buf the tokens are valid only during fn (retrieval.SubTokensBuf).
func identTokens(text string, buf *[]byte, fn func(tok string, start, end int, whole bool)) {
	retrieval.Words(text, func(w string, start, end int) {
		n := 0
		retrieval.SubTokensBuf(w, buf, func(t string) {
			n++
			fn(t, start, end, false)
		})
		if n > 1 {
			if buf != nil {
				fn(lowerWord(w, buf), start, end, true)
			} else {
				fn(strings.ToLower(w), start, end, true)
			}
		}
	})
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
	fieldLibrary = "library"
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
	for _, f := range []string{fieldName, fieldKind, fieldLibrary} {
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
	Library string `json:"library"`
}

// buildBM25 writes a bleve index of docs at dir (replacing it). Document IDs
// are row numbers in docs.parquet (bleveID).
func buildBM25(ctx context.Context, dir string, docs []Doc, progress func(int)) error {
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
		if err := b.Index(bleveID(i), bleveDoc{Text: docs[i].Text, Name: docs[i].Name, Kind: docs[i].Kind, Library: docs[i].Library}); err != nil {
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

// bleveBackend is the lexical backend over the bleve index built by
// buildBM25: each request of a batch becomes one bleve search (the match
// query, with the request's selection as a non-scoring filter), sorted by
// score and then by document id like every other backend. Much slower than
// the in-memory postings on large corpora. It scores with bleve's own BM25,
// which is not the postings' textbook BM25 (see Postings.Score): bleve 2.6
// takes √tf for the term frequency, and for the average document length the
// field's vocabulary size over the document count; the analyzer and the
// coordination factor are the same. Safe for concurrent use.
type bleveBackend struct {
	idx bleve.Index
	dir string // for errors
}

var _ retrieval.LexicalBackend = (*bleveBackend)(nil)

func openBM25(dir string) (b *bleveBackend, err error) {
	// bleve reports an unreadable folder as "metadata missing"; say what
	// is wrong and where (an index built by another user before driftkit
	// made bleve's files readable, say).
	if err := readable(dir); err != nil {
		return nil, err
	}
	defer recoverBleve(dir, &err)
	idx, err := bleve.OpenUsing(dir, map[string]any{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("open bm25 index %s: %w", dir, err)
	}
	return &bleveBackend{idx: idx, dir: dir}, nil
}

// recoverBleve turns a panic of bleve (its bolt store asserts on a damaged
// page: issue 24 found one flipped byte in root.bolt ending `search` with
// exit 2 and a goroutine dump) into an error naming the folder. Open checks
// the folder's files against the manifest first (checkBleveFiles), so this
// is for generations written before bm25/ had checksums and for damage
// after Open; it runs in the goroutine that calls bleve, which is where
// opening and searching a read-only index happen.
func recoverBleve(dir string, err *error) {
	if p := recover(); p != nil {
		*err = &workspace.FileError{Path: dir, Row: -1, Err: fmt.Errorf("%w: the bleve BM25 index is damaged (%v): rebuild it with `driftkit index --bm25-engine bleve`", ErrStale, p)}
	}
}

// readable checks that dir and every file in it can be opened for reading.
func readable(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			var f *os.File
			if f, err = os.Open(p); err == nil {
				f.Close()
			}
		}
		if errors.Is(err, fs.ErrPermission) {
			return &workspace.FileError{Path: p, Row: -1, Err: fmt.Errorf("%w: cannot read the BM25 index (rebuild it with `driftkit index`, or ask its owner to make it readable)", fs.ErrPermission)}
		}
		return err
	})
}

// bleveID is the bleve document id of row i: zero-padded, so that sorting
// by id is sorting by row.
func bleveID(i int) string { return fmt.Sprintf("%09d", i) }

// filterQuery translates a selection into a bleve query matching its
// documents, nil when it selects everything.
func filterQuery(sel retrieval.Selection) query.Query {
	var must, mustNot []query.Query
	if sel.Kinds != nil {
		var kinds []query.Query
		for _, k := range sel.Kinds {
			tq := query.NewTermQuery(k)
			tq.SetField(fieldKind)
			kinds = append(kinds, tq)
		}
		if len(kinds) == 0 {
			return query.NewMatchNoneQuery()
		}
		must = append(must, query.NewDisjunctionQuery(kinds))
	}
	if sel.Library != "" {
		tq := query.NewTermQuery(sel.Library)
		tq.SetField(fieldLibrary)
		must = append(must, tq)
	}
	for _, n := range sel.Exclude {
		tq := query.NewTermQuery(n)
		tq.SetField(fieldName)
		mustNot = append(mustNot, tq)
	}
	if must == nil && mustNot == nil {
		return nil
	}
	return query.NewBooleanQuery(must, nil, mustNot)
}

// SearchLexical implements retrieval.LexicalBackend.
func (b *bleveBackend) SearchLexical(ctx context.Context, text string, batch *retrieval.Batch) (_ [][]retrieval.Scored, err error) {
	defer recoverBleve(b.dir, &err)
	out := make([][]retrieval.Scored, len(batch.Requests))
	for i, r := range batch.Requests {
		if r.K <= 0 {
			continue
		}
		mq := query.NewMatchQuery(text)
		mq.SetField(fieldText)
		mq.Analyzer = IdentAnalyzer
		var q query.Query = mq
		if f := filterQuery(r.Select); f != nil {
			bq := query.NewBooleanQuery([]query.Query{mq}, nil, nil)
			bq.AddFilter(f)
			q = bq
		}
		req := bleve.NewSearchRequestOptions(q, r.K, 0, false)
		req.SortBy([]string{"-_score", "_id"})
		res, err := b.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, h := range res.Hits {
			row, err := strconv.Atoi(h.ID)
			if err != nil || row < 0 || row >= len(batch.Class) {
				return nil, fmt.Errorf("bleve document id %q is not a row of the corpus (%d documents)", h.ID, len(batch.Class))
			}
			out[i] = append(out[i], retrieval.Scored{Doc: row, Score: float32(h.Score)})
		}
	}
	return out, nil
}

// DocCount is the number of documents in the bleve index.
func (b *bleveBackend) DocCount() (_ uint64, err error) {
	defer recoverBleve(b.dir, &err)
	return b.idx.DocCount()
}

func (b *bleveBackend) Close() error { return b.idx.Close() }
