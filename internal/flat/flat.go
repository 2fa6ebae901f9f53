// Package flat is driftkit's file format for data a reader uses without
// parsing it: named sections of little-endian arrays that a memory-mapped
// File hands out as Go slices pointing into the mapping. Opening a file
// reads its section table only; a section's pages become resident when a
// reader touches them, and its CRC32C is checked the first time it is
// taken (read with pread, so the check adds no resident pages).
//
// Layout of a file (all integers little-endian):
//
//	magic     "DKFLAT01"
//	sections  each starting at a multiple of 64 bytes (zero padding between)
//	table     per section: u16 name length, name, u8 element type,
//	          u64 offset, u64 length in bytes, u32 CRC32C (Castagnoli) of its bytes
//	footer    u64 table offset, u64 table length, u32 section count,
//	          u32 CRC32C of the table, "DKFLATZ\n"
//
// On top of plain arrays the package defines three composite shapes, each
// stored as several sections: Strings (name.off u32 × n+1, name.data bytes),
// Keys (Strings plus name.slots, an open-addressing hash table of the
// strings) and Lists (name.off u32 × n+1, name.vals i32: compressed sparse
// rows).
//
// The package imports only the standard library; every index file that
// must open without decoding (index/table.dk, index/bm25.dk, …) uses it.
package flat

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"unsafe"
)

// Magic starts every flat file; footerMagic ends it.
const (
	Magic       = "DKFLAT01"
	footerMagic = "DKFLATZ\n"
	footerSize  = 32
	// align is the alignment of every section's offset (a cache line).
	align = 64
)

// ErrFormat is wrapped by every error about a file that is not a valid
// flat file or whose section does not match its checksum.
var ErrFormat = errors.New("damaged or foreign flat file")

// Error locates a problem in a flat file: the file and, when known, the
// section.
type Error struct {
	Path, Section string
	Err           error
}

func (e *Error) Error() string {
	if e.Section != "" {
		return fmt.Sprintf("%s: section %s: %v", e.Path, e.Section, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Type is a section's element type.
type Type uint8

// Element types.
const (
	Bytes Type = iota + 1
	Uint16
	Uint32
	Int32
	Uint64
	Float32
)

func (t Type) size() int {
	switch t {
	case Bytes:
		return 1
	case Uint16:
		return 2
	case Uint32, Int32, Float32:
		return 4
	case Uint64:
		return 8
	}
	return 0
}

// Elem is the element types a section holds.
type Elem interface {
	~uint8 | ~uint16 | ~uint32 | ~int32 | ~uint64 | ~float32
}

// typeOf is T's element type.
func typeOf[T Elem]() Type {
	var z T
	switch any(z).(type) {
	case uint8:
		return Bytes
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case int32:
		return Int32
	case uint64:
		return Uint64
	case float32:
		return Float32
	}
	panic("flat: unsupported element type")
}

// hostLittleEndian: on such hosts a section's bytes are its values.
var hostLittleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// Hash64 is FNV-1a over a prefix byte and s, then splitmix64's finaliser
// (FNV's low bits mix poorly for short keys). It is part of the file
// format (Keys' slots are placed by it): it must never change.
func Hash64(prefix byte, s string) uint64 {
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

// Strings is a column of strings: string i is Data[Off[i]:Off[i+1]].
// Strings taken from a File point into its mapping: copy what must outlive
// it (strings.Clone).
type Strings struct {
	Off  []uint32
	Data []byte
}

// Len is the number of strings.
func (s Strings) Len() int { return max(len(s.Off)-1, 0) }

// At returns string i without copying.
func (s Strings) At(i int) string {
	a, b := s.Off[i], s.Off[i+1]
	if a == b {
		return ""
	}
	return unsafe.String(&s.Data[a], int(b-a))
}

// NewStrings makes a column of ss.
func NewStrings(ss []string) Strings {
	var b StringsBuilder
	for _, s := range ss {
		b.Add(s)
	}
	return b.Strings()
}

// StringsBuilder appends strings to a column.
type StringsBuilder struct {
	off  []uint32
	data []byte
}

// Add appends s and returns its index. It panics past 4 GiB of string
// bytes (uint32 offsets).
func (b *StringsBuilder) Add(s string) int {
	if b.off == nil {
		b.off = []uint32{0}
	}
	if uint64(len(b.data))+uint64(len(s)) > 1<<32-1 {
		panic("flat: a string column over 4 GiB")
	}
	b.data = append(b.data, s...)
	b.off = append(b.off, uint32(len(b.data)))
	return len(b.off) - 2
}

// Grow makes room for n more strings of size bytes in all, so that adding
// them does not reallocate.
func (b *StringsBuilder) Grow(n, size int) {
	if b.off == nil {
		b.off = make([]uint32, 1, n+1)
	}
	b.off = slices.Grow(b.off, n)
	b.data = slices.Grow(b.data, size)
}

// Len is the number of strings added.
func (b *StringsBuilder) Len() int { return max(len(b.off)-1, 0) }

// Strings returns the column (sharing the builder's memory).
func (b *StringsBuilder) Strings() Strings {
	if b.off == nil {
		return Strings{Off: []uint32{0}}
	}
	return Strings{Off: b.off, Data: b.data}
}

// Keys is a Strings column with a hash index: Find(s) is the index of s.
// Slots has a power-of-two length; slot values are 1 + a string's index, 0
// for empty. When a string occurs several times, Find returns its last
// occurrence.
type Keys struct {
	Strings
	Slots []uint32
}

// keyPrefix is the Hash64 prefix of Keys.
const keyPrefix = 'k'

// NewKeys indexes s (at most half the slots are used).
func NewKeys(s Strings) Keys {
	n := s.Len()
	size := 1 << bits.Len(uint(2*n))
	slots := make([]uint32, size)
	mask := uint64(size - 1)
	for i := range n {
		k := s.At(i)
		for j := Hash64(keyPrefix, k) & mask; ; j = (j + 1) & mask {
			v := slots[j]
			if v == 0 || s.At(int(v-1)) == k {
				slots[j] = uint32(i + 1)
				break
			}
		}
	}
	return Keys{Strings: s, Slots: slots}
}

// Find returns the index of key, or -1.
func (k Keys) Find(key string) int {
	if len(k.Slots) == 0 {
		return -1
	}
	mask := uint64(len(k.Slots) - 1)
	j := Hash64(keyPrefix, key) & mask
	for range k.Slots {
		v := k.Slots[j]
		if v == 0 {
			return -1
		}
		if k.At(int(v-1)) == key {
			return int(v - 1)
		}
		j = (j + 1) & mask
	}
	return -1
}

// Lists is a list of int32 lists (compressed sparse rows): list i is
// Vals[Off[i]:Off[i+1]].
type Lists struct {
	Off  []uint32
	Vals []int32
}

// Len is the number of lists.
func (l Lists) Len() int { return max(len(l.Off)-1, 0) }

// At returns list i (shared: read-only).
func (l Lists) At(i int) []int32 {
	a, b := l.Off[i], l.Off[i+1]
	return l.Vals[a:b:b]
}

// NewLists packs lists.
func NewLists(lists [][]int32) Lists {
	off := make([]uint32, len(lists)+1)
	total := 0
	for i, l := range lists {
		total += len(l)
		if total > 1<<32-1 {
			panic("flat: lists over 2^32 values")
		}
		off[i+1] = uint32(total)
	}
	vals := make([]int32, 0, total)
	for _, l := range lists {
		vals = append(vals, l...)
	}
	return Lists{Off: off, Vals: vals}
}
