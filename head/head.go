// Package head applies a trained projection head to embeddings at query and
// index time. It is plain Go (no Gorgonia): the serving path only loads the
// weights, projects and normalises. Training lives in package train.
//
// A head maps a frozen encoder embedding x (dimension InDim) to
// normalise(normalise(x) · W) (dimension OutDim). Queries and documents have
// their own matrices unless the head is tied, so the score of a document d for
// a query q is the cosine of q·Wq and d·Wd. With a residual mix λ > 0 the
// vector is [√λ·x̂, √(1−λ)·ŷ] (dimension InDim+OutDim, unit norm), so that the
// score is λ·cos(q, d) + (1−λ)·cos(q·Wq, d·Wd): the raw encoder's exact
// matches are kept where the head has learned nothing better.
//
// On disk (the workspace's head/ folder):
//
//	config.json    Config, including the sha256 of each weight file
//	query.npy      Wq, float32, shape (in_dim, out_dim)
//	document.npy   Wd, same shape (absent when tied)
//	log.jsonl      the training log, one JSON object per evaluation
package head

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/driftkit/driftkit/workspace"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// FormatVersion is the version of the head/ layout this package reads and writes.
const FormatVersion = 1

// File names inside a head folder.
const (
	ConfigFile          = "config.json"
	QueryWeightsFile    = "query.npy"
	DocumentWeightsFile = "document.npy"
	LogFile             = "log.jsonl"
)

// ErrMismatch is returned when a head does not fit the embeddings it is given
// (wrong dimension, other encoder).
var ErrMismatch = errors.New("head does not match the embeddings")

// Config describes a trained head: its shape, the encoder whose embeddings it
// was trained on, and how it was trained.
type Config struct {
	FormatVersion int    `json:"format_version"`
	InDim         int    `json:"in_dim"`
	OutDim        int    `json:"out_dim"`
	Tied          bool   `json:"tied"`
	Encoder       string `json:"encoder"` // e.g. "hash:1024" or "openai:bge-m3"
	// EncoderFallback is true when Encoder is the built-in hash encoder (an
	// offline fallback, not a semantic model).
	EncoderFallback bool `json:"encoder_fallback"`
	// Temperature the head was trained with; scores are plain cosines.
	Temperature float64 `json:"temperature"`
	// Mix is the weight λ of the raw cosine in the score (0: the head alone);
	// chosen on the valid split after training.
	Mix float64 `json:"mix"`
	// QuerySHA256 and DocumentSHA256 are the sha256 of the weight files.
	QuerySHA256    string `json:"query_sha256"`
	DocumentSHA256 string `json:"document_sha256,omitempty"`
	// Training records how the head was made (free-form, for the card and the
	// manifest).
	Training map[string]any `json:"training,omitempty"`
	// ToolVersion wrote the head.
	ToolVersion string `json:"tool_version"`
}

// EncoderID names the embeddings a head was trained on, as recorded in
// Config.Encoder: "<encoder>[:<model>]:<dims>", from an index manifest's
// encoder, model and dims. A head applies to an index only when the IDs match.
func EncoderID(encoder, model string, dims int) string {
	id := encoder
	if model != "" && !strings.Contains(id, model) {
		id += ":" + model
	}
	return fmt.Sprintf("%s:%d", id, dims)
}

// Info says which head is applied, for index manifests and reports.
type Info struct {
	ID      string  `json:"id"`
	Encoder string  `json:"encoder"`
	InDim   int     `json:"in_dim"`
	OutDim  int     `json:"out_dim"`
	Mix     float64 `json:"mix"`
	// Fallback is true when the head was trained on the offline hash
	// encoder's embeddings.
	Fallback bool `json:"encoder_fallback"`
}

// Info describes the head.
func (h *Head) Info() *Info {
	return &Info{ID: h.ID(), Encoder: h.Config.Encoder, InDim: h.Config.InDim, OutDim: h.Config.OutDim,
		Mix: h.Config.Mix, Fallback: h.Config.EncoderFallback}
}

// Head is a loaded projection head. It is immutable after Load or New and safe
// for concurrent use.
type Head struct {
	Config Config
	// Q and D are row-major (InDim × OutDim); D aliases Q when the head is tied.
	Q, D []float32
}

// New makes a head from weights (copied). d may be nil for a tied head.
func New(cfg Config, q, d []float32) (*Head, error) {
	if cfg.Mix < 0 || cfg.Mix >= 1 {
		return nil, fmt.Errorf("head: mix %v outside [0, 1)", cfg.Mix)
	}
	if cfg.InDim <= 0 || cfg.OutDim <= 0 {
		return nil, fmt.Errorf("head: bad shape %d → %d", cfg.InDim, cfg.OutDim)
	}
	n := cfg.InDim * cfg.OutDim
	if len(q) != n {
		return nil, fmt.Errorf("head: query weights have %d values, want %d", len(q), n)
	}
	cfg.FormatVersion = FormatVersion
	h := &Head{Config: cfg, Q: append([]float32(nil), q...)}
	if d == nil || cfg.Tied {
		h.Config.Tied = true
		h.D = h.Q
	} else {
		if len(d) != n {
			return nil, fmt.Errorf("head: document weights have %d values, want %d", len(d), n)
		}
		h.D = append([]float32(nil), d...)
	}
	return h, nil
}

// ID is a short stable identifier of the head (from its config, which
// includes the weight hashes), for manifests.
func (h *Head) ID() string {
	b, _ := json.Marshal(h.Config)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:6])
}

