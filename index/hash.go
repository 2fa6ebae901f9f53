package index

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/driftkit/driftkit/internal/flat"
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
	// idfPlus is idf(b)+0.1 per bucket, filled by Fit (nil: computed per
	// feature, as a query does).
	idfPlus []float32
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

// hash64 is the features' hash (flat.Hash64: FNV-1a and a splitmix64
// finaliser, no allocation).
func hash64(prefix byte, s string) uint64 { return flat.Hash64(prefix, s) }

// features lists the distinct hashed features of text, sorted by hash, with
// their term frequencies (character n-grams count ngramWeight each). The
// order is deterministic so that vectors are bit-for-bit reproducible.
//
// It runs twice per document when an index is built (Fit, then Encode), so
// it allocates only its scratch: tokens are lower-cased into a buffer,
// trigrams hashed from a byte buffer, and the hashes of the two weights
// sorted as plain uint64 lists and merged (the sums of 1s and halves are
// exact in float32, so the merge order cannot change them).
func (h *HashEncoder) features(text string) []feature {
	sc := featurePool.Get().(*featureScratch)
	defer featurePool.Put(sc)
	return slices.Clone(h.featuresScratch(text, sc))
}

// featuresScratch is features in sc's memory: the list is valid until sc's
// next use (EncodeOne embeds hundreds of thousands of documents: a list
// allocated per document was a fifth of the build's allocation, #29).
func (h *HashEncoder) featuresScratch(text string, sc *featureScratch) []feature {
	h.rawFeatures(text, sc)
	ones, halves := sc.ones, sc.halves
	slices.Sort(ones)
	slices.Sort(halves)
	out := sc.out[:0]
	add := func(x uint64, w float32) {
		if k := len(out); k > 0 && out[k-1].h == x {
			out[k-1].w += w
			return
		}
		out = append(out, feature{x, w})
	}
	i, j := 0, 0
	for i < len(ones) || j < len(halves) {
		if j == len(halves) || i < len(ones) && ones[i] <= halves[j] {
			add(ones[i], 1)
			i++
		} else {
			add(halves[j], h.ngramWeight)
			j++
		}
	}
	sc.out = out
	return out
}

// rawFeatures fills sc.ones and sc.halves with the hashes of text's
// features of weight 1 (tokens, identifiers) and ngramWeight (trigrams),
// repeats included, in text order.
func (h *HashEncoder) rawFeatures(text string, sc *featureScratch) {
	ones, halves, g, lower, offs := sc.ones[:0], sc.halves[:0], sc.g, sc.lower, sc.offs
	retrieval.Words(text, func(w string, _, _ int) {
		n := 0
		retrieval.SubTokensBuf(w, &lower, func(t string) {
			n++
			ones = append(ones, hash64('t', t))
			if utf8.RuneCountInString(t) >= 3 {
				g = append(append(append(g[:0], '#'), t...), '#')
				// byte offsets of the rune starts, then every 3-rune window.
				offs = offs[:0]
				for i := 0; i < len(g); {
					offs = append(offs, i)
					_, k := utf8.DecodeRune(g[i:])
					i += k
				}
				offs = append(offs, len(g))
				gs := unsafe.String(unsafe.SliceData(g), len(g))
				for i := 0; i+3 < len(offs); i++ {
					halves = append(halves, hash64('c', gs[offs[i]:offs[i+3]]))
				}
			}
		})
		if n > 1 {
			ones = append(ones, hash64('i', lowerWord(w, &lower)))
		}
	})
	sc.ones, sc.halves, sc.g, sc.lower, sc.offs = ones, halves, g, lower, offs
}

// lowerWord is strings.ToLower(w), for an ASCII word written into *buf
// (valid until its next use) instead of a new string.
func lowerWord(w string, buf *[]byte) string {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return strings.ToLower(w)
		}
	}
	b := append((*buf)[:0], w...)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	*buf = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// featureScratch is features' reusable working memory.
type featureScratch struct {
	ones, halves []uint64
	g, lower     []byte
	offs         []int
	set          []uint64 // countDistinct's hash set
	out          []feature
	toks         []uint32  // encodeTokens' token ids
	count        []int32   // encodeTokens' bucket offsets by dimension
	byDim        []feature // encodeTokens' features bucketed by dimension
}

// countDistinct adds 1 to df[x % dfBuckets] for every distinct hash x of
// sc.ones and sc.halves: what Fit counts, without sorting (the counts are
// integers, so their order does not matter).
func (sc *featureScratch) countDistinct(df []uint32) {
	n := len(sc.ones) + len(sc.halves)
	size := 1 << bits.Len(uint(2*n))
	if cap(sc.set) < size {
		sc.set = make([]uint64, size)
	}
	set := sc.set[:size]
	clear(set)
	shift := 64 - bits.Len(uint(size-1))
	zero := false
	for _, l := range [][]uint64{sc.ones, sc.halves} {
		for _, x := range l {
			if x == 0 { // 0 marks an empty slot
				if !zero {
					zero = true
					df[0]++
				}
				continue
			}
			for i := (x * 0x9e3779b97f4a7c15) >> shift; ; i = (i + 1) & uint64(size-1) {
				if set[i] == x {
					break
				}
				if set[i] == 0 {
					set[i] = x
					df[x%dfBuckets]++
					break
				}
			}
		}
	}
}

var featurePool = sync.Pool{New: func() any { return new(featureScratch) }}

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
			sc := new(featureScratch)
			for i := w; i < len(texts); i += workers {
				h.rawFeatures(texts[i], sc)
				sc.countDistinct(df)
			}
			parts[w] = df
		}()
	}
	wg.Wait()
	h.fitCounts(parts)
}

