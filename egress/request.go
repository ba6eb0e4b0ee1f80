package egress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// request is a parsed request head. Framing is decided here, once, so that
// the proxy and the origin cannot read the body differently.
type request struct {
	method string
	target string
	proto  string // "HTTP/1.1" or "HTTP/1.0"
	header http.Header
	// contentLength is the body length, or -1 when there is no
	// Content-Length (no body unless chunked).
	contentLength int64
	chunked       bool
}

// statusError is a refusal with the HTTP status to reply; its text is the
// detail for the Decision. It wraps the cause, when there is one, so
// errors.Is and errors.As see through it.
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// fail formats like fmt.Errorf: %w wraps a cause.
func fail(status int, format string, args ...any) error {
	return &statusError{status, fmt.Errorf(format, args...)}
}

// readRequest reads one request head of at most max bytes. It returns io.EOF
// only when the connection closed before sending a byte.
func readRequest(br *bufio.Reader, max int) (*request, error) {
	budget := max
	line, err := readLine(br, &budget)
	if err != nil {
		if errors.Is(err, io.EOF) && budget == max {
			return nil, io.EOF
		}
		return nil, err
	}
	req, err := parseRequestLine(line)
	if err != nil {
		return nil, err
	}
	if req.header, err = readHeader(br, &budget); err != nil {
		return nil, err
	}
	return req, req.framing()
}

// readLine reads one CRLF-terminated line, charging it to budget. A bare LF
// is refused: it is a classic way to make two parsers split a stream
// differently.
func readLine(br *bufio.Reader, budget *int) (string, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		*budget -= len(chunk)
		if *budget < 0 {
			return "", fail(http.StatusRequestHeaderFieldsTooLarge, "request head over the size limit")
		}
		line = append(line, chunk...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return "", err
		}
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return "", fail(http.StatusBadRequest, "line not terminated by CRLF")
	}
	return string(line[:len(line)-2]), nil
}

func parseRequestLine(line string) (*request, error) {
	parts := strings.Split(line, " ")
	if len(parts) != 3 {
		return nil, fail(http.StatusBadRequest, "malformed request line")
	}
	req := &request{method: parts[0], target: parts[1], proto: parts[2], contentLength: -1}
	if !isToken(req.method) {
		return nil, fail(http.StatusBadRequest, "malformed method")
	}
	if req.proto != "HTTP/1.1" && req.proto != "HTTP/1.0" {
		return nil, fail(http.StatusBadRequest, "unsupported protocol %q (HTTP/1.1 and HTTP/1.0 only)", req.proto)
	}
	for i := 0; i < len(req.target); i++ {
		if c := req.target[i]; c <= ' ' || c >= 0x7f {
			return nil, fail(http.StatusBadRequest, "bad byte in request target")
		}
	}
	if req.target == "" {
		return nil, fail(http.StatusBadRequest, "empty request target")
	}
	return req, nil
}

// readHeader reads header fields up to the empty line. Obsolete line folding
// and whitespace before the colon are refused (RFC 9112 section 5).
func readHeader(br *bufio.Reader, budget *int) (http.Header, error) {
	h := http.Header{}
	for {
		line, err := readLine(br, budget)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fail(http.StatusBadRequest, "connection closed inside the request head")
			}
			return nil, err
		}
		if line == "" {
			return h, nil
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isToken(name) {
			return nil, fail(http.StatusBadRequest, "malformed header line")
		}
		value = strings.Trim(value, " \t")
		if !validValue(value) {
			return nil, fail(http.StatusBadRequest, "control character in header %s", name)
		}
		key := textproto.CanonicalMIMEHeaderKey(name)
		h[key] = append(h[key], value)
	}
}

// framing decides the body length. Anything ambiguous is refused rather than
// guessed: Content-Length with Transfer-Encoding, repeated or listed
// Content-Length, any transfer coding but a single "chunked".
func (r *request) framing() error {
	te, cl := r.header["Transfer-Encoding"], r.header["Content-Length"]
	switch {
	case len(te) > 0 && len(cl) > 0:
		return fail(http.StatusBadRequest, "both Content-Length and Transfer-Encoding")
	case len(te) > 0:
		if r.proto == "HTTP/1.0" {
			return fail(http.StatusBadRequest, "Transfer-Encoding in HTTP/1.0")
		}
		if len(te) != 1 || !strings.EqualFold(te[0], "chunked") {
			return fail(http.StatusBadRequest, "unsupported Transfer-Encoding %q (chunked alone only)", strings.Join(te, ", "))
		}
		r.chunked = true
	case len(cl) > 1:
		return fail(http.StatusBadRequest, "repeated Content-Length")
	case len(cl) == 1:
		n, err := strconv.ParseInt(cl[0], 10, 64)
		if err != nil || n < 0 || strings.Trim(cl[0], "0123456789") != "" {
			return fail(http.StatusBadRequest, "bad Content-Length %q", cl[0])
		}
		r.contentLength = n
	}
	if r.method == http.MethodConnect && (r.chunked || r.contentLength > 0) {
		return fail(http.StatusBadRequest, "CONNECT with a body")
	}
	return nil
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
