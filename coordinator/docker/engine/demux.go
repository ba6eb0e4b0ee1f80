package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Stream kinds in a frame header.
const (
	frameStdin  = 0
	frameStdout = 1
	frameStderr = 2
	frameSystem = 3 // the daemon's own error, ending the stream
)

// maxSystemMessage bounds a daemon error frame read into memory.
const maxSystemMessage = 64 << 10

// Demux copies a container's framed output (attach without a terminal)
// to stdout and stderr until the stream ends. Each frame is an 8-byte
// header (kind, three zero bytes, big-endian length) and that many bytes.
// A stream that ends inside a frame ends the copy without error, as the
// docker CLI's stdcopy does; a daemon error frame, an unknown kind and a
// failed write are errors.
func Demux(stdout, stderr io.Writer, r io.Reader) (int64, error) {
	var hdr [8]byte
	var written int64
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return written, eofOK(err)
		}
		n := int64(binary.BigEndian.Uint32(hdr[4:]))
		var dst io.Writer
		switch hdr[0] {
		case frameStdin, frameStdout:
			dst = stdout
		case frameStderr:
			dst = stderr
		case frameSystem:
			msg, _ := io.ReadAll(io.LimitReader(r, min(n, maxSystemMessage)))
			return written, fmt.Errorf("error from daemon in stream: %s", msg)
		default:
			return written, fmt.Errorf("unknown stream kind %d in the container's output", hdr[0])
		}
		c, err := io.CopyN(dst, r, n)
		written += c
		if err != nil {
			return written, eofOK(err)
		}
	}
}

// eofOK: the end of the input, even inside a frame, is the end of output.
func eofOK(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}
