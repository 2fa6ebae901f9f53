// Package index builds and serves driftkit's premise-retrieval index: one
// document per declaration, dense vectors from an Encoder (the built-in hash
// encoder or an OpenAI-compatible /v1/embeddings endpoint), a bleve BM25 index
// with an identifier-aware analyzer, and the premise-usage graph.
//
// Build writes WS/index/; Open loads it for serving and Index.Search answers
// queries (dense, BM25 or hybrid). An *Index is safe for concurrent use by
// many goroutines until Close.
//
// Files in WS/index/:
//
//	manifest.json   encoder, dims, rendering version, corpus sha256, counts
//	docs.parquet    one Doc per row; row i ↔ vectors.npy row i ↔ bleve doc "i"
//	vectors.npy     float32 (rows, dims), NumPy format 1.0, C order
//	bm25/           bleve index (BM25 scoring): text, name, kind, premise fields
//	bm25.postings   the same BM25 index as in-memory postings (used for serving)
//	usage.parquet   dataset.Usage: premise → declarations whose statement uses it
//	hash_state.bin  document frequencies of the hash encoder (hash only)
package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/driftkit/driftkit/dataset"
	"github.com/driftkit/driftkit/retrieval"
)

// File names inside WS/index/.
const (
	ManifestName  = "manifest.json"
	DocsName      = "docs.parquet"
	VectorsName   = "vectors.npy"
	BM25Name      = "bm25"
	UsageName     = "usage.parquet"
	HashStateName = "hash_state.bin"
	PostingsName  = "bm25.postings"
)

// FormatVersion is the layout version of WS/index/.
const FormatVersion = "driftkit-index/1"

// Manifest is WS/index/manifest.json.
type Manifest struct {
	Format      string `json:"format"`
	ToolVersion string `json:"tool_version"`
	BuiltAt     string `json:"built_at"`
	Encoder     string `json:"encoder"`
	// EncoderFallback is true for the offline hash encoder, so that every
	// consumer can label results as coming from the fallback.
	EncoderFallback bool   `json:"encoder_fallback"`
	Model           string `json:"model,omitempty"`
	BaseURL         string `json:"base_url,omitempty"`
	Dims            int    `json:"dims"`
	Rendering       string `json:"rendering"`
	// CorpusSHA256 hashes the rendered documents (names and texts, in order).
	CorpusSHA256   string         `json:"corpus_sha256"`
	Docs           int            `json:"docs"`
	PremiseDocs    int            `json:"premise_docs"`
	InformalSource map[string]int `json:"informal_sources"`
	BM25Analyzer   string         `json:"bm25_analyzer"`
	MaxChars       int            `json:"max_chars,omitempty"`
	// Head is the projection head (WS/head) that search applies to dense
	// candidate scores, recorded by `index` when one fits at build time and
	// by `train head` when it writes a new one.
	Head *HeadInfo `json:"head,omitempty"`
}

// ErrNoIndex is returned by Open when the workspace has no index.
var ErrNoIndex = errors.New("no index in workspace (run `driftkit index --ws WS` first)")

// ErrStale is wrapped when index files disagree with each other.
var ErrStale = errors.New("index files are inconsistent")

func readManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoIndex)
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &dataset.FileError{Path: filepath.Join(dir, ManifestName), Row: -1,
			Err: fmt.Errorf("%w: malformed index manifest (JSON: %v); rebuild with `driftkit index --ws WS`", ErrStale, err)}
	}
	if m.Format != FormatVersion {
		return nil, &dataset.FileError{Path: filepath.Join(dir, ManifestName), Row: -1,
			Err: fmt.Errorf("%w: format %q, this driftkit reads %q", ErrStale, m.Format, FormatVersion)}
	}
	return &m, nil
}

// Index is a loaded retrieval index. Its methods are safe for concurrent use
// by any number of goroutines until Close; the exported fields are read-only
// after Open. Close releases the bleve index and must be called once, after
// every Search has returned; the Index must not be used afterwards.
type Index struct {
	Dir      string
	Manifest Manifest
	Docs     []Doc
	byName   map[string]int
	dense    *DenseStore
	bm25     *bm25Index
	post     *Postings
	enc      Encoder
	// usage[p] = rows of the docs whose statement uses premise p (by name).
	usage map[string][]string
	// suffix maps the last component(s) of names to rows, for mentions.
	suffix map[string][]int
	// concept maps a lower-cased last name component to premise rows.
	concept map[string][]int32
	// depRows[row] are the rows of the row's statement dependencies.
	depRows [][]int32
	// priorOrder lists the rows of used declarations by usage count, descending.
	priorOrder []int
	// premise[row] says whether the row is a premise candidate by default.
	premise []bool
	// head, when the workspace has a trained projection head, re-scores
	// dense candidates (see head.go).
	head *projectedHead
}

