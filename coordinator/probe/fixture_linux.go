package probe

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// EnvCanaryName is the variable the runner sets on itself; no member may see it.
const EnvCanaryName = "ACBOX_SELFTEST_HOST_SECRET"

// Fixture is what the runner creates on the host before a sandbox starts:
// a private base directory holding the write and read grants and a canary
// outside them, canaries in /tmp, /dev/shm and ~/.ssh, loopback and Unix
// listeners that count what reaches them, and SysV and POSIX IPC objects.
// Close removes all of it.
type Fixture struct {
	Base, Write, Read string
	env               Env
	counters          map[string]*atomic.Int64
	closers           []func()
	files             map[string]string // canary path -> content, checked by Oracles
}

// NewFixture builds the fixture. The base directory is the first that works
// of $XDG_RUNTIME_DIR, ~/.cache and /tmp (never /tmp itself).
func NewFixture() (*Fixture, error) {
	fx := &Fixture{counters: map[string]*atomic.Int64{}, files: map[string]string{}}
	fx.env = Env{Canary: "acbox-canary-" + randHex(8), RunnerPid: os.Getpid(), UID: os.Getuid(), EnvName: EnvCanaryName}
	steps := []func() error{fx.dirs, fx.canaries, fx.listeners, fx.ipc}
	for _, s := range steps {
		if err := s(); err != nil {
			fx.Close()
			return nil, err
		}
	}
	os.Setenv(EnvCanaryName, fx.env.Canary)
	return fx, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (fx *Fixture) dirs() error {
	var err error
	for _, parent := range baseCandidates() {
		if fx.Base, err = os.MkdirTemp(parent, "acbox-selftest-"); err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("creating the selftest fixture: %w", err)
	}
	if fx.Base, err = filepath.EvalSymlinks(fx.Base); err != nil {
		return err
	}
	fx.closers = append(fx.closers, func() { os.RemoveAll(fx.Base) })
	fx.Write, fx.Read = filepath.Join(fx.Base, "w"), filepath.Join(fx.Base, "r")
	for _, d := range []string{fx.Write, fx.Read, filepath.Join(fx.Base, "outside")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	fx.env.Fixture, fx.env.ReadGrant = fx.Write, fx.Read
	return fx.canary(filepath.Join(fx.Read, "file"))
}

func baseCandidates() []string {
	var out []string
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		out = append(out, d)
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		c := filepath.Join(h, ".cache")
		if os.MkdirAll(c, 0o700) == nil {
			out = append(out, c)
		}
	}
	return append(out, "/tmp")
}

// canary writes the canary content to p and remembers it.
func (fx *Fixture) canary(p string) error {
	if err := os.WriteFile(p, []byte(fx.env.Canary+"\n"), 0o600); err != nil {
		return err
	}
	fx.files[p] = fx.env.Canary + "\n"
	return nil
}

func (fx *Fixture) canaries() error {
	fx.env.HostCanary = filepath.Join(fx.Base, "outside", "secret")
	if err := fx.canary(fx.env.HostCanary); err != nil {
		return err
	}
	fx.env.TmpCanary = fx.tempCanary("/tmp")
	fx.env.ShmCanary = fx.tempCanary("/dev/shm")
	fx.env.HomeCanary = fx.homeCanary()
	return nil
}

// tempCanary creates a canary in dir, or returns "" when dir is unusable.
func (fx *Fixture) tempCanary(dir string) string {
	f, err := os.CreateTemp(dir, "acbox-canary-")
	if err != nil {
		return ""
	}
	f.Close()
	fx.closers = append(fx.closers, func() { os.Remove(f.Name()) })
	if fx.canary(f.Name()) != nil {
		return ""
	}
	return f.Name()
}

// homeCanary puts a canary in ~/.ssh, creating ~/.ssh (and removing it
// afterwards) only when it did not exist.
func (fx *Fixture) homeCanary() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	ssh := filepath.Join(h, ".ssh")
	if _, err := os.Stat(ssh); os.IsNotExist(err) && os.Mkdir(ssh, 0o700) == nil {
		fx.closers = append(fx.closers, func() { os.Remove(ssh) })
	}
	return fx.tempCanary(ssh)
}

func (fx *Fixture) count(name string) *atomic.Int64 {
	c := &atomic.Int64{}
	fx.counters[name] = c
	return c
}

func (fx *Fixture) listeners() error {
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fx.env.TCPPort = tcp.Addr().(*net.TCPAddr).Port
	fx.serve(tcp, fx.count("tcp"))
	if tcp6, err := net.Listen("tcp6", fmt.Sprintf("[::1]:%d", fx.env.TCPPort)); err == nil {
		fx.serve(tcp6, fx.counters["tcp"])
	}
	fx.env.UnixSocket = filepath.Join(fx.Base, "outside", "sock")
	ul, err := net.Listen("unix", fx.env.UnixSocket)
	if err != nil {
		return err
	}
	fx.serve(ul, fx.count("unix"))
	fx.env.Abstract = "acbox-selftest-" + randHex(6)
	al, err := net.Listen("unix", "@"+fx.env.Abstract)
	if err != nil {
		return err
	}
	fx.serve(al, fx.count("abstract"))
	if err := fx.hostModePorts(); err != nil {
		return err
	}
	fx.env.HostAddrs = ownAddrs()
	return fx.udp()
}

