//go:build !linux

package sys

import "golang.org/x/sys/unix"

// Stubs: every wrapper whose argument types exist off Linux returns
// ErrUnsupported there. Wrappers over Linux-only kernel types (open_how,
// mount_attr, fsopen, capabilities, sysinfo, ifreq, tcp_info) have no
// stub: only Linux files call them.

func Kill(pid int, sig unix.Signal) error                                   { return ErrUnsupported }
func Flock(fd int, name string, how int) error                              { return ErrUnsupported }
func Prctl(op string, option int, a2, a3, a4, a5 uintptr) error             { return ErrUnsupported }
func Open(path string, flags int, perm uint32) (int, error)                 { return -1, ErrUnsupported }
func Openat(dirfd int, name string, flags int, perm uint32) (int, error)    { return -1, ErrUnsupported }
func Mkdirat(dirfd int, name string, mode uint32) error                     { return ErrUnsupported }
func Mknodat(dirfd int, name string, mode uint32, dev int) error            { return ErrUnsupported }
func Linkat(olddirfd int, old string, newdirfd int, name string) error      { return ErrUnsupported }
func Symlinkat(target string, dirfd int, name string) error                 { return ErrUnsupported }
func Readlinkat(dirfd int, name string, buf []byte) (int, error)            { return -1, ErrUnsupported }
func Rmdir(path string) error                                               { return ErrUnsupported }
func Stat(path string, st *unix.Stat_t) error                               { return ErrUnsupported }
func Fstat(fd int, name string, st *unix.Stat_t) error                      { return ErrUnsupported }
func Fstatfs(fd int, name string, st *unix.Statfs_t) error                  { return ErrUnsupported }
func Dup(fd int) (int, error)                                               { return -1, ErrUnsupported }
func DupCloexec(fd int) (int, error)                                        { return -1, ErrUnsupported }
func Close(fd int) error                                                    { return ErrUnsupported }
func Chdir(path string) error                                               { return ErrUnsupported }
func Fchdir(fd int, name string) error                                      { return ErrUnsupported }
func Mount(source, target, fstype string, flags uintptr, data string) error { return ErrUnsupported }
func Unmount(target string, flags int) error                                { return ErrUnsupported }
func PivotRoot(newroot, putold string) error                                { return ErrUnsupported }
func Wait4(pid int, ws *unix.WaitStatus, options int, ru *unix.Rusage) (int, error) {
	return -1, ErrUnsupported
}
func Getrlimit(resource int, lim *unix.Rlimit) error                   { return ErrUnsupported }
func Setrlimit(resource int, lim *unix.Rlimit) error                   { return ErrUnsupported }
func CloseOnExecFrom(first uint) error                                 { return ErrUnsupported }
func Sethostname(name string) error                                    { return ErrUnsupported }
func IoctlGetInt(fd int, name string, req uint) (int, error)           { return -1, ErrUnsupported }
func IoctlSetPointerInt(fd int, name string, req uint, v int) error    { return ErrUnsupported }
func IoctlGetWinsize(fd int, name string) (*unix.Winsize, error)       { return nil, ErrUnsupported }
func IoctlSetWinsize(fd int, name string, ws *unix.Winsize) error      { return ErrUnsupported }
func Socket(domain, typ, proto int) (int, error)                       { return -1, ErrUnsupported }
func Sendmsg(fd int, p, oob []byte, to unix.Sockaddr, flags int) error { return ErrUnsupported }
func Recvmsg(fd int, p, oob []byte, flags int) (n, oobn, recvflags int, from unix.Sockaddr, err error) {
	return 0, 0, 0, nil, ErrUnsupported
}
func Lstat(path string, st *unix.Stat_t) error    { return ErrUnsupported }
func Statfs(path string, st *unix.Statfs_t) error { return ErrUnsupported }
func Renameat2(olddirfd int, oldname string, newdirfd int, newname string, flags uint) error {
	return ErrUnsupported
}
func Read(fd int, name string, p []byte) (int, error)                   { return -1, ErrUnsupported }
func Write(fd int, name string, p []byte) (int, error)                  { return -1, ErrUnsupported }
func Fsync(fd int, name string) error                                   { return ErrUnsupported }
func Seek(fd int, name string, offset int64, whence int) (int64, error) { return -1, ErrUnsupported }
func Getdents(fd int, name string, buf []byte) (int, error)             { return -1, ErrUnsupported }
func Getgroups() ([]int, error)                                         { return nil, ErrUnsupported }
func Socketpair(domain, typ, proto int) ([2]int, error)                 { return [2]int{-1, -1}, ErrUnsupported }
func GetsockoptInt(fd, level, opt int, name string) (int, error)        { return -1, ErrUnsupported }

// Terminal is the snapshot of a terminal (term_linux.go); off Linux there
// is none.
type Terminal struct{}

func SaveTerminal(fd int, name string) (*Terminal, error) { return nil, ErrUnsupported }
func ClearNonblock(fd int, name string) error             { return ErrUnsupported }
func RestoreTerminal(fd int, name string, t *Terminal) (bool, error) {
	return false, ErrUnsupported
}
