package docker

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ptInterp is the program header type naming a dynamic loader
// (elf.PT_INTERP).
const ptInterp = 3

// dynamicELF reports whether b, an ELF executable, names a program
// interpreter (a dynamic loader), which an image FROM scratch lacks. It
// reads the file header and the program headers, and nothing else: debug/elf, which this replaced, brought DWARF,
// zlib and zstd readers whose package inits ran in every acbox process,
// for a check that needs none of them. An error means b is not an ELF file
// whose program headers can be read.
func dynamicELF(b []byte) (bool, error) {
	if len(b) < 16 || string(b[:4]) != "\x7fELF" {
		return false, errors.New("bad magic number")
	}
	var bo binary.ByteOrder
	switch b[5] {
	case 1:
		bo = binary.LittleEndian
	case 2:
		bo = binary.BigEndian
	default:
		return false, fmt.Errorf("unknown ELF data encoding %d", b[5])
	}
	if b[6] != 1 {
		return false, fmt.Errorf("unknown ELF version %d", b[6])
	}
	off, size, n, err := progHeaders(b, bo)
	if err != nil {
		return false, err
	}
	if n > 0 && (off > uint64(len(b)) || n*size > uint64(len(b))-off) {
		return false, errors.New("the program headers lie past the end of the file")
	}
	for i := range n {
		if bo.Uint32(b[off+i*size:]) == ptInterp {
			return true, nil
		}
	}
	return false, nil
}

// progHeaders reads where the program header table lies (its offset, the
// size of one entry and their number) from a 32- or 64-bit file header.
func progHeaders(b []byte, bo binary.ByteOrder) (off, size, n uint64, err error) {
	var minSize uint64
	switch b[4] {
	case 1: // ELFCLASS32: e_phoff at 28, e_phentsize at 42, e_phnum at 44
		if len(b) < 52 {
			return 0, 0, 0, errors.New("truncated ELF header")
		}
		off, size, n, minSize = uint64(bo.Uint32(b[28:])), uint64(bo.Uint16(b[42:])), uint64(bo.Uint16(b[44:])), 32
	case 2: // ELFCLASS64: e_phoff at 32, e_phentsize at 54, e_phnum at 56
		if len(b) < 64 {
			return 0, 0, 0, errors.New("truncated ELF header")
		}
		off, size, n, minSize = bo.Uint64(b[32:]), uint64(bo.Uint16(b[54:])), uint64(bo.Uint16(b[56:])), 56
	default:
		return 0, 0, 0, fmt.Errorf("unknown ELF class %d", b[4])
	}
	if n > 0 && size < minSize {
		return 0, 0, 0, fmt.Errorf("invalid ELF phentsize %d", size)
	}
	return off, size, n, nil
}