// hostModePorts sets up what the --net host sandbox is told: a listener
// on the one port it may connect to (counted apart from the TCP oracle's),
// and a free port it may bind.
func (fx *Fixture) hostModePorts() error {
	allowed, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fx.env.AllowedPort = allowed.Addr().(*net.TCPAddr).Port
	fx.serve(allowed, fx.count("allowed"))
	port, err := freePortBelowEphemeral()
	fx.env.BindPort = port
	return err
}

// freePortBelowEphemeral picks a free port (and its successor, which the
// probe binds as the unlisted one) below the ephemeral range, where no
// outgoing connection on the host can take it before the sandbox binds it.
func freePortBelowEphemeral() (int, error) {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		fmt.Sscan(string(b), &low)
	}
	span := min(low-1026, 8000) // ports above the privileged range and below the ephemeral one
	if span < 16 {
		return 0, fmt.Errorf("no room below the ephemeral range (it starts at %d)", low)
	}
	for i := 0; i < 64; i++ {
		p := low - 2 - int(randUint()%uint32(span))
		if free(p) && free(p+1) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free port pair found below %d", low)
}

func free(port int) bool {
	l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

func (fx *Fixture) serve(l net.Listener, c *atomic.Int64) {
	fx.closers = append(fx.closers, func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			c.Add(1)
			conn.Close()
		}
	}()
}

func (fx *Fixture) udp() error {
	u, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	fx.env.UDPPort = u.LocalAddr().(*net.UDPAddr).Port
	fx.closers = append(fx.closers, func() { u.Close() })
	c := fx.count("udp")
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := u.ReadFrom(buf); err != nil {
				return
			}
			c.Add(1)
		}
	}()
	return nil
}

// ipc creates a SysV segment, queue and semaphore set and a POSIX queue.
// Failures leave the field zero: the probe then skips.
func (fx *Fixture) ipc() error {
	key := func() int {
		b := make([]byte, 3)
		rand.Read(b)
		return 0x7ac00000 | int(b[0])<<16 | int(b[1])<<8 | int(b[2])
	}
	type obj struct {
		get, ctl uintptr
		args     []uintptr
		dst      *int
	}
	for _, o := range []obj{
		{unix.SYS_SHMGET, unix.SYS_SHMCTL, []uintptr{4096, unix.IPC_CREAT | unix.IPC_EXCL | 0o600}, &fx.env.ShmKey},
		{unix.SYS_MSGGET, unix.SYS_MSGCTL, []uintptr{unix.IPC_CREAT | unix.IPC_EXCL | 0o600, 0}, &fx.env.MsgKey},
		{unix.SYS_SEMGET, unix.SYS_SEMCTL, []uintptr{1, unix.IPC_CREAT | unix.IPC_EXCL | 0o600}, &fx.env.SemKey},
	} {
		k := key() & 0x7fffffff
		id, _, e := unix.Syscall(o.get, uintptr(k), o.args[0], o.args[1])
		if e != 0 {
			continue
		}
		*o.dst = k
		ctl := o.ctl
		rmArg := uintptr(unix.IPC_RMID)
		if ctl == unix.SYS_SEMCTL {
			fx.closers = append(fx.closers, func() { unix.Syscall6(ctl, id, 0, rmArg, 0, 0, 0) })
		} else {
			fx.closers = append(fx.closers, func() { unix.Syscall(ctl, id, rmArg, 0) })
		}
	}
	fx.mq()
	return nil
}

func (fx *Fixture) mq() {
	name := "acbox-selftest-" + randHex(6)
	fd, _, e := unix.Syscall6(unix.SYS_MQ_OPEN, cstr(name), unix.O_CREAT|unix.O_EXCL|unix.O_RDWR|unix.O_CLOEXEC, 0o600, 0, 0, 0)
	if e != 0 {
		return
	}
	unix.Close(int(fd))
	fx.env.MqName = name
	fx.closers = append(fx.closers, func() { unix.Syscall(unix.SYS_MQ_UNLINK, cstr(name), 0, 0) })
}

// Env is what the probes are told; mounts are the plan's mount points.
// Lacks is computed here, in the runner, outside every sandbox.
func (fx *Fixture) Env(mounts []string) Env {
	e := fx.env
	e.Mounts = mounts
	e.Lacks = KernelLacks()
	return e
}

// Close removes everything the fixture created, in reverse order.
func (fx *Fixture) Close() {
	os.Unsetenv(EnvCanaryName)
	for i := len(fx.closers) - 1; i >= 0; i-- {
		fx.closers[i]()
	}
	fx.closers = nil
}

func randUint() uint32 {
	var b [4]byte
	rand.Read(b[:])
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// ownAddrs lists this host's non-loopback interface addresses, IPv4
// first, without link-local IPv6 (which needs a zone to be dialled).
func ownAddrs() []string {
	as, _ := net.InterfaceAddrs()
	var v4, v6 []string
	for _, a := range as {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		if ipn.IP.To4() != nil {
			v4 = append(v4, ipn.IP.String())
		} else {
			v6 = append(v6, ipn.IP.String())
		}
	}
	return append(v4, v6...)
}
