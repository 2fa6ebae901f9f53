package flat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sync"
	"unsafe"
)

// File is an open flat file: memory-mapped when the platform allows it,
// read into memory otherwise. Slices it hands out are valid until Close.
// Safe for concurrent use.
type File struct {
	path  string
	f     *os.File
	data  []byte
	unmap func() error
	secs  map[string]*section
	order []string
}

// section is one entry of the table, verified at most once.
type section struct {
	name   string
	typ    Type
	off, n int64
	crc    uint32
	once   sync.Once
	err    error
}

// Open maps path and reads its section table (no section is read or
// verified yet).
func Open(path string) (_ *File, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size < int64(len(Magic)+footerSize) {
		return nil, &Error{Path: path, Err: fmt.Errorf("%w: %d bytes, too short", ErrFormat, size)}
	}
	fl := &File{path: path, f: f, secs: map[string]*section{}}
	if b, unmap, err := MapFile(f, size); err == nil {
		fl.data, fl.unmap = b, unmap
	} else if fl.data, err = io.ReadAll(io.NewSectionReader(f, 0, size)); err != nil {
		return nil, err
	}
	if err := fl.readTable(); err != nil {
		fl.Close()
		return nil, &Error{Path: path, Err: err}
	}
	return fl, nil
}

// readTable checks the magic, the footer and the table, and indexes the
// sections.
func (fl *File) readTable() error {
	d := fl.data
	size := int64(len(d))
	if string(d[:len(Magic)]) != Magic {
		return fmt.Errorf("%w: not a flat file (magic %q)", ErrFormat, d[:len(Magic)])
	}
	foot := d[size-footerSize:]
	if string(foot[24:]) != footerMagic {
		return fmt.Errorf("%w: no footer (truncated?)", ErrFormat)
	}
	start, n := binary.LittleEndian.Uint64(foot[0:]), binary.LittleEndian.Uint64(foot[8:])
	count := binary.LittleEndian.Uint32(foot[16:])
	end := uint64(size - footerSize)
	if start < uint64(len(Magic)) || start > end || n != end-start {
		return fmt.Errorf("%w: section table at %d+%d does not end at the footer (%d)", ErrFormat, start, n, end)
	}
	tab := d[start:end]
	if crc32.Checksum(tab, castagnoli) != binary.LittleEndian.Uint32(foot[20:]) {
		return fmt.Errorf("%w: section table checksum mismatch", ErrFormat)
	}
	for i := range count {
		if len(tab) < 2 {
			return fmt.Errorf("%w: section table ends at entry %d of %d", ErrFormat, i, count)
		}
		l := int(binary.LittleEndian.Uint16(tab))
		if len(tab) < 2+l+1+8+8+4 {
			return fmt.Errorf("%w: section table ends at entry %d of %d", ErrFormat, i, count)
		}
		s := &section{name: string(tab[2 : 2+l]), typ: Type(tab[2+l])}
		p := tab[3+l:]
		off, sz := binary.LittleEndian.Uint64(p), binary.LittleEndian.Uint64(p[8:])
		s.crc = binary.LittleEndian.Uint32(p[16:])
		tab = p[20:]
		es := s.typ.size()
		switch {
		case es == 0:
			return fmt.Errorf("%w: section %q has unknown element type %d", ErrFormat, s.name, s.typ)
		case off%align != 0 || off < uint64(len(Magic)) || off > start || sz > start-off:
			return fmt.Errorf("%w: section %q at %d+%d is outside the data (table at %d)", ErrFormat, s.name, off, sz, start)
		case sz%uint64(es) != 0:
			return fmt.Errorf("%w: section %q has %d bytes, not a multiple of %d", ErrFormat, s.name, sz, es)
		case fl.secs[s.name] != nil:
			return fmt.Errorf("%w: section %q twice", ErrFormat, s.name)
		}
		s.off, s.n = int64(off), int64(sz)
		fl.secs[s.name] = s
		fl.order = append(fl.order, s.name)
	}
	if len(tab) != 0 {
		return fmt.Errorf("%w: %d bytes after the last section entry", ErrFormat, len(tab))
	}
	return nil
}

