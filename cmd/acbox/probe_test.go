package main

import (
	"reflect"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/acbox/acbox/coordinator/probe"
)

// TestProbeFlagsRoundTrip: what the runner renders with Env.Args is what
// the hidden probe command parses back.
func TestProbeFlagsRoundTrip(t *testing.T) {
	want := probe.Env{
		Fixture: "/x/w", ReadGrant: "/x/r", HostCanary: "/x/o/s", TmpCanary: "/tmp/c", ShmCanary: "/dev/shm/c",
		HomeCanary: "/h/.ssh/c", Canary: "acbox-canary-1", EnvName: "V", TCPPort: 1, UDPPort: 2, UnixSocket: "/x/o/sock",
		Abstract: "a", ShmKey: 3, MsgKey: 4, SemKey: 5, MqName: "q", Mounts: []string{"/usr", "/a,b"}, RunnerPid: 6, UID: 0,
	}
	var cli CLI
	parser, err := kong.New(&cli, kong.Exit(func(int) { t.Fatal("exit") }))
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"probe", "--only=fs.write-usr"}, want.Args()...)
	if _, err := parser.Parse(args); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cli.Probe.Env, want) {
		t.Errorf("parsed %+v\nwant   %+v", cli.Probe.Env, want)
	}
	if len(cli.Probe.Only) != 1 || cli.Probe.Modes.Exit != -1 {
		t.Errorf("only %v, exit %d", cli.Probe.Only, cli.Probe.Modes.Exit)
	}
}

func TestSelftestRefusesUnknownBackend(t *testing.T) {
	var cli CLI
	parser, _ := kong.New(&cli, kong.Exit(func(int) {}))
	if _, err := parser.Parse([]string{"selftest", "--backend", "podman"}); err == nil {
		t.Error("--backend podman was accepted")
	}
}
