//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// box is a sandbox started in the background, its stdout read line by line.
type box struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *syncBuffer
	done   chan struct{}
	code   int
}

// startBox starts acbox with args in mode m without waiting for it.
func startBox(t *testing.T, m mode, args ...string) *box {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := m.command(ctx, nil, args...)
	b := &box{cmd: cmd, lines: make(chan string, 64), stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = b.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go scanLines(out, b.lines)
	go func() {
		cmd.Wait()
		b.code = exitCode(cmd.ProcessState)
		cancel()
		close(b.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-b.done
	})
	return b
}

func scanLines(r io.Reader, out chan<- string) {
	defer close(out)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		out <- sc.Text()
	}
}

// waitLine waits for a stdout line equal to want.
func (b *box) waitLine(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case l, ok := <-b.lines:
			if !ok {
				<-b.done
				t.Fatalf("acbox ended (exit %d) before printing %q; stderr:\n%s", b.code, want, b.stderr)
			}
			if l == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %q from the member within 15s; stderr:\n%s", want, b.stderr)
		}
	}
}

// wait waits for acbox to exit and returns its status.
func (b *box) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-b.done:
		return b.code
	case <-time.After(d):
		t.Fatalf("acbox did not exit within %v; stderr:\n%s", d, b.stderr)
		return -1
	}
}

// syncBuffer is a bytes.Buffer that exec's copying goroutine and the test
// may use at once.
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
