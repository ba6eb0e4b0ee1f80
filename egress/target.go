package egress

import (
	"net"
	"net/http"
	"strconv"
	"strings"
)

// target is where a request goes.
type target struct {
	host string // canonical (see canonHost)
	port int
	path string // origin-form path and query for plain HTTP; "" for CONNECT
}

// hostPort is host:port with IPv6 in brackets.
func (t target) hostPort() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// hostHeader is the Host header to send upstream: the port only when it is
// not the default.
func (t target) hostHeader() string {
	if t.port == 80 {
		if strings.IndexByte(t.host, ':') >= 0 {
			return "[" + t.host + "]"
		}
		return t.host
	}
	return t.hostPort()
}

// parseAuthority parses host:port (port required when defPort is 0) with
// IPv6 in brackets. Userinfo, percent-encoding and anything but a name or an
// IP literal are refused.
func parseAuthority(s string, defPort int) (string, int, error) {
	if strings.IndexByte(s, '@') >= 0 {
		return "", 0, fail(http.StatusBadRequest, "userinfo in the authority")
	}
	h, p, err := splitHostPort(s)
	if err != nil {
		return "", 0, fail(http.StatusBadRequest, "bad authority: %w", err)
	}
	port := defPort
	if p != "" {
		if port, err = parsePort(p); err != nil {
			return "", 0, fail(http.StatusBadRequest, "bad authority: %w", err)
		}
	} else if port == 0 {
		return "", 0, fail(http.StatusBadRequest, "authority without a port")
	}
	host, _, err := canonHost(h)
	if err != nil {
		return "", 0, fail(http.StatusBadRequest, "bad host: %w", err)
	}
	return host, port, nil
}

// parseTarget finds the destination of a request: the authority of CONNECT,
// or the absolute http:// URL of any other method. Origin-form ("/path") is
// refused: this is a proxy, not a server. A Host header must agree.
func parseTarget(r *request) (target, error) {
	var t target
	var err error
	defPort := 0
	if r.method == http.MethodConnect {
		t.host, t.port, err = parseAuthority(r.target, 0)
		defPort = t.port
	} else {
		t, err = parseAbsolute(r.target)
		defPort = 80
	}
	if err != nil {
		return t, err
	}
	return t, checkHostHeader(r.header["Host"], t, defPort)
}

func parseAbsolute(s string) (target, error) {
	const scheme = "http://"
	if strings.HasPrefix(s, "/") || s == "*" {
		return target{}, fail(http.StatusBadRequest, "origin-form request: a proxy needs an absolute URL")
	}
	if len(s) < len(scheme) || !strings.EqualFold(s[:len(scheme)], scheme) {
		return target{}, fail(http.StatusBadRequest, "only http:// URLs; use CONNECT for anything else")
	}
	rest := s[len(scheme):]
	if strings.IndexByte(rest, '#') >= 0 {
		return target{}, fail(http.StatusBadRequest, "fragment in the request target")
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	host, port, err := parseAuthority(rest[:end], 80)
	if err != nil {
		return target{}, err
	}
	path := rest[end:]
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return target{host: host, port: port, path: path}, nil
}

func checkHostHeader(values []string, t target, defPort int) error {
	switch len(values) {
	case 0:
		return nil
	case 1:
	default:
		return fail(http.StatusBadRequest, "repeated Host header")
	}
	host, port, err := parseAuthority(values[0], defPort)
	if err != nil {
		return fail(http.StatusBadRequest, "bad Host header: %w", err)
	}
	if host != t.host || port != t.port {
		return fail(http.StatusBadRequest, "Host header %q disagrees with the target %s", values[0], t.hostPort())
	}
	return nil
}
