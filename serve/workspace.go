package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/retrieval/augment"
	"github.com/driftkit/driftkit/workspace"
)

// Index is one workspace's search index as the server uses it: a searcher,
// the corpus behind it, what it is built with, and a way to pick up a
// rebuilt index. app adapts *index.Index to it. Implementations are
// safe for concurrent use; Reload runs while searches are in flight and must
// let each finish on the index it started on.
type Index interface {
	retrieval.Searcher
	retrieval.Corpus
	// About describes the loaded index (result labels, /readyz, metrics).
	About() IndexAbout
	// Reload switches to the workspace's newest index if it is not the one
	// loaded and reports whether it did. On error the loaded one stays. ctx
	// bounds the opening of the new one.
	Reload(ctx context.Context) (bool, error)
	// Pin returns the loaded index as a View that stays loaded, whatever
	// Reload does, until release is called (once): a request that searches
	// and then describes its hits reads both from one index generation.
	Pin() (v View, release func())
}

// View is one loaded index, pinned (Index.Pin): its searches, its corpus
// and its description answer from the same files. Safe for concurrent use
// until released.
type View interface {
	retrieval.Searcher
	retrieval.Corpus
	// About describes this generation (not the index's current one).
	About() IndexAbout
}

// IndexAbout describes a loaded index: what produced its vectors (so every
// page and answer can label a fallback encoder as one) and its size.
type IndexAbout struct {
	// Generation names the loaded index generation ("" for an index
	// without generations).
	Generation string `json:"generation,omitempty"`
	Encoder    string `json:"encoder"`
	// EncoderFallback is true for the built-in offline hash encoder.
	EncoderFallback bool   `json:"encoder_fallback"`
	Model           string `json:"model,omitempty"`
	// Head is the projection head applied to dense scores, as `driftkit
	// search --json` prints it (nil: none).
	Head any `json:"head"`
	Docs int `json:"docs"`
	// PremiseDocs is how many documents are premise candidates by default.
	PremiseDocs int `json:"premise_docs"`
	// InformalSources counts documents by the provider of their informal
	// text (template, openai:<model>, docstring, …).
	InformalSources map[string]int `json:"informal_sources,omitempty"`
	// Bytes is the size of the index's files on disk (0: unknown).
	Bytes int64 `json:"bytes,omitempty"`
}

// Workspace is one served workspace: its name in URLs (?ws=NAME), its
// index, and the full declaration rows of its declarations.parquet.
type Workspace struct {
	Name  string
	Dir   string
	Index Index
	// Augment, when not nil, rewrites the query of every theorem search
	// (the theorem profile: the search page, the LeanSearch endpoint, an
	// API search with theorems as candidates) with a chat model before it
	// is searched; a failing model leaves the raw query, said in the
	// answer. Set it before the server starts; the server does not close
	// it.
	Augment *augment.Augmenter

	// decls holds one reference to the current rows; a request pins them
	// (pin) and a reload's predecessor is closed when its last reader
	// releases it.
	decls    atomic.Pointer[Decls]
	reloadMu sync.Mutex
	closed   bool
	// answers are recent searches' answers (cache.go); Reload empties it.
	answers answerCache
}

// answerCache is where q's answer may be kept: nil (never) when a chat
// model rewrites searches.
func (w *Workspace) answerCache(q retrieval.Query) *answerCache {
	if w.Augment != nil {
		return nil
	}
	return &w.answers
}

// validName is what a workspace name may be: it appears in URLs and
// metric labels.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// NewWorkspace opens dir's declarations.parquet for the declaration pages
// and pairs it with idx. The caller keeps ownership of idx.
func NewWorkspace(name, dir string, idx Index) (*Workspace, error) {
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("workspace name %q: use letters, digits, '_', '.' and '-' (at most 64)", name)
	}
	d, err := OpenDecls(filepath.Join(dir, workspace.DeclarationsFile))
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", name, err)
	}
	w := &Workspace{Name: name, Dir: dir, Index: idx}
	w.answers.max = defaultCacheBytes
	w.decls.Store(d)
	return w, nil
}

// Decls returns the current declaration rows, for their counts: a
// request that looks rows up pins them (pin), since a reload may close
// these.
func (w *Workspace) Decls() *Decls { return w.decls.Load() }

// pinned is what one request reads: one index generation (searches,
// corpus, encoder and head it reports) and one declarations table, kept
// loaded until released whatever reloads do meanwhile.
type pinned struct {
	View
	about IndexAbout
	decls *Decls
}

// pin pins the current index generation and declaration rows; call
// release once when the request is done.
func (w *Workspace) pin() (p *pinned, release func()) {
	v, releaseView := w.Index.Pin()
	d, releaseDecls := w.acquireDecls()
	var once sync.Once
	return &pinned{View: v, about: v.About(), decls: d}, func() {
		once.Do(func() {
			releaseDecls()
			releaseView()
		})
	}
}

// acquireDecls takes a reference to the current rows (a reload may retire
// them meanwhile: then the next ones). After Close it returns the closed
// rows unreferenced (their lookups fail).
func (w *Workspace) acquireDecls() (*Decls, func()) {
	for {
		d := w.decls.Load()
		if d.tryAcquire() {
			return d, func() { d.release() }
		}
		if w.decls.Load() == d {
			return d, func() {}
		}
	}
}

// Reload picks up a new index generation and, when extract replaced
// declarations.parquet, the new rows. Requests running keep what they
// started with.
func (w *Workspace) Reload(ctx context.Context) (changed bool, err error) {
	return w.reload(ctx, nil)
}

// reload is Reload, calling prepare (when not nil) with new declarations
// before they are served: the server builds their proof graph there, so
// no request waits for it.
func (w *Workspace) reload(ctx context.Context, prepare func(*Decls)) (changed bool, err error) {
	w.reloadMu.Lock()
	defer w.reloadMu.Unlock()
	changed, err = w.Index.Reload(ctx)
	if err != nil {
		return false, fmt.Errorf("workspace %s: index: %w", w.Name, err)
	}
	if old := w.decls.Load(); old.Changed() {
		d, derr := OpenDecls(old.path)
		if derr != nil {
			return changed, fmt.Errorf("workspace %s: %w", w.Name, derr)
		}
		if prepare != nil {
			prepare(d)
		}
		w.decls.Store(d)
		old.release() // closed now, or when its last request ends
		changed = true
	}
	if changed {
		w.answers.clear()
	}
	return changed, nil
}

// Close releases the declaration rows (not the index: its owner closes
// it); requests still reading them finish first.
func (w *Workspace) Close() error {
	w.reloadMu.Lock()
	defer w.reloadMu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if d := w.decls.Load(); d != nil {
		return d.release()
	}
	return nil
}
