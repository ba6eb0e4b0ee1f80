package nsjail

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The only uses of unsafe in this package: pointer arguments for raw
// syscalls run on every thread (through psx or the runtime's broadcast).

func ptr(h *unix.CapUserHeader) uintptr   { return uintptr(unsafe.Pointer(h)) }
func ptrData(d *unix.CapUserData) uintptr { return uintptr(unsafe.Pointer(d)) }
func ptrByte(b *byte) uintptr             { return uintptr(unsafe.Pointer(b)) }