// Path is the file's path.
func (fl *File) Path() string { return fl.path }

// Mapped reports whether the file is memory-mapped.
func (fl *File) Mapped() bool { return fl.unmap != nil }

// Has reports whether the file has a section.
func (fl *File) Has(name string) bool { return fl.secs[name] != nil }

// Len is the length of a section in bytes (0 when absent).
func (fl *File) Len(name string) int64 {
	if s := fl.secs[name]; s != nil {
		return s.n
	}
	return 0
}

// Sections lists the section names in file order.
func (fl *File) Sections() []string { return fl.order }

// Close unmaps the file: nothing it handed out may be used afterwards.
func (fl *File) Close() error {
	var errs []error
	if fl.unmap != nil {
		errs = append(errs, fl.unmap())
		fl.unmap = nil
	}
	fl.data = nil
	errs = append(errs, fl.f.Close())
	return errors.Join(errs...)
}

// bufPool holds the buffers verification reads into.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// verify checks a section's CRC32C once. It reads the file with pread
// rather than through the mapping, so that checking a section does not make
// its pages resident in the process (a query then maps in only what it
// touches).
func (fl *File) verify(s *section) error {
	s.once.Do(func() {
		var crc uint32
		if err := fl.chunks(s, func(b []byte) error { crc = crc32.Update(crc, castagnoli, b); return nil }); err != nil {
			s.err = &Error{Path: fl.path, Section: s.name, Err: err}
			return
		}
		if crc != s.crc {
			s.err = &Error{Path: fl.path, Section: s.name, Err: fmt.Errorf("%w: CRC32C %08x, the file's table says %08x", ErrFormat, crc, s.crc)}
		}
	})
	return s.err
}

// chunks reads a section with pread, 1 MiB at a time (whole elements).
func (fl *File) chunks(s *section, fn func([]byte) error) error {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	for done := int64(0); done < s.n; {
		k := min(int64(len(buf)), s.n-done)
		if _, err := fl.f.ReadAt(buf[:k], s.off+done); err != nil {
			return err
		}
		if err := fn(buf[:k]); err != nil {
			return err
		}
		done += k
	}
	return nil
}

// Scan hands section name's values to fn in chunks read with pread (not
// through the mapping: a check of every value does not make the section
// resident). The section must have been taken (verified) first.
func Scan[T Elem](fl *File, name string, fn func(chunk []T) error) error {
	s := fl.secs[name]
	if s == nil || s.typ != typeOf[T]() {
		return &Error{Path: fl.path, Section: name, Err: fmt.Errorf("%w: no such section of that type", ErrFormat)}
	}
	size := s.typ.size()
	err := fl.chunks(s, func(b []byte) error {
		if hostLittleEndian {
			return fn(unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size))
		}
		return fn(decode[T](b, size))
	})
	if err != nil {
		var fe *Error
		if !errors.As(err, &fe) {
			err = &Error{Path: fl.path, Section: name, Err: err}
		}
	}
	return err
}

// CheckRange checks, by Scan, that every value of a section of uint8,
// uint16, uint32 or int32 values is in [0, limit).
func CheckRange[T ~uint8 | ~uint16 | ~uint32 | ~int32](fl *File, name string, limit int) error {
	i := 0
	return Scan(fl, name, func(c []T) error {
		for _, v := range c {
			if int64(v) < 0 || int64(v) >= int64(limit) {
				return &Error{Path: fl.path, Section: name, Err: fmt.Errorf("%w: value %d (%d) out of range [0, %d)", ErrFormat, i, v, limit)}
			}
			i++
		}
		return nil
	})
}

// CheckOffsets checks, by Scan, an offset section over n values: it
// starts at 0, never decreases and ends at n.
func CheckOffsets(fl *File, name string, n int) error {
	var prev uint32
	first, count := true, 0
	err := Scan(fl, name, func(c []uint32) error {
		for _, v := range c {
			if first && v != 0 || v < prev {
				return &Error{Path: fl.path, Section: name, Err: fmt.Errorf("%w: offset %d (%d) does not follow %d", ErrFormat, count, v, prev)}
			}
			first, prev = false, v
			count++
		}
		return nil
	})
	if err == nil && (count == 0 || int(prev) != n) {
		err = &Error{Path: fl.path, Section: name, Err: fmt.Errorf("%w: offsets do not span the %d values", ErrFormat, n)}
	}
	return err
}

