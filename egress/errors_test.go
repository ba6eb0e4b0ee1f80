package egress

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"testing"
)

// TestRefusalWrapsCause: a refusal keeps its status and its text, and
// errors.Is and errors.As reach the cause through it.
func TestRefusalWrapsCause(t *testing.T) {
	cause := &net.DNSError{Err: "server misbehaving", Name: "a.test", IsTemporary: true}
	p := New(Config{Policy: Policy{Mode: ModeProxy, AllowAny: true},
		Resolve: func(context.Context, string) ([]netip.Addr, error) { return nil, cause }})
	defer p.Close()
	_, err := p.addrs(context.Background(), "a.test")
	var dns *net.DNSError
	if !errors.As(err, &dns) || dns != cause || statusOf(err) != http.StatusBadGateway ||
		err.Error() != "resolve a.test: lookup a.test: server misbehaving" {
		t.Fatalf("addrs = %v (status %d); want a 502 wrapping the resolver's error", err, statusOf(err))
	}
}

// TestRefusalTimeoutKeepsDetail: a refusal whose cause is a deadline keeps
// its own status and detail; only a bare deadline (a request head not read
// in time) is a 408.
func TestRefusalTimeoutKeepsDetail(t *testing.T) {
	err := fail(http.StatusBadGateway, "dial: %w", os.ErrDeadlineExceeded)
	if !errors.Is(err, os.ErrDeadlineExceeded) || statusOf(err) != http.StatusBadGateway {
		t.Fatalf("status %d for %v; want 502 and the deadline reachable", statusOf(err), err)
	}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{err, "dial: i/o timeout"},
		{os.ErrDeadlineExceeded, "request head not received in time"},
	} {
		var got Decision
		p := New(Config{OnDecision: func(d Decision) { got = d }})
		c, s := net.Pipe()
		go io.Copy(io.Discard, s)
		p.refuse(c, Decision{Host: "a.test"}, tt.err)
		s.Close()
		p.Close()
		if got.Allowed || got.Reason != tt.want {
			t.Errorf("refuse(%v): decision %+v; want the reason %q", tt.err, got, tt.want)
		}
	}
}
