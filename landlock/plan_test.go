package landlock

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

var (
	allFS16 = []string{"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
		"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block", "make_sym",
		"refer", "truncate", "ioctl_dev"}
	tcp        = []string{"bind_tcp", "connect_tcp"}
	bothScopes = []string{"abstract_unix_socket", "signal"}
)

func cat(lists ...[]string) []string {
	out := []string{}
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func TestPlan(t *testing.T) {
	host := Rules{ReadOnly: []string{"/usr"}, ReadWrite: []string{"/tmp"}, Devices: []string{"/dev/null"},
		RestrictTCP: true, ConnectTCP: []uint16{443, 80}, BindTCP: []uint16{8080, 443}}
	nsnet := host
	nsnet.RestrictTCP = false

	for _, tt := range []struct {
		name       string
		r          Rules
		abi        int
		enforced   bool
		handledFS  []string
		handledNet []string
		scoped     []string
		missing    []string
		rules      int
	}{
		{"no landlock", host, 0, false, nil, nil, nil, cat(allFS16, tcp, bothScopes), 0},
		{"abi1", host, 1, true, allFS16[:13], nil, nil, cat(allFS16[13:], tcp, bothScopes), 3},
		{"abi2", host, 2, true, allFS16[:14], nil, nil, cat(allFS16[14:], tcp, bothScopes), 3},
		{"abi3", host, 3, true, allFS16[:15], nil, nil, cat(allFS16[15:], tcp, bothScopes), 3},
		{"abi4", host, 4, true, allFS16[:15], tcp, nil, cat(allFS16[15:], bothScopes), 6},
		{"abi5", host, 5, true, allFS16, tcp, nil, bothScopes, 6},
		{"abi6", host, 6, true, allFS16, tcp, bothScopes, nil, 6},
		{"abi7", host, 7, true, allFS16, tcp, bothScopes, nil, 6},
		{"abi9 adds resolve_unix", host, 9, true, cat(allFS16, []string{"resolve_unix"}), tcp, bothScopes, nil, 6},
		{"abi10 leaves udp unhandled", host, 10, true, cat(allFS16, []string{"resolve_unix"}), tcp, bothScopes, nil, 6},
		{"future abi as newest known", host, 12, true, cat(allFS16, []string{"resolve_unix"}), tcp, bothScopes, nil, 6},
		{"ns net abi3", nsnet, 3, true, allFS16[:15], nil, nil, cat(allFS16[15:], bothScopes), 3},
		{"ns net abi4 handles no net", nsnet, 4, true, allFS16[:15], nil, nil, cat(allFS16[15:], bothScopes), 3},
		{"ns net abi7", nsnet, 7, true, allFS16, nil, bothScopes, nil, 3},
		{"empty rules abi7", Rules{}, 7, true, allFS16, nil, bothScopes, nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Plan(tt.r, tt.abi)
			want := Report{ABI: tt.abi, Enforced: tt.enforced, HandledFS: cat(tt.handledFS),
				HandledNet: cat(tt.handledNet), Scoped: cat(tt.scoped), Missing: cat(tt.missing), Rules: tt.rules}
			if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
				t.Errorf("Plan(abi %d)\n got %s\nwant %s", tt.abi, g, w)
			}
		})
	}
}

// TestPlanGrants pins down what each list grants (the package doc's table).
func TestPlanGrants(t *testing.T) {
	rs := compile(Rules{ReadOnly: []string{"/ro"}, ReadWrite: []string{"/rw"}, Devices: []string{"/dev/pts"}}, 9)
	got := map[string][]string{}
	for _, p := range rs.paths {
		got[p.path] = names(p.access, fsNames)
	}
	want := map[string][]string{
		"/ro": {"execute", "read_file", "read_dir"},
		"/rw": {"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file", "make_dir",
			"make_reg", "make_sock", "make_fifo", "make_sym", "refer", "truncate", "resolve_unix"},
		"/dev/pts": {"write_file", "read_file", "read_dir", "ioctl_dev"},
	}
	for p, w := range want {
		if !slices.Equal(got[p], w) {
			t.Errorf("%s grants %v, want %v", p, got[p], w)
		}
	}
}

func TestPlanMergesPorts(t *testing.T) {
	rs := compile(Rules{RestrictTCP: true, ConnectTCP: []uint16{443, 80, 443}, BindTCP: []uint16{8080, 443}}, 7)
	want := []portRule{
		{80, ll.AccessNetConnectTCP},
		{443, ll.AccessNetConnectTCP | ll.AccessNetBindTCP},
		{8080, ll.AccessNetBindTCP},
	}
	if !slices.Equal(rs.ports, want) {
		t.Errorf("ports = %v, want %v", rs.ports, want)
	}
}

func TestReportJSON(t *testing.T) {
	b, err := json.Marshal(Plan(Rules{}, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"abi":0,"enforced":false,"handled_fs":[],"handled_net":[],"scoped":[],"missing":[`
	if !strings.HasPrefix(string(b), want) {
		t.Errorf("JSON = %s, want prefix %s", b, want)
	}
}

func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{"/usr", true},
		{"/", true},
		{"usr", false},
		{"", false},
		{"/usr/", false},
		{"/usr/../etc", false},
		{"/usr//lib", false},
	} {
		err := validate(Rules{Devices: []string{tt.path}})
		if (err == nil) != tt.ok {
			t.Errorf("validate(%q) = %v, want ok=%v", tt.path, err, tt.ok)
		}
	}
}

func TestRefusalNamesEachRight(t *testing.T) {
	err := refusal(Plan(Rules{RestrictTCP: true}, 3))
	if !errors.Is(err, ErrMissing) {
		t.Errorf("refusal does not wrap ErrMissing: %v", err)
	}
	for _, n := range []string{"ABI 3", "ioctl_dev", "bind_tcp", "connect_tcp", "abstract_unix_socket", "signal", "best effort"} {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("refusal %q does not mention %q", err, n)
		}
	}
}

func TestABIError(t *testing.T) {
	for _, tt := range []struct {
		errno syscall.Errno
		says  string
	}{
		{syscall.ENOSYS, "not built into this kernel"},
		{syscall.EOPNOTSUPP, "disabled at boot (add landlock to the kernel command line, e.g. lsm=landlock"},
		{syscall.EPERM, "querying the ABI version"},
	} {
		err := abiError(tt.errno)
		if !errors.Is(err, tt.errno) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("abiError(%v) = %q, want it to wrap the errno and say %q", tt.errno, err, tt.says)
		}
	}
}
