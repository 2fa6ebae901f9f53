package lean4export

import (
	"strconv"
	"strings"
)

// chunkBits sets the size of the chunks the big tables grow by: once a
// chunk is full, growing never copies what is already stored (a doubling
// slice would briefly need three times the table).
const chunkBits = 20

type u32s struct{ chunks [][]uint32 }

func (t *u32s) get(i uint32) uint32 { return t.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }
func (t *u32s) set(i, v uint32) {
	c, o := int(i>>chunkBits), int(i&(1<<chunkBits-1))
	for c >= len(t.chunks) {
		t.chunks = append(t.chunks, nil)
	}
	if o >= len(t.chunks[c]) {
		t.chunks[c] = growChunk(t.chunks[c], o)
	}
	t.chunks[c][o] = v
}

// growChunk lengthens a chunk to hold offset o: small exports stay small,
// and a chunk stops growing (and copying) at its full size.
func growChunk[T uint8 | uint32](c []T, o int) []T {
	n := min(max(2*len(c), o+1, 256), 1<<chunkBits)
	return append(c, make([]T, n-len(c))...)
}

type u8s struct{ chunks [][]uint8 }

func (t *u8s) get(i uint32) uint8 { return t.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }
func (t *u8s) set(i uint32, v uint8) {
	c, o := int(i>>chunkBits), int(i&(1<<chunkBits-1))
	for c >= len(t.chunks) {
		t.chunks = append(t.chunks, nil)
	}
	if o >= len(t.chunks[c]) {
		t.chunks[c] = growChunk(t.chunks[c], o)
	}
	t.chunks[c][o] = v
}

// exprTable is the expression DAG as compact integer columns indexed by
// expression id: 13 bytes per expression whatever its kind.
//
//	kind  low 4 bits: exBVar…exProj; bits 4-5: binder info; bit 6: a
//	      constant occurs below (dependency walks skip the rest); bit 7: small
//	      natural literal kept in a
//	a     bvar: index; sort: level; const: name; app: fn; lam/forallE: binder
//	      type; letE: type; lit: value; mdata: expr; proj: struct
//	b     app: arg; lam/forallE: body; letE: value; proj: structure name
//	c     lam/forallE/letE: binder name; proj: field index
//
// The body of a letE (rare) is kept in letBody.
type exprTable struct {
	n       uint32
	kind    u8s
	a, b, c u32s
	letBody map[uint32]uint32
}

const (
	kindMask  = 0x0f
	biShift   = 4
	hasConst  = 0x40
	smallNat  = 0x80
	biMaskRaw = 0x30
)

func (t *exprTable) kindOf(e uint32) uint8 { return t.kind.get(e) & kindMask }
func (t *exprTable) bi(e uint32) int       { return int(t.kind.get(e)&biMaskRaw) >> biShift }
func (t *exprTable) has(e uint32) bool     { return t.kind.get(e)&hasConst != 0 }

// nameTable holds names as (prefix, component) with the component text in
// one byte arena; numeric components are kept as their decimal text.
type nameTable struct {
	pre   []uint32
	off   []uint32 // arena offset of the component; off[i+1] ends it
	arena []byte
	cache map[uint32]string // full names built so far (constants only)
}

func newNameTable() *nameTable {
	// name 0 is the anonymous name
	return &nameTable{pre: []uint32{0}, off: []uint32{0, 0}, cache: map[uint32]string{0: ""}}
}

func (t *nameTable) len() uint32 { return uint32(len(t.pre)) }

func (t *nameTable) add(pre uint32, comp []byte) bool {
	if uint64(len(t.arena))+uint64(len(comp)) > 1<<32-1 {
		return false
	}
	t.pre = append(t.pre, pre)
	t.arena = append(t.arena, comp...)
	t.off = append(t.off, uint32(len(t.arena)))
	return true
}

func (t *nameTable) comp(i uint32) string { return string(t.arena[t.off[i]:t.off[i+1]]) }

// full returns the dotted name; results for names asked for often
// (constants) are cached.
func (t *nameTable) full(i uint32) string {
	if s, ok := t.cache[i]; ok {
		return s
	}
	var parts []string
	for j := i; j != 0 && len(parts) < 4096; j = t.pre[j] {
		parts = append(parts, t.comp(j))
	}
	for l, r := 0, len(parts)-1; l < r; l, r = l+1, r-1 {
		parts[l], parts[r] = parts[r], parts[l]
	}
	s := strings.Join(parts, ".")
	t.cache[i] = s
	return s
}

// last returns the last component without building the full name.
func (t *nameTable) last(i uint32) string { return t.comp(i) }

func numComp(n uint32) []byte { return strconv.AppendUint(nil, uint64(n), 10) }

// levelTable holds universe levels (few: they are only needed to print sorts).
type levelTable struct {
	kind []uint8
	a, b []uint32
}

func newLevelTable() *levelTable {
	return &levelTable{kind: []uint8{lvZero}, a: []uint32{0}, b: []uint32{0}} // level 0 is zero
}
