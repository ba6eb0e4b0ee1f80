package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// bodySource is where a body comes from: the bytes a head reader already
// buffered, then the connection itself.
type bodySource struct {
	conn net.Conn
	br   *bufio.Reader // read the head; may hold the body's first bytes
	w    *watchdog
}

// reader reads the body through the head reader, touching the watchdog.
func (b bodySource) reader() io.Reader { return &touchReader{b.br, b.w} }

// copyBody moves exactly n body bytes to dst: first what the head reader
// buffered, then the rest straight from the socket (copyN). Bytes past n,
// if any, are not forwarded: the framing was decided from the head, once.
func copyBody(dst net.Conn, src bodySource, n int64) error {
	if k := min(int64(src.br.Buffered()), n); k > 0 {
		head, _ := src.br.Peek(int(k))
		if _, err := dst.Write(head); err != nil {
			return err
		}
		src.br.Discard(int(k))
		src.w.touch()
		n -= k
	}
	return copyN(dst, src.conn, n, src.w)
}

// copyN copies exactly n bytes from src to dst as copyLoop does (a buffer
// only while bytes move, up to 1 MiB per read); a src that ends early is
// io.ErrUnexpectedEOF.
func copyN(dst, src net.Conn, n int64, w *watchdog) error {
	for n > 0 {
		waitReadable(src)
		m, err := copyOnceN(dst, src, n, w)
		n -= m
		if err == io.EOF && n > 0 {
			return io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return err
		}
	}
	return nil
}

// lengthFramed reports whether resp's body is framed by Content-Length
// alone and not empty, so it can be relayed by length: n is that length.
// Chunked, close-delimited and bodiless responses (HEAD, 1xx, 204, 304,
// which http.ReadResponse gives http.NoBody) take the general path.
func lengthFramed(resp *http.Response) (int64, bool) {
	if resp.Body == http.NoBody || len(resp.TransferEncoding) > 0 || resp.ContentLength <= 0 {
		return 0, false
	}
	return resp.ContentLength, true
}

// relayLength writes resp's head as resp.Write would (cleaned, with
// Content-Length and Connection: close) and then its n body bytes.
func relayLength(c net.Conn, body bodySource, resp *http.Response, n int64) {
	bw := bufio.NewWriter(c)
	text := strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" ")
	if text == "" {
		text = http.StatusText(resp.StatusCode)
	}
	fmt.Fprintf(bw, "HTTP/%d.%d %03d %s\r\n", resp.ProtoMajor, resp.ProtoMinor, resp.StatusCode, text)
	resp.Header.WriteSubset(bw, map[string]bool{"Content-Length": true, "Transfer-Encoding": true, "Trailer": true, "Connection": true})
	fmt.Fprintf(bw, "Content-Length: %d\r\nConnection: close\r\n\r\n", n)
	if bw.Flush() != nil {
		return
	}
	copyBody(c, body, n)
}
