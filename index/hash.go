package index

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/driftkit/driftkit/retrieval"
	"github.com/driftkit/driftkit/workspace"
)

// HashEncoder is the built-in offline encoder (a fallback, labelled as such in
// every output): signed feature hashing of identifier sub-tokens (split on
// '.', '_' and camelCase), whole identifiers, and character trigrams of words,
// weighted by 1+log(tf) times an IDF learned from the corpus, L2-normalised.
// It is safe for concurrent use after construction.
type HashEncoder struct {
	dim int
	// df counts, per feature hash bucket (dfBuckets of them), the corpus
	// documents containing a feature of that bucket; n is the corpus size.
	df []uint32
	n  int
	// NGramWeight scales character n-gram features relative to tokens.
	ngramWeight float32
	// state is the sha256 of the serialised fitted state ("" unfitted).
	state string
}

func init() { RegisterEncoder(EncoderHash, newHashFromSpec) }

// newHashFromSpec is the hash encoder's factory: fresh (to be fitted) when
// building, loaded from the generation's hash_state.bin when opening.
func newHashFromSpec(_ context.Context, spec EncoderSpec, env EncoderEnv) (Encoder, error) {
	if err := CheckParams(spec); err != nil {
		return nil, err
	}
	if env.Dir == "" {
		return NewHashEncoder(spec.Dims), nil
	}
	path := filepath.Join(env.Dir, HashStateName)
	h, err := LoadHashEncoder(path)
	if err != nil {
		return nil, err
	}
	if h.Dim() != spec.Dims || (spec.State != "" && h.state != spec.State) {
		return nil, &workspace.FileError{Path: path, Row: -1, Err: fmt.Errorf("%w: hash encoder state (dim %d, sha256 %.12s) does not match the manifest (dim %d, sha256 %.12s)",
			ErrStale, h.Dim(), h.state, spec.Dims, spec.State)}
	}
	return h, nil
}

// Spec implements Encoder.
func (h *HashEncoder) Spec() EncoderSpec {
	return EncoderSpec{Kind: EncoderHash, Dims: h.dim, Normalize: "l2", State: h.state, Fallback: true}
}

// SaveState implements StateSaver.
func (h *HashEncoder) SaveState(dir string) ([]string, error) {
	return []string{HashStateName}, h.Save(filepath.Join(dir, HashStateName))
}

const dfBuckets = 1 << 20

// NewHashEncoder returns an unfitted hash encoder (all IDF weights equal).
func NewHashEncoder(dim int) *HashEncoder {
	if dim <= 0 {
		dim = DefaultHashDim
	}
	return &HashEncoder{dim: dim, df: make([]uint32, dfBuckets), ngramWeight: 0.5}
}

// DefaultHashDim is the default dimension of the hash encoder.
const DefaultHashDim = 256

// Name implements Encoder.
func (h *HashEncoder) Name() string { return EncoderHash }

// Dim implements Encoder.
func (h *HashEncoder) Dim() int { return h.dim }

type feature struct {
	h uint64
	w float32
}