// Verify checks every section (tools and tests; readers verify what they
// take).
func (fl *File) Verify() error {
	for _, n := range fl.order {
		if err := fl.verify(fl.secs[n]); err != nil {
			return err
		}
	}
	return nil
}

// Take returns section name as a slice of T, pointing into the mapping
// (a converted copy on big-endian hosts), after checking its CRC32C the
// first time.
func Take[T Elem](fl *File, name string) ([]T, error) {
	s := fl.secs[name]
	if s == nil {
		return nil, &Error{Path: fl.path, Section: name, Err: fmt.Errorf("%w: no such section", ErrFormat)}
	}
	if want := typeOf[T](); s.typ != want {
		return nil, &Error{Path: fl.path, Section: name, Err: fmt.Errorf("%w: element type %d, want %d", ErrFormat, s.typ, want)}
	}
	if err := fl.verify(s); err != nil {
		return nil, err
	}
	b := fl.data[s.off : s.off+s.n]
	size := s.typ.size()
	if len(b) == 0 {
		return []T{}, nil
	}
	if hostLittleEndian {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size), nil
	}
	return decode[T](b, size), nil
}

// decode converts little-endian bytes on a big-endian host.
func decode[T Elem](b []byte, size int) []T {
	out := make([]T, len(b)/size)
	for i := range out {
		var v any
		switch any(out[i]).(type) {
		case uint8:
			v = b[i]
		case uint16:
			v = binary.LittleEndian.Uint16(b[2*i:])
		case uint32:
			v = binary.LittleEndian.Uint32(b[4*i:])
		case int32:
			v = int32(binary.LittleEndian.Uint32(b[4*i:]))
		case uint64:
			v = binary.LittleEndian.Uint64(b[8*i:])
		case float32:
			v = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		out[i] = v.(T)
	}
	return out
}

// Strings takes name.off and name.data and checks the offsets.
func (fl *File) Strings(name string) (Strings, error) {
	off, err := Take[uint32](fl, name+".off")
	if err != nil {
		return Strings{}, err
	}
	data, err := Take[byte](fl, name+".data")
	if err != nil {
		return Strings{}, err
	}
	if err := CheckOffsets(fl, name+".off", len(data)); err != nil {
		return Strings{}, err
	}
	return Strings{Off: off, Data: data}, nil
}

// Keys takes a Strings column and its hash slots, and checks the slots.
func (fl *File) Keys(name string) (Keys, error) {
	s, err := fl.Strings(name)
	if err != nil {
		return Keys{}, err
	}
	slots, err := Take[uint32](fl, name+".slots")
	if err != nil {
		return Keys{}, err
	}
	if len(slots)&(len(slots)-1) != 0 || len(slots) <= s.Len() {
		return Keys{}, &Error{Path: fl.path, Section: name + ".slots", Err: fmt.Errorf("%w: %d slots for %d keys", ErrFormat, len(slots), s.Len())}
	}
	if err := CheckRange[uint32](fl, name+".slots", s.Len()+1); err != nil {
		return Keys{}, err
	}
	return Keys{Strings: s, Slots: slots}, nil
}

// Lists takes name.off and name.vals, checks the offsets and, when
// limit ≥ 0, that every value is in [0, limit).
func (fl *File) Lists(name string, limit int) (Lists, error) {
	off, err := Take[uint32](fl, name+".off")
	if err != nil {
		return Lists{}, err
	}
	vals, err := Take[int32](fl, name+".vals")
	if err != nil {
		return Lists{}, err
	}
	if err := CheckOffsets(fl, name+".off", len(vals)); err != nil {
		return Lists{}, err
	}
	if limit >= 0 {
		if err := CheckRange[int32](fl, name+".vals", limit); err != nil {
			return Lists{}, err
		}
	}
	return Lists{Off: off, Vals: vals}, nil
}
