package coordinator

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPrimeSignals: with the primer, a signal that nothing holds acts as
// it would uncaught (SIGINT and SIGTERM end the process by that signal,
// SIGQUIT with a stack dump and status 2, SIGUSR1 and SIGWINCH nothing, a
// SIGHUP ignored at the start stays ignored), before the first hold and
// after the last; a held one does not end it, nor one a wait for a slot
// takes (and then stops waiting). What a hold takes is on its channel for
// the backend until ended, and answered after. Each case runs in a child
// process, which signals itself.
func TestPrimeSignals(t *testing.T) {
	if c := os.Getenv("ACBOX_PRIME_CASE"); c != "" {
		primeChild(c)
		return
	}
	for _, c := range []struct {
		name   string
		killed syscall.Signal // 0: exits
		status int
		out    string
	}{
		{"int-unheld", syscall.SIGINT, 0, ""},
		{"term-after-release", syscall.SIGTERM, 0, ""},
		{"int-while-released", syscall.SIGINT, 0, ""},
		{"int-held", 0, 0, "survived"},
		{"int-held-handed-on", 0, 0, "the backend got interrupt\nsurvived"},
		{"term-after-ended", 0, 0, "terminated: the sandbox has ended"},
		{"int-waiting", 0, 0, "wait got interrupt\nsurvived"},
		{"quit-unheld", 0, 2, "SIGQUIT: quit"},
		{"usr1-unheld", 0, 0, "survived"},
		{"winch-unheld", 0, 0, "survived"},
		{"hup-ignored", 0, 0, "survived"},
		{"int-unheld-no-primer", syscall.SIGINT, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestPrimeSignals$")
			cmd.Env = append(os.Environ(), "ACBOX_PRIME_CASE="+c.name)
			out, err := cmd.CombinedOutput()
			if cmd.ProcessState == nil {
				t.Fatal(err)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case c.killed != 0 && (!ws.Signaled() || ws.Signal() != c.killed):
				t.Errorf("want the child killed by %v, got %v\n%s", c.killed, cmd.ProcessState, out)
			case c.killed == 0 && (ws.Signaled() || ws.ExitStatus() != c.status):
				t.Errorf("want the child to exit %d, got %v\n%s", c.status, cmd.ProcessState, out)
			case !strings.Contains(string(out), c.out):
				t.Errorf("want %q in the child's output:\n%s", c.out, out)
			}
		})
	}
}

func primeChild(name string) {
	if name == "hup-ignored" {
		signal.Ignore(syscall.SIGHUP)
	}
	if !strings.HasSuffix(name, "-no-primer") {
		caught := make(chan struct{})
		primeSignals(caught)
		<-caught
	}
	self := func(s syscall.Signal) { syscall.Kill(os.Getpid(), s) }
	switch name {
	case "int-unheld", "int-unheld-no-primer":
		self(syscall.SIGINT)
	case "term-after-release":
		h := holdSignals(io.Discard)
		self(syscall.SIGTERM)
		time.Sleep(100 * time.Millisecond)
		h.release()
		self(syscall.SIGTERM)
	case "int-while-released":
		// A signal as the hold ends, once its channel takes no more: no
		// catch takes it, so it ends the process. It was counted held
		// still, and lost.
		h := holdSignals(io.Discard)
		afterStop = func() {
			seen := make(chan os.Signal, 1)
			signal.Notify(seen, syscall.SIGINT)
			self(syscall.SIGINT)
			<-seen
			signal.Stop(seen)
			flushPrimer()
		}
		h.release()
	case "int-held":
		h := holdSignals(io.Discard)
		defer h.release()
		self(syscall.SIGINT)
	case "int-held-handed-on":
		// The hold's channel is the backend's (LaunchIO.Signals) until
		// ended: what the hold took is there, not answered or dropped.
		h := holdSignals(os.Stdout)
		defer h.release()
		self(syscall.SIGINT)
		select {
		case s := <-h.signals():
			fmt.Println("the backend got", s)
		case <-time.After(5 * time.Second):
			fmt.Println("the hold kept the signal from the backend")
		}
	case "term-after-ended":
		h := holdSignals(os.Stdout)
		defer h.release()
		h.ended()
		self(syscall.SIGTERM)
	case "int-waiting":
		// As admitWaiting: the wait takes the signal and ends; the primer
		// must not replay it as well, however late it sees it.
		for range 50 {
			ch := make(chan os.Signal, 1)
			catch(ch, waitSignals)
			self(syscall.SIGINT)
			<-ch
			uncatch(ch, waitSignals)
		}
		fmt.Println("wait got interrupt")
	case "quit-unheld":
		self(syscall.SIGQUIT)
	case "usr1-unheld":
		self(syscall.SIGUSR1)
	case "winch-unheld":
		self(syscall.SIGWINCH)
	case "hup-ignored":
		self(syscall.SIGHUP)
	}
	time.Sleep(500 * time.Millisecond) // a signal that ends it does so within microseconds
	fmt.Println("survived")
}