func hash64(prefix byte, s string) uint64 {
	// FNV-1a, then a splitmix64 finaliser (FNV's low bits mix poorly for
	// short keys). No allocation.
	x := uint64(14695981039346656037)
	x ^= uint64(prefix)
	x *= 1099511628211
	for i := 0; i < len(s); i++ {
		x ^= uint64(s[i])
		x *= 1099511628211
	}
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// features lists the distinct hashed features of text, sorted by hash, with
// their term frequencies (character n-grams count ngramWeight each). The
// order is deterministic so that vectors are bit-for-bit reproducible.
func (h *HashEncoder) features(text string) []feature {
	var raw []feature
	retrieval.Words(text, func(w string, _, _ int) {
		n := 0
		retrieval.SubTokens(w, func(t string) {
			n++
			raw = append(raw, feature{hash64('t', t), 1})
			if utf8.RuneCountInString(t) >= 3 {
				g := "#" + t + "#"
				// byte offsets of the rune starts, then every 3-rune window.
				var offs [64]int
				o := offs[:0]
				for i := range g {
					o = append(o, i)
				}
				o = append(o, len(g))
				for i := 0; i+3 < len(o); i++ {
					raw = append(raw, feature{hash64('c', g[o[i]:o[i+3]]), h.ngramWeight})
				}
			}
		})
		if n > 1 {
			raw = append(raw, feature{hash64('i', strings.ToLower(w)), 1})
		}
	})
	slices.SortFunc(raw, func(a, b feature) int { return cmp.Compare(a.h, b.h) })
	out := raw[:0]
	for _, f := range raw {
		if len(out) > 0 && out[len(out)-1].h == f.h {
			out[len(out)-1].w += f.w
			continue
		}
		out = append(out, f)
	}
	return out
}

// Fit learns document frequencies from the corpus texts (on all cores).
func (h *HashEncoder) Fit(texts []string) {
	clear(h.df)
	h.n = len(texts)
	workers := runtime.GOMAXPROCS(0)
	parts := make([][]uint32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			df := make([]uint32, dfBuckets)
			for i := w; i < len(texts); i += workers {
				for _, f := range h.features(texts[i]) {
					df[f.h%dfBuckets]++
				}
			}
			parts[w] = df
		}()
	}
	wg.Wait()
	for _, df := range parts {
		for i, c := range df {
			h.df[i] += c
		}
	}
	h.state = stateSHA(h.stateBytes())
}

func stateSHA(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (h *HashEncoder) idf(f uint64) float32 {
	df := float64(h.df[f%dfBuckets])
	return float32(math.Log((float64(h.n) + 1) / (df + 1)))
}

// EncodeOne embeds one text into dst (len Dim), which it overwrites.
func (h *HashEncoder) EncodeOne(text string, dst []float32) {
	clear(dst)
	for _, ft := range h.features(text) {
		f, tf := ft.h, ft.w
		w := (1 + float32(math.Log(float64(tf)+1e-9))) * (h.idf(f) + 0.1)
		if tf < 1 {
			w = tf * (h.idf(f) + 0.1)
		}
		i := (f >> 1) % uint64(h.dim)
		if f&1 == 1 {
			w = -w
		}
		dst[i] += w
	}
	normalize(dst)
}

// Encode implements Encoder.
func (h *HashEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*h.dim)
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = flat[i*h.dim : (i+1)*h.dim : (i+1)*h.dim]
		h.EncodeOne(t, out[i])
	}
	return out, nil
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// hash encoder state file: magic, dim, n, then dfBuckets uint32 counts.
const hashStateMagic = "DKHASH1\n"

// stateBytes serialises the fitted state (dimension and document frequencies).
func (h *HashEncoder) stateBytes() []byte {
	b := make([]byte, 0, len(hashStateMagic)+16+4*len(h.df))
	b = append(b, hashStateMagic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.dim))
	b = binary.LittleEndian.AppendUint64(b, uint64(h.n))
	for _, d := range h.df {
		b = binary.LittleEndian.AppendUint32(b, d)
	}
	return b
}

// Save writes the fitted state (dimension and document frequencies).
func (h *HashEncoder) Save(path string) error {
	return workspace.WriteFileAtomic(path, h.stateBytes())
}

// LoadHashEncoder reads a state written by Save.
func LoadHashEncoder(path string) (*HashEncoder, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b := raw
	if len(b) != len(hashStateMagic)+16+4*dfBuckets || string(b[:len(hashStateMagic)]) != hashStateMagic {
		return nil, &workspace.FileError{Path: path, Row: -1, Err: errors.New("not a hash encoder state file")}
	}
	b = b[len(hashStateMagic):]
	dim := int(binary.LittleEndian.Uint64(b))
	if dim <= 0 || dim > 1<<16 {
		return nil, &workspace.FileError{Path: path, Row: -1, Err: fmt.Errorf("bad dimension %d", dim)}
	}
	h := NewHashEncoder(dim)
	h.state = stateSHA(raw)
	h.n = int(binary.LittleEndian.Uint64(b[8:]))
	b = b[16:]
	for i := range h.df {
		h.df[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return h, nil
}
