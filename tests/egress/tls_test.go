//go:build integration

package egress

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTLSClientsThroughProxy: git (a dumb-HTTP clone over https), a Go
// net/http client and curl reach an https origin through the bridge and
// the proxy's CONNECT tunnel, trusting a CA made by the test; the same
// clients are refused for a name that is not allowed.
func TestTLSClientsThroughProxy(t *testing.T) {
	w := newWorld(t)
	tools := toolsDir(t)
	ca := w.serveTLS(t, tools)
	script := `git -c http.sslCAInfo=` + ca + ` clone -q https://origin.test/repo.git /tmp/c 2>&1 && test -f /tmp/c/README && echo git=ok
echo go=$(SSL_CERT_FILE=` + ca + ` ` + tools + `/goget https://origin.test/)
echo curl=$(curl -s -o /dev/null -w '%{http_code}' --cacert ` + ca + ` https://origin.test/)
echo other=$(curl -s -o /dev/null -w '%{http_code}' --cacert ` + ca + ` https://other.test/ 2>&1)`
	modes := map[string]string{"root": ""}
	if u, err := user.Lookup(testUser()); err == nil {
		modes["user"] = u.Username
	}
	for name, u := range modes {
		t.Run(name, func(t *testing.T) {
			out, events, code := w.run(t, u, "--allow", "origin.test", "--read", tools, "--", "sh", "-c", script)
			for _, want := range []string{"git=ok", "go=200", "curl=200", "other=000"} {
				if !strings.Contains(out, want) {
					t.Errorf("want %s; exit %d:\n%s\nevents:\n%s", want, code, out, events)
				}
			}
			if !strings.Contains(events, `"host":"other.test"`) || !strings.Contains(events, `"allowed":false`) {
				t.Errorf("no refusal event for other.test:\n%s", events)
			}
		})
	}
}

// serveTLS runs an https server on originIP:443 in the origin namespace
// with a certificate for origin.test and other.test signed by a CA made
// here, and returns the CA file's path (in dir, which the sandbox reads).
func (w *world) serveTLS(t *testing.T, dir string) string {
	site := t.TempDir()
	os.WriteFile(filepath.Join(site, "index.html"), []byte("hello over tls\n"), 0o644)
	serveRepo(t, site)
	ca, cert, key := makeCerts(t, dir)
	script := `import functools, http.server, ssl, sys
site, ip, cert, key = sys.argv[1:5]
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=site)
s = http.server.ThreadingHTTPServer((ip, 443), h)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
s.socket = ctx.wrap_socket(s.socket, server_side=True)
s.serve_forever()
`
	cmd := exec.Command("ip", "netns", "exec", w.origin, "python3", "-c", script, site, originIP, cert, key)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 100; i++ {
		out, _ := exec.Command("ip", "netns", "exec", w.client, "curl", "-s", "-m", "1", "--cacert", ca,
			"--resolve", "origin.test:443:"+originIP, "https://origin.test/").Output()
		if strings.Contains(string(out), "hello over tls") {
			return ca
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the https origin did not come up")
	return ""
}

// makeCerts writes ca.pem (readable by the sandbox) to dir and the
// server's certificate and key to a private directory.
func makeCerts(t *testing.T, dir string) (ca, cert, key string) {
	priv := t.TempDir()
	caKey := newKey(t)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "acbox test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvKey := newKey(t)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "origin.test"},
		DNSNames: []string{"origin.test", "other.test"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, cert, key = filepath.Join(dir, "ca.pem"), filepath.Join(priv, "cert.pem"), filepath.Join(priv, "key.pem")
	writePEM(t, ca, "CERTIFICATE", caDER, 0o644)
	writePEM(t, cert, "CERTIFICATE", srvDER, 0o644)
	writePEM(t, key, "EC PRIVATE KEY", keyDER, 0o600)
	return ca, cert, key
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writePEM(t *testing.T, path, typ string, der []byte, mode os.FileMode) {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode); err != nil {
		t.Fatal(err)
	}
}
