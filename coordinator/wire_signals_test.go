package coordinator

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestParseSignalLine: a signal line names one signal acbox passes on,
// and nothing else, or it is refused as invalid input.
func TestParseSignalLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want syscall.Signal // 0: refused
	}{
		{`{"signal":2}` + "\n", syscall.SIGINT},
		{`{"signal":28}`, syscall.SIGWINCH},
		{`{"signal":13}`, 0}, // SIGPIPE
		{`{"signal":9}`, 0},  // SIGKILL: acbox never passes it on
		{`{"signal":0}`, 0},
		{`{"signal":-2}`, 0},
		{`{"signal":2.5}`, 0},
		{`{"signal":"2"}`, 0},
		{`{}`, 0},
		{`{"signal":2,"signal":15}`, 0},
		{`{"signal":2,"pid":1}`, 0},
		{`{"signal":2}{}`, 0},
		{`[2]`, 0},
	} {
		s, err := parseSignalLine([]byte(c.line))
		switch {
		case c.want == 0 && (err == nil || policy.ExitCode(err) != policy.ExitUsage):
			t.Errorf("%q: %v, %v; want it refused as invalid", c.line, s, err)
		case c.want != 0 && s != c.want:
			t.Errorf("%q: %v, %v; want %v", c.line, s, err, c.want)
		}
	}
}

// FuzzParseSignalLine: whatever a member writes, a line is refused or
// names one of nestedSignals.
func FuzzParseSignalLine(f *testing.F) {
	for _, s := range []string{`{"signal":15}`, `{"signal":9}`, `{"signal":1e3}`, `{"signal":2}` + "\n", `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		s, err := parseSignalLine(line)
		if err == nil && !isNested(s) {
			t.Fatalf("%q gave %v", line, s)
		}
	})
}

func isNested(s os.Signal) bool {
	for _, n := range nestedSignals {
		if s == n {
			return true
		}
	}
	return false
}

// TestRecvSignals: the broker reads the signal lines that came with the
// request and those after, in order; a line it refuses, or one too long,
// ends the reading.
func TestRecvSignals(t *testing.T) {
	for _, c := range []struct {
		name, after, rest string
		want              []os.Signal
	}{
		{"with and after the request", `{"signal":2}` + "\n" + `{"sig`, `nal":15}` + "\n" + `{"signal":10}` + "\n", []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGUSR1}},
		{"refused ends it", "", `{"signal":9}` + "\n" + `{"signal":2}` + "\n", nil},
		{"too long ends it", "", `{"signal":2` + strings.Repeat(" ", maxSignalLine) + "}\n" + `{"signal":2}` + "\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sigs := make(chan os.Signal, 16)
			recvSignals(io.MultiReader(bytes.NewReader([]byte(c.after)), strings.NewReader(c.rest)), sigs)
			close(sigs)
			var got []os.Signal
			for s := range sigs {
				got = append(got, s)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

// TestSendSignals: the client writes one line per signal, and stops when
// done is closed.
func TestSendSignals(t *testing.T) {
	var b syncBuffer
	sigs := make(chan os.Signal, 2)
	sigs <- syscall.SIGHUP
	sigs <- syscall.SIGWINCH
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() { sendSignals(&b, sigs, done); close(ended) }()
	for deadline := time.Now().Add(5 * time.Second); b.String() != `{"signal":1}`+"\n"+`{"signal":28}`+"\n"; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("wrote %q", b.String())
		}
	}
	close(done)
	<-ended
}

// syncBuffer is a bytes.Buffer for one writer and one reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
