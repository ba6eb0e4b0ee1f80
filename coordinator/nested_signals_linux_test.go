package coordinator

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/backend"
	"github.com/acbox/acbox/coordinator/policy"
)

// TestNestedSignalReachesChild: a signal line that comes with a nested
// request (before the child's launch holds its signals) reaches the
// child's backend on LaunchIO.Signals, as the process's own signals do.
func TestNestedSignalReachesChild(t *testing.T) {
	r := newRig(t)
	r.l.Exe = "/bin/true"
	ids := []string{"parent", "child"}
	r.l.NewID = func() string { id := ids[0]; ids = ids[1:]; return id }
	got := make(chan os.Signal, 1)
	var reply string
	r.native.during = func(p *policy.Plan, io backend.LaunchIO) {
		if p.Depth > 0 {
			select {
			case s := <-io.Signals:
				got <- s
			case <-time.After(10 * time.Second):
			}
			return
		}
		c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: brokerSocket(p), Net: "unix"})
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		sendRequest(c, nestedRequest{Spec: policy.Spec{Command: []string{"true"}}}, []*os.File{r.stdio.In, r.stdio.Out, r.stdio.Err})
		c.Write([]byte(`{"signal":15}` + "\n"))
		// Until the child's exit: the broker ends a child still running
		// once the requester's member has, through its pid 1 (here the
		// test process, as the fake backend reports it).
		code, err := readReplies(bufio.NewReader(c), nil, nil)
		reply = fmt.Sprint(code, err)
	}
	if _, err := r.run(t, policy.Spec{Delegate: true}); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != syscall.SIGTERM {
			t.Errorf("the child's backend got %v, want SIGTERM", s)
		}
	default:
		t.Errorf("the child's backend got no signal (reply: %s)", reply)
	}
}

func brokerSocket(p *policy.Plan) string {
	for _, m := range p.Mounts {
		if m.Target == policy.DelegateSocket {
			return m.Source
		}
	}
	return ""
}

// TestNestedPassesSignals: a nested `acbox run` (Nested) catches the
// signals acbox passes on and sends each to the broker, and exits with the
// child's status; killed by them, it left the child running to its end.
// In a child process, which signals itself; a fake broker answers.
func TestNestedPassesSignals(t *testing.T) {
	if os.Getenv("ACBOX_NESTED_SIGNAL_CHILD") != "" {
		nestedSignalChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNestedPassesSignals$", "-test.v")
	cmd.Env = append(os.Environ(), "ACBOX_NESTED_SIGNAL_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "child status 143") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func nestedSignalChild(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "broker.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.AcceptUnix()
		if err != nil {
			return
		}
		defer c.Close()
		req, files, err := recvRequest(c)
		for _, f := range files {
			f.Close()
		}
		if err != nil {
			t.Error(err)
			return
		}
		syscall.Kill(os.Getpid(), syscall.SIGTERM) // ends the process unless Nested caught it
		sigs := make(chan os.Signal, 1)
		go recvSignals(bufio.NewReader(strings.NewReader(string(req.after))), sigs)
		go recvSignals(c, sigs)
		select {
		case s := <-sigs:
			code := 128 + int(s.(syscall.Signal))
			reply(c, nestedReply{Exit: &code})
		case <-time.After(10 * time.Second):
			reply(c, nestedReply{Error: "no signal came", Code: 1})
		}
	}()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	code, err := Nested(sock, policy.Spec{Command: []string{"true"}}, Stdio{null, null, null}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("child status %d", code)
}