// fitTokens is Fit from the tokenized corpus, whose workers counted the
// features' document frequencies (tokenizeCorpus with fit).
func (h *HashEncoder) fitTokens(ct *corpusTokens) {
	clear(h.df)
	h.n = ct.n
	parts := make([][]uint32, len(ct.dicts))
	for i, d := range ct.dicts {
		parts[i] = d.df
	}
	h.fitCounts(parts)
}

// fitCounts sums the workers' document frequencies and fills what
// encoding the corpus next needs.
func (h *HashEncoder) fitCounts(parts [][]uint32) {
	for _, df := range parts {
		for i, c := range df {
			h.df[i] += c
		}
	}
	h.state = stateSHA(h.stateBytes())
	// The build embeds the whole corpus next: one logarithm per bucket
	// instead of one per feature of every document.
	h.idfPlus = make([]float32, dfBuckets)
	for b := range h.idfPlus {
		h.idfPlus[b] = h.idf(uint64(b)) + 0.1
	}
}

func stateSHA(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (h *HashEncoder) idf(f uint64) float32 {
	df := float64(h.df[f%dfBuckets])
	return float32(math.Log((float64(h.n) + 1) / (df + 1)))
}

// tfWeights[k] is tfWeight(k/2) for the term frequencies features have
// (sums of 1s and halves) up to 127.5.
var tfWeights = func() (t [256]float32) {
	for k := range t {
		t[k] = 1 + float32(math.Log(float64(float32(k)/2)+1e-9))
	}
	return t
}()

// tfWeight is a term frequency's weight, 1 + log tf.
func tfWeight(tf float32) float32 {
	if k := int(tf * 2); k < len(tfWeights) && float32(k)/2 == tf {
		return tfWeights[k]
	}
	return 1 + float32(math.Log(float64(tf)+1e-9))
}

// EncodeOne embeds one text into dst (len Dim), which it overwrites.
func (h *HashEncoder) EncodeOne(text string, dst []float32) {
	clear(dst)
	sc := featurePool.Get().(*featureScratch)
	defer featurePool.Put(sc)
	h.embed(h.featuresScratch(text, sc), dst)
}

// encodeTokens embeds document i of the tokenized corpus into dst (len
// Dim), which it overwrites: the same vector as EncodeOne of its text.
// The features are gathered per distinct token with its count (a
// feature's term frequency is a sum of 1s and halves, exact in float32
// in any order), sorted by hash.
func (h *HashEncoder) encodeTokens(ct *corpusTokens, i int, dst []float32) {
	clear(dst)
	c := ct.chunkOf(i)
	d := c.dict
	sc := featurePool.Get().(*featureScratch)
	defer featurePool.Put(sc)
	toks := append(sc.toks[:0], c.toks[c.docOff[i-c.start]:c.docOff[i-c.start+1]]...)
	slices.Sort(toks)
	out := sc.out[:0]
	for j := 0; j < len(toks); {
		k := j + 1
		for k < len(toks) && toks[k] == toks[j] {
			k++
		}
		tf := float32(k - j)
		f := d.feat[d.featOff[toks[j]]:d.featOff[toks[j]+1]]
		out = append(out, feature{f[0], tf})
		for _, x := range f[1:] {
			out = append(out, feature{x, tf * h.ngramWeight})
		}
		j = k
	}
	// Each feature adds into one dimension, and only the order of the
	// additions into one dimension can change a vector's bits: the
	// features are bucketed by dimension (a counting sort) and each bucket
	// sorted by hash, the order in which embed adds them, instead of
	// sorting the whole list (#29).
	dim := h.dim
	if cap(sc.count) < dim+1 {
		sc.count = make([]int32, dim+1)
	}
	count := sc.count[:dim+1]
	clear(count)
	for _, f := range out {
		count[(f.h>>1)%uint64(dim)+1]++
	}
	for k := 1; k <= dim; k++ {
		count[k] += count[k-1]
	}
	if cap(sc.byDim) < len(out) {
		sc.byDim = make([]feature, len(out), 2*len(out))
	}
	byDim := sc.byDim[:len(out)]
	for _, f := range out {
		k := (f.h >> 1) % uint64(dim)
		byDim[count[k]] = f
		count[k]++
	}
	// count[k] is now the end of bucket k (the start of bucket k+1).
	start := 0
	for k := range dim {
		end := int(count[k])
		b := byDim[start:end]
		for x := 1; x < len(b); x++ { // insertion sort: buckets hold a few features
			for y := x; y > 0 && b[y].h < b[y-1].h; y-- {
				b[y], b[y-1] = b[y-1], b[y]
			}
		}
		for x := 0; x < len(b); {
			f, tf := b[x].h, b[x].w
			x++
			for x < len(b) && b[x].h == f {
				tf += b[x].w
				x++
			}
			dst[k] += h.weight(f, tf)
		}
		start = end
	}
	sc.toks, sc.out, sc.byDim = toks, out, byDim
	normalize(dst)
}

// embed adds the weighted features, in order, into dst (cleared) and
// normalises it.
func (h *HashEncoder) embed(features []feature, dst []float32) {
	for _, ft := range features {
		dst[(ft.h>>1)%uint64(h.dim)] += h.weight(ft.h, ft.w)
	}
	normalize(dst)
}

// weight is a feature's signed weight: its term frequency's weight times
// its idf (+0.1), negative for an odd hash.
func (h *HashEncoder) weight(f uint64, tf float32) float32 {
	var ip float32
	if h.idfPlus != nil {
		ip = h.idfPlus[f%dfBuckets]
	} else {
		ip = h.idf(f) + 0.1
	}
	var w float32
	if tf < 1 {
		w = tf * ip
	} else {
		w = tfWeight(tf) * ip
	}
	if f&1 == 1 {
		w = -w
	}
	return w
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
