package engine

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
)

// Stream is an attached container's standard streams: writes go to its
// stdin, reads come from its output (raw with a terminal, otherwise
// framed; see Demux).
type Stream struct {
	conn *net.UnixConn
	r    *bufio.Reader // holds output read with the response header
}

// Read reads the container's output.
func (s *Stream) Read(p []byte) (int, error) { return s.r.Read(p) }

// Write writes to the container's stdin.
func (s *Stream) Write(p []byte) (int, error) { return s.conn.Write(p) }

// CloseWrite ends the container's stdin (StdinOnce closes it inside).
func (s *Stream) CloseWrite() error { return s.conn.CloseWrite() }

// Close closes both directions.
func (s *Stream) Close() error { return s.conn.Close() }

// ContainerAttach attaches to the container's stdin, stdout and stderr
// and streams them from now on. The daemon answers by taking over the
// connection (101 Switching Protocols), so the request is written on a
// connection of its own rather than through the pooled transport, which
// could not half-close it.
func (c *Client) ContainerAttach(ctx context.Context, id string) (*Stream, error) {
	name, err := segment(id)
	if err != nil {
		return nil, err
	}
	q := url.Values{"stream": {"1"}, "stdin": {"1"}, "stdout": {"1"}, "stderr": {"1"}}
	req, err := c.newRequest(ctx, http.MethodPost, "/containers/"+name+"/attach", q, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "tcp")
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %w", ErrConnect, c.host, err)
	}
	s, err := upgrade(conn.(*net.UnixConn), req)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

func upgrade(conn *net.UnixConn, req *http.Request) (*Stream, error) {
	if err := req.Write(conn); err != nil {
		return nil, fmt.Errorf("%w: attach: %w", ErrConnect, err)
	}
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, req)
	if err != nil {
		return nil, fmt.Errorf("%w: attach: %w", ErrConnect, err)
	}
	if err := responseError(resp); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		resp.Body.Close()
		return nil, fmt.Errorf("attach: the daemon answered %s, not 101 Switching Protocols", resp.Status)
	}
	return &Stream{conn: conn, r: r}, nil
}
