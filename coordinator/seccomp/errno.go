package seccomp

import "strconv"

// Errno is a Linux errno number as the filter returns it. It is spelled out
// here rather than taken from package syscall so that the policy reads the
// same, and digests the same, when it is built or inspected on another OS.
type Errno uint16

// The errnos the policy returns (Linux numbering, every architecture acbox
// supports).
const (
	EPERM           Errno = 1
	EACCES          Errno = 13
	ENOSYS          Errno = 38
	EPROTONOSUPPORT Errno = 93
	EOPNOTSUPP      Errno = 95
	EAFNOSUPPORT    Errno = 97
)

var errnoNames = map[Errno]string{
	EPERM:           "EPERM",
	EACCES:          "EACCES",
	ENOSYS:          "ENOSYS",
	EPROTONOSUPPORT: "EPROTONOSUPPORT",
	EOPNOTSUPP:      "EOPNOTSUPP",
	EAFNOSUPPORT:    "EAFNOSUPPORT",
}

func (e Errno) String() string {
	if n, ok := errnoNames[e]; ok {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}
