package egress

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"example.com", "*.a.test:443", "[::1]:80", "[2001:db8::1]", "0x7f.1", "a_b.c.", "*.*", "1.2.3.4.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again != r {
			t.Fatalf("ParseRule(%q) = %+v, but its String %q reparses as %+v, %v", s, r, r.String(), again, err)
		}
		if r.Host != strings.ToLower(r.Host) || strings.HasSuffix(r.Host, ".") || r.Port < 0 || r.Port > 65535 {
			t.Fatalf("ParseRule(%q) = %+v: not canonical", s, r)
		}
	})
}

func FuzzParseMode(f *testing.F) {
	f.Add("proxy")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMode(s)
		if err == nil && m != ModeNone && m != ModeProxy && m != ModeHost {
			t.Fatalf("ParseMode(%q) = %q", s, m)
		}
	})
}

// FuzzPolicyJSON: whatever decodes as a policy encodes to JSON that decodes
// to the same policy and encodes the same again; each rule is canonical.
func FuzzPolicyJSON(f *testing.F) {
	f.Add(`{"mode":"proxy","allow":["a.test","*.B.test:443","[::1]"],"allow_any":false}`)
	f.Add(`{"mode":"host","allow":[],"allow_any":false,"connect_ports":[443],"bind_ports":[]}`)
	f.Add(`{"mode":"proxy","allow_any":true}`)
	f.Fuzz(func(t *testing.T, s string) {
		var p Policy
		if json.Unmarshal([]byte(s), &p) != nil {
			return
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var q Policy
		if err := json.Unmarshal(out, &q); err != nil || q.Mode != p.Mode || q.AllowAny != p.AllowAny || !slices.Equal(q.Allow, p.Allow) ||
			!slices.Equal(q.ConnectPorts, p.ConnectPorts) || !slices.Equal(q.BindPorts, p.BindPorts) {
			t.Fatalf("%s -> %+v -> %s -> %+v, %v", s, p, out, q, err)
		}
		if again, _ := json.Marshal(q); !bytes.Equal(again, out) {
			t.Fatalf("%s encodes as %s, then as %s", s, out, again)
		}
	})
}

func FuzzParseIPLiteral(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "0x7f.1", "0177.0.0.1", "2130706433", "::ffff:1.2.3.4", "1.2.3.4.5", "0x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := ParseIPLiteral(s)
		if !ok {
			return
		}
		if !a.IsValid() || a.Zone() != "" {
			t.Fatalf("ParseIPLiteral(%q) = %v", s, a)
		}
		if b, ok := ParseIPLiteral(a.String()); !ok || b != a {
			t.Fatalf("ParseIPLiteral(%q) = %v, which reparses as %v, %v", s, a, b, ok)
		}
		// Four plain decimal parts must agree with the standard parser.
		if std, err := netip.ParseAddr(s); err == nil && std.Is4() && std != a {
			t.Fatalf("ParseIPLiteral(%q) = %v; netip says %v", s, a, std)
		}
	})
}

func FuzzParseAuthority(f *testing.F) {
	for _, s := range []string{"example.com:443", "[::1]:80", "0x7f.1:22", "a@b:1", "h:", "[::1", "x:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		host, port, err := parseAuthority(s, 0)
		if err != nil {
			return
		}
		if port < 1 || port > 65535 || host == "" || strings.ContainsAny(host, "@[]% /") {
			t.Fatalf("parseAuthority(%q) = %q, %d", s, host, port)
		}
		tt := target{host: host, port: port}
		h2, p2, err := parseAuthority(tt.hostPort(), 0)
		if err != nil || h2 != host || p2 != port {
			t.Fatalf("parseAuthority(%q) = %q, %d; reparse of %q = %q, %d, %v", s, host, port, tt.hostPort(), h2, p2, err)
		}
		if a, ok := ParseIPLiteral(host); ok && a.String() != host {
			t.Fatalf("literal %q not canonical", host)
		}
	})
}

func FuzzReadRequest(f *testing.F) {
	for _, s := range []string{
		"GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		"CONNECT a.test:443 HTTP/1.1\r\n\r\n",
		"POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
		"POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
		"GET / HTTP/1.1\nHost: x\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := readRequest(bufio.NewReader(bytes.NewReader(data)), 1024)
		if err != nil {
			return
		}
		if req.chunked && req.contentLength >= 0 {
			t.Fatal("both chunked and a Content-Length")
		}
		if len(req.header["Content-Length"]) > 1 || len(req.header["Transfer-Encoding"]) > 1 {
			t.Fatal("repeated framing header accepted")
		}
		if !isToken(req.method) || req.target == "" {
			t.Fatalf("bad request line accepted: %q %q", req.method, req.target)
		}
		for k, vs := range req.header {
			for _, v := range vs {
				if strings.ContainsAny(k+v, "\r\n\x00") {
					t.Fatalf("header %q: %q", k, v)
				}
			}
		}
		if tg, err := parseTarget(req); err == nil && (tg.port < 1 || tg.host == "") {
			t.Fatalf("target %+v", tg)
		}
	})
}
