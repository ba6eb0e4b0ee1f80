package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"time"
)

const (
	// DefaultHost is the daemon's socket when DOCKER_HOST is not set.
	DefaultHost = "unix:///var/run/docker.sock"
	// MaxVersion is the newest API version the client asks for; Ping
	// lowers it to the daemon's. It is what the official Go client v28.5
	// asks for, so that acbox speaks to a daemon as it did with that client.
	MaxVersion = "1.51"
	// fallbackVersion is assumed for a daemon whose ping names no version
	// (as the official client does).
	fallbackVersion = "1.24"
	// dummyHost is the Host header on the socket: the daemon ignores it,
	// and HTTP/1.1 needs one.
	dummyHost = "api.moby.localhost"
	// userAgent names acbox in the daemon's log.
	userAgent = "acbox"
	// maxErrorBody bounds the error message read from a refusal.
	maxErrorBody = 1 << 20
)

// Client is one daemon's Engine API over its Unix socket. It is safe for
// concurrent use once Ping has returned.
type Client struct {
	host    string // as DOCKER_HOST names it
	socket  string
	version string
	pinned  bool // DOCKER_API_VERSION: no negotiation
	http    *http.Client
}

// FromEnv returns a client for DOCKER_HOST (default DefaultHost) and
// DOCKER_API_VERSION (default: negotiated by Ping). It does not connect.
// A DOCKER_HOST that is not unix://PATH fails with ErrNotLocal.
func FromEnv() (*Client, error) {
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		host = DefaultHost
	}
	return New(host, os.Getenv("DOCKER_API_VERSION"))
}

// New returns a client for host (unix:///path) speaking version, or, when
// version is empty, the version Ping negotiates.
func New(host, version string) (*Client, error) {
	socket, err := socketPath(host)
	if err != nil {
		return nil, err
	}
	c := &Client{host: host, socket: socket, version: MaxVersion}
	if version != "" {
		v := strings.TrimPrefix(version, "v")
		if !validVersion(v) {
			return nil, fmt.Errorf("DOCKER_API_VERSION=%q is not an API version such as 1.41; unset it to negotiate", version)
		}
		c.version, c.pinned = v, true
	}
	c.http = &http.Client{Transport: &http.Transport{
		DialContext:     func(ctx context.Context, _, _ string) (net.Conn, error) { return c.dial(ctx) },
		IdleConnTimeout: 30 * time.Second,
	}}
	return c, nil
}

func socketPath(host string) (string, error) {
	proto, addr, ok := strings.Cut(host, "://")
	if !ok || addr == "" {
		return "", fmt.Errorf("DOCKER_HOST=%q is not a daemon address such as %s", host, DefaultHost)
	}
	if proto != "unix" {
		return "", fmt.Errorf("DOCKER_HOST=%s is %w", host, ErrNotLocal)
	}
	if !path.IsAbs(addr) {
		return "", fmt.Errorf("DOCKER_HOST=%q: the socket path is not absolute", host)
	}
	return addr, nil
}

// Host is the daemon's address as DOCKER_HOST names it.
func (c *Client) Host() string { return c.host }

// Version is the API version the client speaks (after Ping, the
// negotiated one).
func (c *Client) Version() string { return c.version }

// Close drops idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", c.socket)
}

// Ping checks that the daemon answers and, unless the version is pinned,
// lowers the client's API version to the daemon's when that is older.
func (c *Client) Ping(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+dummyHost+"/_ping", nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.send(req)
	if err != nil {
		return err
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusInternalServerError {
		return responseError(resp)
	}
	if !c.pinned {
		v := resp.Header.Get("Api-Version")
		if v == "" {
			v = fallbackVersion
		}
		if Less(v, c.version) {
			c.version = v
		}
	}
	return responseError(resp)
}

// do sends one request to the versioned API and decodes a JSON answer
// into out (unless out is nil).
func (c *Client) do(ctx context.Context, method, p string, query url.Values, body, out any) error {
	resp, err := c.request(ctx, method, p, query, body, nil)
	if err != nil {
		return err
	}
	defer drain(resp)
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: the daemon's answer does not decode: %w", method, p, err)
	}
	return nil
}

// request sends one request and returns a successful response, whose
// body the caller closes.
func (c *Client) request(ctx context.Context, method, p string, query url.Values, body any, header http.Header) (*http.Response, error) {
	req, err := c.newRequest(ctx, method, p, query, body)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.send(req)
	if err != nil {
		return nil, err
	}
	if err := responseError(resp); err != nil {
		drain(resp)
		return nil, err
	}
	return resp, nil
}

func (c *Client) newRequest(ctx context.Context, method, p string, query url.Values, body any) (*http.Request, error) {
	u := url.URL{Scheme: "http", Host: dummyHost, Path: "/v" + c.version + p, RawQuery: query.Encode()}
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("bug: %s %s: request does not encode: %w", method, p, err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", userAgent)
	return req, nil
}

// send performs req; a failure to get any answer is ErrConnect.
func (c *Client) send(req *http.Request) (*http.Response, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, ctxErr
		}
		var uerr *url.Error // "Get URL: cause": the URL is ours, the cause is news
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("%w at %s: %w", ErrConnect, c.host, err)
	}
	return resp, nil
}

// responseError is the daemon's refusal in resp, or nil for a status
// below 400. The daemon's message is JSON {"message": ...} since API 1.24;
// anything else (a proxy's page) is passed on as text.
func responseError(resp *http.Response) error {
	if resp.StatusCode < http.StatusBadRequest {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := strings.TrimSpace(string(b))
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &e) == nil && e.Message != "" {
		msg = strings.TrimSpace(e.Message)
	}
	if msg == "" {
		msg = fmt.Sprintf("status %s and no message", resp.Status)
	}
	return &Error{Status: resp.StatusCode, Message: msg}
}

// drain reads what is left of a small body so the connection is reused.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// segment checks that a container or image name stays within its
// endpoint's path: image names hold slashes ("library/busybox:1"), but a
// "." or ".." element would reach another endpoint.
func segment(name string) (string, error) {
	bad := name == "" || strings.ContainsRune(name, 0)
	for _, e := range strings.Split(name, "/") {
		bad = bad || e == "." || e == ".."
	}
	if bad {
		return "", fmt.Errorf("%q is not a container or image name", name)
	}
	return name, nil
}
