package flat

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unsafe"
)

// castagnoli is CRC32C's table (hardware-accelerated on amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Writer writes a flat file section by section to an io.Writer. Errors are
// sticky: Close returns the first.
type Writer struct {
	w     io.Writer
	off   int64
	table []byte
	n     int
	names map[string]bool
	err   error
}

// NewWriter starts a flat file on w.
func NewWriter(w io.Writer) *Writer {
	fw := &Writer{w: w, names: map[string]bool{}}
	fw.write([]byte(Magic))
	return fw
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.off += int64(n)
	w.err = err
}

// section writes one section's bytes at the next aligned offset.
func (w *Writer) section(name string, t Type, b []byte) {
	if w.err != nil {
		return
	}
	if w.names[name] || len(name) > 1<<16-1 || name == "" {
		w.err = fmt.Errorf("flat: section name %q empty, too long or written twice", name)
		return
	}
	w.names[name] = true
	if pad := (align - w.off%align) % align; pad > 0 {
		w.write(make([]byte, pad))
	}
	start := w.off
	w.write(b)
	w.table = binary.LittleEndian.AppendUint16(w.table, uint16(len(name)))
	w.table = append(w.table, name...)
	w.table = append(w.table, byte(t))
	w.table = binary.LittleEndian.AppendUint64(w.table, uint64(start))
	w.table = binary.LittleEndian.AppendUint64(w.table, uint64(len(b)))
	w.table = binary.LittleEndian.AppendUint32(w.table, crc32.Checksum(b, castagnoli))
	w.n++
}

// Put writes a section of v's elements.
func Put[T Elem](w *Writer, name string, v []T) {
	w.section(name, typeOf[T](), asBytes(v))
}

// asBytes is v's little-endian bytes (v's own memory on little-endian
// hosts).
func asBytes[T Elem](v []T) []byte {
	size := int(unsafe.Sizeof(*new(T)))
	if len(v) == 0 {
		return nil
	}
	if hostLittleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*size)
	}
	out := make([]byte, 0, len(v)*size)
	for _, x := range v {
		switch y := any(x).(type) {
		case uint8:
			out = append(out, y)
		case uint16:
			out = binary.LittleEndian.AppendUint16(out, y)
		case uint32:
			out = binary.LittleEndian.AppendUint32(out, y)
		case int32:
			out = binary.LittleEndian.AppendUint32(out, uint32(y))
		case uint64:
			out = binary.LittleEndian.AppendUint64(out, y)
		case float32:
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(y))
		}
	}
	return out
}

// Strings writes s as name.off and name.data.
func (w *Writer) Strings(name string, s Strings) {
	if s.Off == nil {
		s.Off = []uint32{0}
	}
	Put(w, name+".off", s.Off)
	Put(w, name+".data", s.Data)
}

// Keys writes k as name.off, name.data and name.slots.
func (w *Writer) Keys(name string, k Keys) {
	w.Strings(name, k.Strings)
	Put(w, name+".slots", k.Slots)
}

// Lists writes l as name.off and name.vals.
func (w *Writer) Lists(name string, l Lists) {
	if l.Off == nil {
		l.Off = []uint32{0}
	}
	Put(w, name+".off", l.Off)
	Put(w, name+".vals", l.Vals)
}

// Close writes the section table and the footer. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if pad := (8 - w.off%8) % 8; pad > 0 {
		w.write(make([]byte, pad))
	}
	start := w.off
	w.write(w.table)
	var f [footerSize]byte
	binary.LittleEndian.PutUint64(f[0:], uint64(start))
	binary.LittleEndian.PutUint64(f[8:], uint64(len(w.table)))
	binary.LittleEndian.PutUint32(f[16:], uint32(w.n))
	binary.LittleEndian.PutUint32(f[20:], crc32.Checksum(w.table, castagnoli))
	copy(f[24:], footerMagic)
	w.write(f[:])
	return w.err
}