// Save writes the head into dir (created if needed). Each file is replaced
// atomically and config.json, which holds the hashes of the weight files, is
// written last, so a crash never leaves a folder that Load accepts with mixed
// weights.
func (h *Head) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	q := EncodeNPY(h.Q, h.Config.InDim, h.Config.OutDim)
	cfg := h.Config
	cfg.FormatVersion = FormatVersion
	if cfg.ToolVersion == "" {
		cfg.ToolVersion = workspace.Version
	}
	cfg.QuerySHA256 = sha(q)
	if err := workspace.WriteFileAtomic(filepath.Join(dir, QueryWeightsFile), q); err != nil {
		return err
	}
	if !cfg.Tied {
		d := EncodeNPY(h.D, h.Config.InDim, h.Config.OutDim)
		cfg.DocumentSHA256 = sha(d)
		if err := workspace.WriteFileAtomic(filepath.Join(dir, DocumentWeightsFile), d); err != nil {
			return err
		}
	} else {
		cfg.DocumentSHA256 = ""
		os.Remove(filepath.Join(dir, DocumentWeightsFile))
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := workspace.WriteFileAtomic(filepath.Join(dir, ConfigFile), append(b, '\n')); err != nil {
		return err
	}
	h.Config = cfg
	return nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Exists reports whether dir holds a head (its config.json).
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ConfigFile))
	return err == nil
}

// Load reads a head folder, checking the weight files against the hashes in
// config.json.
func Load(dir string) (*Head, error) {
	cpath := filepath.Join(dir, ConfigFile)
	b, err := os.ReadFile(cpath)
	if err != nil {
		return nil, err
	}
	var cfg Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", cpath, err)
	}
	if cfg.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("%s: format version %d, this driftkit reads %d", cpath, cfg.FormatVersion, FormatVersion)
	}
	read := func(name, want string) ([]float32, error) {
		p := filepath.Join(dir, name)
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if got := sha(raw); got != want {
			return nil, fmt.Errorf("%s: sha256 %s does not match %s in %s (partly rewritten head?)", p, got[:12], short(want), cpath)
		}
		w, r, c, err := DecodeNPY(p, raw)
		if err != nil {
			return nil, err
		}
		if r != cfg.InDim || c != cfg.OutDim {
			return nil, fmt.Errorf("%s: shape (%d, %d), config says (%d, %d)", p, r, c, cfg.InDim, cfg.OutDim)
		}
		return w, nil
	}
	q, err := read(QueryWeightsFile, cfg.QuerySHA256)
	if err != nil {
		return nil, err
	}
	h := &Head{Config: cfg, Q: q, D: q}
	if !cfg.Tied {
		if h.D, err = read(DocumentWeightsFile, cfg.DocumentSHA256); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// Normalise scales v to unit L2 norm in place (a zero vector stays zero) and
// returns it.
func Normalise(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Dim is the dimension of the vectors the head returns: OutDim, or
// InDim+OutDim with a residual mix.
func (h *Head) Dim() int {
	if h.Config.Mix > 0 {
		return h.Config.InDim + h.Config.OutDim
	}
	return h.Config.OutDim
}

// ProjectQuery returns the head's vector for one query embedding.
func (h *Head) ProjectQuery(x []float32) ([]float32, error) { return h.project(h.Q, x) }

// ProjectDocument returns the head's vector for one document embedding.
func (h *Head) ProjectDocument(x []float32) ([]float32, error) { return h.project(h.D, x) }

func (h *Head) project(w, x []float32) ([]float32, error) {
	out, err := h.projectMany(w, x, 1)
	return out, err
}

// ProjectQueries projects n query embeddings stored row-major in x (n × InDim)
// and returns n × Dim() normalised rows.
func (h *Head) ProjectQueries(x []float32, n int) ([]float32, error) { return h.projectMany(h.Q, x, n) }

// ProjectDocuments is ProjectQueries for document embeddings.
func (h *Head) ProjectDocuments(x []float32, n int) ([]float32, error) {
	return h.projectMany(h.D, x, n)
}

func (h *Head) projectMany(w, x []float32, n int) ([]float32, error) {
	in, out := h.Config.InDim, h.Config.OutDim
	if len(x) != n*in {
		return nil, fmt.Errorf("%w: %d values for %d vectors of dimension %d (head expects %s embeddings of dimension %d)", ErrMismatch, len(x), n, in, h.Config.Encoder, in)
	}
	if n == 0 {
		return nil, nil
	}
	xn := make([]float32, len(x))
	copy(xn, x)
	for i := 0; i < n; i++ {
		Normalise(xn[i*in : (i+1)*in])
	}
	y := make([]float32, n*out)
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas32.General{Rows: n, Cols: in, Stride: in, Data: xn},
		blas32.General{Rows: in, Cols: out, Stride: out, Data: w},
		0, blas32.General{Rows: n, Cols: out, Stride: out, Data: y})
	for i := 0; i < n; i++ {
		Normalise(y[i*out : (i+1)*out])
	}
	lam := h.Config.Mix
	if lam == 0 {
		return y, nil
	}
	a, b := float32(math.Sqrt(lam)), float32(math.Sqrt(1-lam))
	d := in + out
	z := make([]float32, n*d)
	for i := 0; i < n; i++ {
		for j, v := range xn[i*in : (i+1)*in] {
			z[i*d+j] = a * v
		}
		for j, v := range y[i*out : (i+1)*out] {
			z[i*d+in+j] = b * v
		}
	}
	return z, nil
}
