package engine

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAttach: the daemon takes the connection over and sends output in
// the same write as its answer; that output is kept, stdin reaches the
// daemon, and CloseWrite ends it while output still flows back.
func TestAttach(t *testing.T) {
	hdr := make(chan http.Header, 1)
	d := newDaemon(t, "1.41", func(w http.ResponseWriter, r *http.Request) {
		hdr <- r.Header
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\nearly|")
		rw.Flush()
		io.Copy(conn, rw.Reader) // echo stdin until the client's CloseWrite
		conn.Write([]byte("|eof"))
	})
	c := d.client(t, "")
	s, err := c.ContainerAttach(context.Background(), "acbox-1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := d.last(t); got != "POST /v1.51/containers/acbox-1/attach?stderr=1&stdin=1&stdout=1&stream=1" {
		t.Errorf("attach request %q", got)
	}
	if h := <-hdr; h.Get("Upgrade") != "tcp" || h.Get("Connection") != "Upgrade" {
		t.Errorf("attach headers %v", h)
	}
	io.WriteString(s, "stdin")
	if err := s.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(s)
	if err != nil || string(out) != "early|stdin|eof" {
		t.Errorf("output %q, %v; want early|stdin|eof", out, err)
	}
}

func TestAttachRefused(t *testing.T) {
	cases := []struct {
		h    http.HandlerFunc
		is   error
		text string
	}{
		{answer(404, `{"message":"No such container: acbox-1"}`), ErrNotFound, "No such container"},
		{answer(200, `{}`), nil, "not 101 Switching Protocols"},
	}
	for _, k := range cases {
		d := newDaemon(t, "1.41", k.h)
		_, err := d.client(t, "").ContainerAttach(context.Background(), "acbox-1")
		if err == nil || !strings.Contains(err.Error(), k.text) || (k.is != nil && !errors.Is(err, k.is)) {
			t.Errorf("attach: %v; want an error saying %q", err, k.text)
		}
	}
}