// OpenOptions configure Open.
type OpenOptions struct {
	// Encoder encodes queries. Nil means the saved hash encoder for a hash
	// index; an openai index needs one (an OpenAIEncoder over the same model,
	// see Manifest.Model) unless NoDense is set.
	Encoder Encoder
	// NoDense skips loading vectors (BM25-only serving, less memory).
	NoDense bool
	// BleveBM25 answers BM25 from the bleve index instead of the in-memory
	// postings (same analyzer and scoring; much slower on large corpora).
	BleveBM25 bool
	// NoHead ignores WS/head: dense scores come from the raw embeddings even
	// when the workspace has a trained projection head.
	NoHead bool
}

// Open loads WS/index for serving. When the workspace has a trained
// projection head (WS/head, from `driftkit train head`) that fits the index's
// embeddings, dense candidate scores go through it (see Index.Head). The
// caller must Close the index.
func Open(wsDir string, opts *OpenOptions) (*Index, error) {
	if opts == nil {
		opts = &OpenOptions{}
	}
	dir := filepath.Join(wsDir, dataset.IndexDir)
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	ix := &Index{Dir: dir, Manifest: *m, byName: map[string]int{}, usage: map[string][]string{}, suffix: map[string][]int{}}
	ix.Docs, err = dataset.ReadTable[Doc](filepath.Join(dir, DocsName))
	if err != nil {
		return nil, err
	}
	if len(ix.Docs) != m.Docs {
		return nil, fmt.Errorf("%s: %w: manifest says %d docs, docs.parquet has %d", dir, ErrStale, m.Docs, len(ix.Docs))
	}
	ix.premise = make([]bool, len(ix.Docs))
	for i, d := range ix.Docs {
		ix.byName[d.Name] = i
		ix.premise[i] = dataset.IsPremiseKind(d.Kind)
		parts := strings.Split(d.Name, ".")
		for j := 1; j < len(parts); j++ {
			s := strings.Join(parts[j:], ".")
			ix.suffix[s] = append(ix.suffix[s], i)
		}
	}
	if !opts.NoDense {
		vecs, rows, cols, err := ReadNPY(filepath.Join(dir, VectorsName))
		if err != nil {
			return nil, err
		}
		if rows != len(ix.Docs) || cols != m.Dims {
			return nil, fmt.Errorf("%s: %w: vectors.npy is (%d, %d), manifest says (%d, %d)", dir, ErrStale, rows, cols, m.Docs, m.Dims)
		}
		ix.dense = &DenseStore{Vecs: vecs, Rows: rows, Dim: cols}
		ix.enc = opts.Encoder
		if ix.enc == nil {
			switch m.Encoder {
			case EncoderHash:
				h, err := LoadHashEncoder(filepath.Join(dir, HashStateName))
				if err != nil {
					return nil, err
				}
				if h.Dim() != m.Dims {
					return nil, fmt.Errorf("%s: %w: hash state dim %d, manifest %d", dir, ErrStale, h.Dim(), m.Dims)
				}
				ix.enc = h
			default:
				return nil, fmt.Errorf("index was built with encoder %s (model %q): a query encoder for it is needed", m.Encoder, m.Model)
			}
		}
		if ix.enc.Dim() != m.Dims {
			return nil, fmt.Errorf("%w: query encoder %s has dim %d, index has %d", ErrStale, ix.enc.Name(), ix.enc.Dim(), m.Dims)
		}
		if !opts.NoHead {
			if err := ix.loadHead(wsDir); err != nil {
				return nil, err
			}
		}
	}
	if err := dataset.EachRow(filepath.Join(dir, UsageName), func(u *dataset.Usage) error {
		ix.usage[strings.Clone(u.Premise)] = cloneStrings(u.UsedBy)
		return nil
	}); err != nil {
		return nil, err
	}
	ix.concept = map[string][]int32{}
	for i, d := range ix.Docs {
		if ix.premise[i] {
			last := d.Name[strings.LastIndex(d.Name, ".")+1:]
			k := strings.ToLower(last)
			ix.concept[k] = append(ix.concept[k], int32(i))
		}
	}
	ix.depRows = make([][]int32, len(ix.Docs))
	for i, d := range ix.Docs {
		for _, dep := range d.Deps {
			if r, ok := ix.byName[dep]; ok {
				ix.depRows[i] = append(ix.depRows[i], int32(r))
			}
		}
	}
	for p, u := range ix.usage {
		if r, ok := ix.byName[p]; ok && len(u) > 0 {
			ix.priorOrder = append(ix.priorOrder, r)
		}
	}
	slices.SortFunc(ix.priorOrder, func(a, b int) int {
		if c := len(ix.usage[ix.Docs[b].Name]) - len(ix.usage[ix.Docs[a].Name]); c != 0 {
			return c
		}
		return a - b
	})
	for _, rows := range ix.concept {
		slices.SortFunc(rows, func(a, b int32) int {
			if c := len(ix.usage[ix.Docs[b].Name]) - len(ix.usage[ix.Docs[a].Name]); c != 0 {
				return c
			}
			return int(a - b)
		})
	}
	ix.bm25, err = openBM25(filepath.Join(dir, BM25Name))
	if err != nil {
		return nil, err
	}
	if !opts.BleveBM25 {
		if ix.post, err = LoadPostings(filepath.Join(dir, PostingsName)); err != nil {
			ix.bm25.Close()
			return nil, err
		}
		if ix.post.n != len(ix.Docs) {
			ix.bm25.Close()
			return nil, fmt.Errorf("%s: %w: postings cover %d docs, docs.parquet has %d", dir, ErrStale, ix.post.n, len(ix.Docs))
		}
	}
	return ix, nil
}

