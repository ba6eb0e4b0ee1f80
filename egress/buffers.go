package egress

import "sync"

// The copy buffers. A large buffer makes a bulk transfer a few large reads
// and writes (fewer calls and wake-ups each way); at most maxLarge are out
// at once, so many busy tunnels together hold at most maxLarge MiB, and
// past that a copy takes a small one. A buffer is held only for one read
// and its write, so an idle tunnel holds none, and the pools let the
// collector free what is no longer used.
const (
	largeBuf = 1 << 20
	smallBuf = 32 << 10
	maxLarge = 16
)

var (
	largeSlots = make(chan struct{}, maxLarge)
	largePool  = sync.Pool{New: func() any { b := make([]byte, largeBuf); return &b }}
	bufPool    = sync.Pool{New: func() any { b := make([]byte, smallBuf); return &b }}
)

// takeBuf returns a copy buffer and the function that gives it back.
func takeBuf() (*[]byte, func()) {
	select {
	case largeSlots <- struct{}{}:
		b := largePool.Get().(*[]byte)
		return b, func() { largePool.Put(b); <-largeSlots }
	default:
		b := bufPool.Get().(*[]byte)
		return b, func() { bufPool.Put(b) }
	}
}
