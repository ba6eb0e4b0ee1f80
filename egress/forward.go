package egress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"time"
)

// maxResponseHead caps the response head read from an origin.
const maxResponseHead = 1 << 20

// forward sends one plain HTTP request upstream and relays the response,
// never following a redirect: a 3xx goes back to the client as it came.
// Bodies framed by Content-Length move by length (see copyBody); the
// watchdog also reads the upstream socket's counters, as for a tunnel.
func (p *Proxy) forward(c net.Conn, br *bufio.Reader, req *request, t target, up net.Conn) {
	w := newWatchdog(p.cfg.IdleTimeout, tcpActivity(up), func() { c.Close(); up.Close() })
	defer w.stop()
	if req.hasBody() && req.proto == "HTTP/1.1" && strings.EqualFold(req.header.Get("Expect"), "100-continue") {
		io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n")
	}
	sent := make(chan error, 1)
	go func() {
		err := writeRequest(up, bodySource{c, br, w}, req, t)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// The client ended inside its body: pass the end on, so the
			// origin sees a short body now, not at the idle timeout.
			closeWrite(up)
		}
		sent <- err
	}()
	defer func() {
		// Unblock the body copy, which may still wait on either side.
		up.Close()
		c.SetReadDeadline(time.Now())
		<-sent
	}()
	resp, ubr, err := readResponse(&touchReader{up, w}, req.method)
	if err != nil {
		reply(c, http.StatusBadGateway)
		return
	}
	cleanResponse(resp, req.proto)
	if n, ok := lengthFramed(resp); ok {
		// resp.Body is never read here: closing it would read on past the
		// body, waiting on an origin that keeps its connection open.
		relayLength(c, bodySource{up, ubr, w}, resp, n)
		return
	}
	defer resp.Body.Close()
	bw := bufio.NewWriter(c)
	if resp.Write(bw) == nil {
		bw.Flush()
	}
}

func (r *request) hasBody() bool { return r.chunked || r.contentLength > 0 }

// writeRequest writes the request in origin form with our own framing, and
// its body.
func writeRequest(up net.Conn, body bodySource, req *request, t target) error {
	bw := bufio.NewWriter(up)
	fmt.Fprintf(bw, "%s %s HTTP/1.1\r\nHost: %s\r\n", req.method, t.path, t.hostHeader())
	h := req.header.Clone()
	removeHopByHop(h)
	for _, k := range []string{"Host", "Content-Length", "Expect"} {
		delete(h, k)
	}
	h.Write(bw)
	switch {
	case req.chunked:
		bw.WriteString("Transfer-Encoding: chunked\r\n")
	case req.contentLength >= 0:
		fmt.Fprintf(bw, "Content-Length: %d\r\n", req.contentLength)
	}
	bw.WriteString("Connection: close\r\n\r\n")
	// The head goes out before the body arrives: the origin may answer
	// early, and a streamed body must not wait in a buffer.
	if err := bw.Flush(); err != nil {
		return err
	}
	return writeBody(up, body, req)
}

// writeBody re-frames the body: chunks are decoded and encoded again, so
// nothing in the client's framing reaches the origin as is.
func writeBody(up net.Conn, body bodySource, req *request) error {
	switch {
	case req.chunked:
		cw := httputil.NewChunkedWriter(up)
		if _, err := io.Copy(cw, httputil.NewChunkedReader(bufio.NewReader(body.reader()))); err != nil {
			return err
		}
		if err := cw.Close(); err != nil {
			return err
		}
		_, err := io.WriteString(up, "\r\n")
		return err
	case req.contentLength > 0:
		return copyBody(up, body, req.contentLength)
	}
	return nil
}

// readResponse reads the final response head, skipping interim 1xx ones.
// 101 is refused: Upgrade was stripped, so a switch is not ours to relay.
// The reader it returns holds what was read past the head: the body's
// first bytes.
func readResponse(r io.Reader, method string) (*http.Response, *bufio.Reader, error) {
	lr := &io.LimitedReader{R: r, N: maxResponseHead}
	br := bufio.NewReader(lr)
	for range 8 {
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			return nil, nil, err
		}
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			return nil, nil, errors.New("upstream switched protocols")
		case resp.StatusCode < 200:
			continue
		}
		lr.N = math.MaxInt64
		return resp, br, nil
	}
	return nil, nil, errors.New("too many interim responses")
}

// cleanResponse strips hop-by-hop and proxy headers and marks the response
// as the last on this connection. An HTTP/1.0 client gets a close-delimited
// body instead of chunks it cannot read.
func cleanResponse(resp *http.Response, clientProto string) {
	removeHopByHop(resp.Header)
	resp.Trailer = nil
	resp.Close = true
	if clientProto == "HTTP/1.0" {
		resp.Proto, resp.ProtoMajor, resp.ProtoMinor = "HTTP/1.0", 1, 0
		resp.TransferEncoding = nil
	}
}

// hopByHop are the fields meant for one connection only (RFC 9110 section
// 7.6.1); Proxy-Connection, which old clients send, goes with Proxy-*.
var hopByHop = []string{"Connection", "Keep-Alive", "Te", "Trailer", "Upgrade", "Transfer-Encoding"}

// removeHopByHop deletes hop-by-hop fields, those Connection names, and every
// Proxy-* field (Proxy-Authorization must not leak to an origin).
func removeHopByHop(h http.Header) {
	for _, v := range h["Connection"] {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				h.Del(f)
			}
		}
	}
	for _, k := range hopByHop {
		delete(h, k)
	}
	for k := range h {
		if strings.HasPrefix(k, "Proxy-") {
			delete(h, k)
		}
	}
}

// touchReader tells the watchdog about every byte read.
type touchReader struct {
	r io.Reader
	w *watchdog
}

func (t *touchReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.w.touch()
	}
	return n, err
}
