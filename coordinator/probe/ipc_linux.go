package probe

import (
	"golang.org/x/sys/unix"
)

// ipcGet looks a SysV object up by key without creating it.
func ipcGet(trap uintptr, key int, extra ...uintptr) (int, error) {
	args := append([]uintptr{uintptr(key)}, extra...)
	for len(args) < 3 {
		args = append(args, 0)
	}
	r, _, e := unix.Syscall(trap, args[0], args[1], args[2])
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// invisible passes on ENOENT: the runner created the object under this key
// on the host, so ENOENT means the ipc namespace hides it.
func invisible(what string, key int, id int, err error) Outcome {
	if key == 0 {
		return skipf("the runner created no %s", what)
	}
	if err == nil {
		return failf("%s with key %#x is visible (id %d)", what, key, id)
	}
	return expectErrno(what+" lookup", err, unix.ENOENT)
}

func sysvShm(e *Env) Outcome {
	id, err := ipcGet(unix.SYS_SHMGET, e.ShmKey, 0, 0)
	return invisible("SysV shm segment", e.ShmKey, id, err)
}

func sysvMsg(e *Env) Outcome {
	id, err := ipcGet(unix.SYS_MSGGET, e.MsgKey, 0)
	return invisible("SysV message queue", e.MsgKey, id, err)
}

func sysvSem(e *Env) Outcome {
	id, err := ipcGet(unix.SYS_SEMGET, e.SemKey, 0, 0)
	return invisible("SysV semaphore set", e.SemKey, id, err)
}

func posixMq(e *Env) Outcome {
	if e.MqName == "" {
		return skipf("the runner created no POSIX message queue")
	}
	r, _, en := unix.Syscall6(unix.SYS_MQ_OPEN, cstr(e.MqName), unix.O_RDONLY, 0, 0, 0, 0)
	if en == 0 {
		unix.Close(int(r))
		return failf("POSIX mq %q is visible", e.MqName)
	}
	return expectErrno("mq_open "+e.MqName, en, unix.ENOENT)
}