func cloneStrings(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strings.Clone(x)
	}
	return out
}

// Close releases the BM25 index. Call it once, after the last Search has
// returned.
func (ix *Index) Close() error {
	if ix.bm25 != nil {
		return ix.bm25.Close()
	}
	return nil
}

// Encoder returns the query encoder (nil when opened with NoDense).
func (ix *Index) Encoder() Encoder { return ix.enc }

var _ retrieval.Corpus = (*Index)(nil)

// Len is the number of documents (retrieval.Corpus).
func (ix *Index) Len() int { return len(ix.Docs) }

// Lookup returns what the index knows about a declaration
// (retrieval.Corpus). The entry's slices are shared: do not modify them.
func (ix *Index) Lookup(name string) (retrieval.Entry, bool) {
	i, ok := ix.byName[name]
	if !ok {
		return retrieval.Entry{}, false
	}
	return entry(&ix.Docs[i]), true
}

// Document returns the docs.parquet row of a declaration, rendered text
// included. It is shared: do not modify it.
func (ix *Index) Document(name string) (*Doc, bool) {
	i, ok := ix.byName[name]
	if !ok {
		return nil, false
	}
	return &ix.Docs[i], true
}

func entry(d *Doc) retrieval.Entry {
	return retrieval.Entry{Name: d.Name, Kind: d.Kind, Module: d.Module, Library: d.Library, Signature: d.Signature,
		InformalName: d.InformalName, InformalStatement: d.InformalStatement, InformalSource: d.InformalSource,
		StatementDeps: d.Deps}
}

// UsedBy lists, sorted by name, the declarations whose statement uses
// premise (retrieval.Corpus; from usage.parquet). The slice is shared: do
// not modify it.
func (ix *Index) UsedBy(premise string) []string { return ix.usage[premise] }

// UsageCount is how many declarations' statements use premise, not counting
// the declarations in exclude.
func (ix *Index) UsageCount(premise string, exclude []string) int {
	u := ix.usage[premise]
	n := len(u)
	for _, e := range exclude {
		if _, found := slices.BinarySearch(u, e); found {
			n--
		}
	}
	return n
}

func sortUsage(u []dataset.Usage) {
	slices.SortFunc(u, func(a, b dataset.Usage) int { return strings.Compare(a.Premise, b.Premise) })
	for i := range u {
		slices.Sort(u[i].UsedBy)
	}
}

// ReadManifest reads WS/index/manifest.json.
func ReadManifest(wsDir string) (*Manifest, error) {
	return readManifest(filepath.Join(wsDir, dataset.IndexDir))
}
