package egress

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// serveConn handles one client connection: one request, one Decision.
func (p *Proxy) serveConn(c net.Conn) {
	// One deadline for the whole head, the handoff message included: a
	// client of the Unix socket that sends a descriptor late must not win a
	// second HeaderTimeout for the head on it.
	headBy := time.Now().Add(p.cfg.HeaderTimeout)
	c.SetReadDeadline(headBy)
	client, prefix, err := takeClient(c)
	if err != nil && len(prefix) == 0 {
		if err != io.EOF {
			p.refuse(c, Decision{}, err)
		}
		return
	}
	if client != c {
		// The bridge handed the member's socket over; c stays open, and
		// the bridge's relay slot held, until this exchange ends.
		if !p.addConn(client) {
			client.Close()
			return
		}
		defer p.dropConn(client)
		defer client.Close()
		c = client
		c.SetReadDeadline(headBy)
	}
	br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(prefix), c), 4096)
	req, err := readRequest(br, p.cfg.MaxHeaderBytes)
	if err == io.EOF {
		return // closed before sending anything: no request, no decision
	}
	if err != nil {
		p.refuse(c, Decision{}, err)
		return
	}
	c.SetReadDeadline(time.Time{})
	d := Decision{Method: req.method}
	t, err := parseTarget(req)
	if err != nil {
		p.refuse(c, d, err)
		return
	}
	d.Host, d.Port = t.host, t.port
	up, addr, err := p.connect(t)
	if err != nil {
		p.refuse(c, d, err)
		return
	}
	defer p.dropConn(up)
	defer up.Close()
	d.Allowed, d.Addr = true, addr
	p.cfg.OnDecision(d)
	if req.method == http.MethodConnect {
		p.serveConnect(c, br, up)
	} else {
		p.forward(c, br, req, t, up)
	}
}

// refuse emits the refusal and replies with a terse status; the detail goes
// only into the Decision.
func (p *Proxy) refuse(c net.Conn, d Decision, err error) {
	status := statusOf(err)
	d.Allowed, d.Reason = false, err.Error()
	if status == http.StatusRequestTimeout {
		// Only a deadline that is not a refusal of its own: a refusal
		// keeps its detail even when its cause was a timeout.
		d.Reason = "request head not received in time"
	}
	p.cfg.OnDecision(d)
	reply(c, status)
	lingerClose(c)
}

func statusOf(err error) int {
	var se *statusError
	switch {
	case errors.As(err, &se):
		return se.status
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout
	}
	return http.StatusBadRequest
}

// reply writes a terse, complete response.
func reply(c net.Conn, status int) { replyText(c, status, http.StatusText(status)) }

// replyText writes a complete response with a one-line body.
func replyText(c net.Conn, status int, text string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n%s\n", status, http.StatusText(status), len(text)+1, text)
}

// lingerClose half-closes and drains briefly before closing, so a client
// still sending its body reads the reply instead of a reset.
func lingerClose(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(250 * time.Millisecond))
	io.CopyN(io.Discard, c, 256<<10)
	c.Close()
}
