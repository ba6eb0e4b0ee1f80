package probe

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Run performs the selected mode; ok is false when no mode was selected.
func (m Modes) Run() (code int, ok bool) {
	switch {
	case m.Exit >= 0:
		return m.Exit, true
	case m.KillSelf > 0:
		syscall.Kill(os.Getpid(), syscall.Signal(m.KillSelf))
		time.Sleep(5 * time.Second)
		return 4, true
	case m.WaitSignal:
		return waitSignal(), true
	case m.Daemon != "":
		return daemon(m.Daemon), true
	case len(m.MapWrite) > 0:
		return mapWrite(m.MapWrite), true
	case m.Heartbeat != "":
		heartbeat(m.Heartbeat)
		return 0, true
	case m.CrossBroker != "":
		return crossBroker(m.CrossBroker), true
	}
	return 0, false
}

func waitSignal() int {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	fmt.Println("ready")
	select {
	case <-ch:
		return 42
	case <-time.After(30 * time.Second):
		return 3
	}
}

// daemon starts a heartbeat child in a session of its own, as a daemon
// escaping its parent would, then sleeps until killed.
func daemon(file string) int {
	exe, err := os.Executable()
	if err != nil {
		exe = MemberPath
	}
	attr := &os.ProcAttr{Files: []*os.File{nil, nil, nil}, Sys: &syscall.SysProcAttr{Setsid: true}}
	if _, err := os.StartProcess(exe, []string{exe, "probe", "--heartbeat=" + file}, attr); err != nil {
		fmt.Fprintln(os.Stderr, "daemon:", err)
		return 5
	}
	fmt.Println("ready")
	time.Sleep(2 * time.Minute)
	return 0
}

func heartbeat(file string) {
	end := time.Now().Add(2 * time.Minute)
	for time.Now().Before(end) {
		os.WriteFile(file, []byte(time.Now().Format(time.RFC3339Nano)), 0o644)
		time.Sleep(50 * time.Millisecond)
	}
}

// mapWrite rewrites each file's first bytes through a shared mapping (no
// write(2): the kernel keeps set-id bits and file capabilities) and gives
// it a hard link FILE.link where it can (a file mounted alone has no
// directory to link in); status 6 when a mapping failed.
func mapWrite(files []string) int {
	code := 0
	for _, f := range files {
		if err := rewriteMapped(f); err != nil {
			fmt.Fprintln(os.Stderr, "map-write:", err)
			code = 6
			continue
		}
		linked := os.Link(f, f+".link") == nil
		fmt.Printf("mapped %s (linked %v)\n", f, linked)
	}
	return code
}

func rewriteMapped(file string) error {
	fd, err := unix.Open(file, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", file, err)
	}
	defer unix.Close(fd)
	m, err := unix.Mmap(fd, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mmap %s: %w", file, err)
	}
	defer unix.Munmap(m)
	copy(m, memberContent)
	return unix.Msync(m, unix.MS_SYNC)
}
