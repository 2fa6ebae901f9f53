package index

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/driftkit/driftkit/head"
	"github.com/driftkit/driftkit/retrieval"
)

// Dense backends hold a generation's document vectors and answer its dense
// requests. The generation's manifest records which one (DenseSpec: a kind
// and its parameters, never a secret), so that every reader — search, eval,
// mine, serve — opens the same one without being told. Kinds are
// registered like encoders (RegisterDense, restic's location.Registry: a
// factory per scheme that parses its configuration and creates or opens a
// backend); adding one is a package whose init calls RegisterDense and a
// blank import in app.
//
// The built-in kind is DenseMmap: vectors.npy in the generation folder,
// memory-mapped and scanned exactly (Store), with the projection head
// applied in process. Others (index/weaviate) keep the vectors elsewhere;
// documents, BM25 and the usage graph always stay in the generation.

// DenseMmap is the kind of the in-process backend (vectors.npy, memory-mapped).
const DenseMmap = "mmap"

// DenseSpec is the manifest's record of the dense backend of a generation.
type DenseSpec struct {
	Kind string `json:"kind"`
	// Params are the kind's parameters: where the vectors are and how they
	// are indexed. Never a secret (keys come from DenseEnv).
	Params map[string]string `json:"params,omitempty"`
}

// denseKind is the spec's kind, DenseMmap for generations written before
// the registry (no "dense" in their manifest).
func (s *DenseSpec) denseKind() string {
	if s == nil || s.Kind == "" {
		return DenseMmap
	}
	return s.Kind
}

// params are the spec's parameters (nil for an absent spec).
func (s *DenseSpec) params() map[string]string {
	if s == nil {
		return nil
	}
	return s.Params
}

// DenseEnv is what a backend may take from the process besides its
// recorded parameters: secrets and overrides (app reads them from the
// environment) and a sink for warnings.
type DenseEnv struct {
	// Getenv returns the value of a variable (an API key, an address
	// override); nil reads nothing.
	Getenv func(string) string
	// Warn receives problems that do not stop the work; nil drops them.
	Warn func(string)
}

// Get returns the variable's value ("" without Getenv).
func (e DenseEnv) Get(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

// Warnf reports a problem that does not stop the work.
func (e DenseEnv) Warnf(format string, args ...any) {
	if e.Warn != nil {
		e.Warn(fmt.Sprintf(format, args...))
	}
}

// DenseFactory makes backends of one kind.
type DenseFactory interface {
	// Kind names the backend (--backend, DenseSpec.Kind).
	Kind() string
	// ParseConfig checks the kind's parameters — from the command line at
	// build time, from the manifest at open time — and returns the
	// configuration. An unknown or malformed parameter is an error wrapping
	// ErrDenseParam.
	ParseConfig(params map[string]string, env DenseEnv) (DenseConfig, error)
}

// DenseConfig is one configured backend.
type DenseConfig interface {
	// Params are the parameters to record in the manifest: enough to open
	// the vectors again, without secrets.
	Params() map[string]string
	// Create stores the vectors of a generation being built and returns
	// once they are complete and verified; Build commits the generation
	// only then. It must be idempotent: a build killed during Create and run
	// again (see DenseResumer) may give it the same generation.
	Create(ctx context.Context, b *DenseBuild) (*DenseCreated, error)
	// Open makes the generation's backend for search.
	Open(ctx context.Context, o *DenseOpen) (DenseStore, error)
}

// DenseResumer is a DenseConfig whose Create can continue where a killed
// build stopped: Resume returns the generation an unfinished build with
// this key left (to build again under the same name), or "".
type DenseResumer interface {
	Resume(ctx context.Context, workspace, key string) (generation string, err error)
}

// DenseRetirer is a DenseConfig that keeps data outside the generation
// folder: Retire deletes what the workspace's generations other than keep
// left in it. Build calls it after each switch, keeping the new generation
// and the one it replaced (a server not yet reloaded still reads it).
type DenseRetirer interface {
	Retire(ctx context.Context, workspace string, keep []string) error
}

// DenseBuild is what Create gets.
type DenseBuild struct {
	// Workspace is the workspace's absolute folder: whose generation this is.
	Workspace string
	// Generation is the new generation's name; Stage its staging folder.
	// Files Create writes into Stage become the generation's (listed with
	// their checksums in the manifest).
	Generation, Stage string
	// Key identifies the build's inputs (corpus, encoder, backend
	// parameters), as given to Resume.
	Key string
	// Vectors are the raw document vectors, row i = document i.
	Vectors *Store
	// Docs are the documents, row i = document i (their name, kind,
	// module and library are what a remote backend filters on).
	Docs []Doc
	// Head is the projection head search will apply (nil: none). A backend
	// that searches outside the process stores the projected vectors of the
	// premise documents (Premise) with it.
	Head *head.Head
	// Manifest is the generation's manifest as far as it is known (encoder,
	// dims, corpus hash).
	Manifest *Manifest
	// Env gives warnings a place to go.
	Env DenseEnv
}

// DenseCreated is what Create did.
type DenseCreated struct {
	// Files are the files Create wrote into Stage.
	Files []string
	// Params are recorded in the manifest besides Params() (the name of a
	// collection, the head its projected vectors came from).
	Params map[string]string
}

// DenseOpen is what Open gets.
type DenseOpen struct {
	// Workspace is the workspace's folder; Dir the generation's.
	Workspace, Dir string
	Manifest       *Manifest
	// Table is the generation's corpus (document ids, kinds, libraries).
	Table *retrieval.Table
	// Head is the workspace's projection head when it fits the index and
	// search applies it (nil: none, or NoHead).
	Head *head.Head
	// VectorsOnly: the caller reads the vectors (Vectors) and never
	// searches (the embeddings export).
	VectorsOnly bool
}

// DenseStore is an opened backend of one generation.
type DenseStore interface {
	// DenseBackend answers the generation's dense requests, through the
	// head when Open was given one.
	retrieval.DenseBackend
	// Vectors returns every document's raw vector, row i = document i
	// (training a head, exporting the embeddings). A remote backend reads
	// them all.
	Vectors(ctx context.Context) (*Store, error)
	// Head describes the head the scores go through, or nil.
	Head() *HeadInfo
	// Close releases the backend's resources.
	Close() error
}

// ErrUnknownDense is wrapped when no factory is registered for a kind.
var ErrUnknownDense = errors.New("unknown dense backend")

// ErrDenseParam is wrapped when a backend's parameter is unknown or malformed.
var ErrDenseParam = errors.New("bad dense backend parameter")

var (
	denseMu   sync.RWMutex
	denseKind = map[string]DenseFactory{}
)

// RegisterDense makes a backend kind available to Build and Open; a kind
// registered twice panics.
func RegisterDense(f DenseFactory) {
	denseMu.Lock()
	defer denseMu.Unlock()
	if _, dup := denseKind[f.Kind()]; dup {
		panic("index: dense backend " + f.Kind() + " registered twice")
	}
	denseKind[f.Kind()] = f
}

// DenseKinds lists the registered backend kinds, sorted.
func DenseKinds() []string {
	denseMu.RLock()
	defer denseMu.RUnlock()
	return slices.Sorted(maps.Keys(denseKind))
}

// ParseDense configures a backend of a registered kind.
func ParseDense(kind string, params map[string]string, env DenseEnv) (DenseConfig, error) {
	denseMu.RLock()
	f := denseKind[kind]
	denseMu.RUnlock()
	if f == nil {
		return nil, fmt.Errorf("%w %q (registered: %v)", ErrUnknownDense, kind, DenseKinds())
	}
	return f.ParseConfig(maps.Clone(params), env)
}

// CheckDenseParams refuses the parameters not in known; a factory calls it
// first, so that a misspelt setting is not dropped silently.
func CheckDenseParams(kind string, params map[string]string, known ...string) error {
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if !slices.Contains(known, k) {
			return fmt.Errorf("%w %q for %s (it takes %v)", ErrDenseParam, k, kind, known)
		}
	}
	return nil
}

// HeadRoutes says, for each request of b, whether the projection head
// answers it: every document it selects has a projected vector (is a
// premise; the head was trained to rank premises) and it asks for some.
// The others (the neighbours that vote, candidates that include theorems)
// keep the raw vectors. One rule for every backend that applies a head, so
// that they rank alike.
func HeadRoutes(b *retrieval.Batch, projected func(doc int) bool) []bool {
	covered := make([]bool, len(b.Requests))
	for i := range covered {
		covered[i] = b.Requests[i].K > 0
	}
	for doc, c := range b.Class {
		if c > 0 && int(c) <= len(covered) && covered[c-1] && !projected(doc) {
			covered[c-1] = false
		}
	}
	return covered
}
