package nsjail

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
)

// The two messages of the launch on the wire (wire.go): the parent's
// helperConfig, one frame on fdConfig, and pid 1's helperMsg, one frame per
// message on fdStatus. Fields in declaration order; TestWireRoundTrip fails
// for a field not carried.

// encodeConfig is the config frame; an error names the limit it passed.
func encodeConfig(c *helperConfig) ([]byte, error) {
	e := newFrame(4096)
	e.str(c.ID)
	encPtr(e, c.Plan, encPlan)
	encList(e, c.Idents, func(e *wenc, i *ident) { e.str(i.Path); e.u64(i.Dev); e.u64(i.Ino) })
	e.str(c.Access)
	e.int(c.ProxyFD)
	e.int(c.PtyFD)
	e.str(c.PolicyDigest)
	encPtr(e, c.Winsize, func(e *wenc, w *unix.Winsize) { e.u16(w.Row); e.u16(w.Col); e.u16(w.Xpixel); e.u16(w.Ypixel) })
	e.bool(c.PidsCgroup)
	encList(e, c.CgroupLeaves, func(e *wenc, fd *int) { e.int(*fd) })
	e.str(c.CgroupID)
	encList(e, c.UserCounters, func(e *wenc, u *userCounter) { e.str(u.Name); e.i64(u.Host); e.i64(u.Cap) })
	e.u64(c.MemberSlack)
	encList(e, c.IPCLimits, func(e *wenc, l *ipcLimit) { e.str(l.Name); e.str(l.Host); e.str(l.Cap) })
	return finish(e, frameConfig)
}

func decodeConfigBody(d *wdec, c *helperConfig) {
	c.ID = d.str("id")
	c.Plan = decPtr(d, "plan", decPlan)
	c.Idents = decList(d, "idents", 20, func(d *wdec, i *ident) { i.Path, i.Dev, i.Ino = d.str("path"), d.u64("dev"), d.u64("ino") })
	c.Access = d.str("access")
	c.ProxyFD = d.int("proxy_fd")
	c.PtyFD = d.int("pty_fd")
	c.PolicyDigest = d.str("policy_digest")
	c.Winsize = decPtr(d, "winsize", func(d *wdec, w *unix.Winsize) {
		w.Row, w.Col, w.Xpixel, w.Ypixel = d.u16("row"), d.u16("col"), d.u16("xpixel"), d.u16("ypixel")
	})
	c.PidsCgroup = d.bool("pids_cgroup")
	c.CgroupLeaves = decList(d, "cgroup_leaves", 8, func(d *wdec, fd *int) { *fd = d.int("") })
	c.CgroupID = d.str("cgroup_id")
	c.UserCounters = decList(d, "user_counters", 20, func(d *wdec, u *userCounter) {
		u.Name, u.Host, u.Cap = d.str("name"), d.i64("host"), d.i64("cap")
	})
	c.MemberSlack = d.u64("member_slack")
	c.IPCLimits = decList(d, "ipc_limits", 8, func(d *wdec, l *ipcLimit) {
		l.Name, l.Host, l.Cap = d.str("name"), d.str("host"), d.str("cap")
	})
}

// encodeMsg is one status frame. A message over a limit (an error text of
// a megabyte) is replaced by one that says so: pid 1 always answers.
func encodeMsg(m helperMsg) []byte {
	b, err := encodeMsgFrame(&m)
	if err != nil {
		b, _ = encodeMsgFrame(&helperMsg{Kind: "error", Step: m.Step, Error: "pid 1's " + m.Kind + " message could not be sent: " + err.Error()})
	}
	return b
}

func encodeMsgFrame(m *helperMsg) ([]byte, error) {
	e := newFrame(2048)
	e.str(m.Kind)
	encPtr(e, m.Report, encReport)
	e.int(m.Pid)
	e.int(m.Code)
	e.int(m.Signal)
	e.str(m.Error)
	e.str(m.Step)
	e.str(m.Errno)
	encPtr(e, m.Exec, func(e *wenc, x *policy.ExecError) { e.str(x.Command); e.str(x.Class); e.str(x.Detail) })
	e.int(m.Entered)
	return finish(e, frameMsg)
}

func decodeMsgBody(d *wdec, m *helperMsg) {
	m.Kind = d.str("kind")
	m.Report = decPtr(d, "report", decReport)
	m.Pid = d.int("pid")
	m.Code = d.int("code")
	m.Signal = d.int("signal")
	m.Error = d.str("error")
	m.Step = d.str("step")
	m.Errno = d.str("errno")
	m.Exec = decPtr(d, "exec", func(d *wdec, x *policy.ExecError) {
		x.Command, x.Class, x.Detail = d.str("command"), d.str("class"), d.str("detail")
	})
	m.Entered = d.int("entered")
}

func encReport(e *wenc, r *policy.Report) {
	e.str(r.ID)
	e.str(r.Backend)
	encMap(e, r.Namespaces, (*wenc).u64)
	encList(e, r.Mounts, func(e *wenc, m *policy.MountRecord) {
		e.str(m.Target)
		e.str(m.Kind)
		e.str(m.Source)
		e.u64(m.Dev)
		e.u64(m.Ino)
		e.str(m.Flags)
	})
	e.bytes(r.Landlock)
	encPtr(e, r.Seccomp, func(e *wenc, s *policy.SeccompRecord) { e.str(s.Digest); encStrs(e, s.Arch); e.int(s.Insns) })
	encMap(e, r.Caps, (*wenc).str)
	e.bool(r.NoNewPrivs)
	encMap(e, r.Limits, (*wenc).str)
	encList(e, r.Controls, func(e *wenc, c *policy.Control) { e.str(c.Name); e.bool(c.Requested); e.bool(c.Enforced); e.str(c.Why) })
	encMap(e, r.PhasesMS, (*wenc).f64)
	e.str(r.PolicyDigest)
}

func decReport(d *wdec, r *policy.Report) {
	r.ID = d.str("id")
	r.Backend = d.str("backend")
	r.Namespaces = decMap(d, "namespaces", 8, func(d *wdec) uint64 { return d.u64("") })
	r.Mounts = decList(d, "mounts", 32, func(d *wdec, m *policy.MountRecord) {
		m.Target, m.Kind, m.Source = d.str("target"), d.str("kind"), d.str("source")
		m.Dev, m.Ino, m.Flags = d.u64("dev"), d.u64("ino"), d.str("flags")
	})
	r.Landlock = d.bytes("landlock")
	r.Seccomp = decPtr(d, "seccomp", func(d *wdec, s *policy.SeccompRecord) {
		s.Digest, s.Arch, s.Insns = d.str("digest"), decStrs(d, "arch"), d.int("insns")
	})
	r.Caps = decMap(d, "caps", 4, func(d *wdec) string { return d.str("") })
	r.NoNewPrivs = d.bool("no_new_privs")
	r.Limits = decMap(d, "limits", 4, func(d *wdec) string { return d.str("") })
	r.Controls = decList(d, "controls", 10, func(d *wdec, c *policy.Control) {
		c.Name, c.Requested, c.Enforced, c.Why = d.str("name"), d.bool("requested"), d.bool("enforced"), d.str("why")
	})
	r.PhasesMS = decMap(d, "phases_ms", 8, func(d *wdec) float64 { return d.f64("") })
	r.PolicyDigest = d.str("policy_digest")
}

func finish(e *wenc, kind uint16) ([]byte, error) {
	if n := len(e.b) - wireHeader; e.err == nil && n > maxFrame {
		e.err = fmt.Errorf("a message of %d bytes, more than the %d allowed", n, maxFrame)
	}
	if e.err != nil {
		return nil, e.err
	}
	header(e.b, kind)
	return e.b, nil
}

// decodeFrame decodes one whole frame (header and body, nothing after).
func decodeFrame(b []byte, kind uint16, name string, body func(*wdec)) error {
	n, err := checkHeader(b, kind)
	if err != nil {
		return fmt.Errorf("%s header: %w", name, err)
	}
	return decodeBody(b[wireHeader:], n, name, body)
}

func decodeBody(b []byte, n int, name string, body func(*wdec)) error {
	if len(b) < n {
		return fmt.Errorf("%s: truncated: %d of the %d bytes announced", name, len(b), n)
	}
	d := &wdec{b: b[:n], s: string(b[:n]), path: make([]wloc, 1, 8)}
	d.path[0] = wloc{name, -1}
	body(d)
	if d.err == nil && d.off != n {
		return fmt.Errorf("%s: %d bytes after the last field (at byte %d); %w", name, n-d.off, d.off, errOtherBuild)
	}
	if d.err == nil && len(b) > n {
		return fmt.Errorf("%s: %d bytes after the message; %w", name, len(b)-n, errOtherBuild)
	}
	return d.err
}

func decodeConfig(b []byte) (*helperConfig, error) {
	var c helperConfig
	if err := decodeFrame(b, frameConfig, "config", func(d *wdec) { decodeConfigBody(d, &c) }); err != nil {
		return nil, err
	}
	return &c, nil
}

func decodeMsg(b []byte) (helperMsg, error) {
	var m helperMsg
	err := decodeFrame(b, frameMsg, "status", func(d *wdec) { decodeMsgBody(d, &m) })
	return m, err
}

// readFrame reads one frame from a stream: io.EOF before its first byte
// (the writer closed between frames), an error naming what is wrong
// otherwise.
func readFrame(r *bufio.Reader, kind uint16, name string) ([]byte, error) {
	var h [wireHeader]byte
	if k, err := io.ReadFull(r, h[:]); err != nil {
		if k == 0 && errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if k > 0 && h[0] == '{' {
			_, err = checkHeader(h[:k], kind)
		}
		return nil, fmt.Errorf("%s header: %w", name, err)
	}
	n, err := checkHeader(h[:], kind)
	if err != nil {
		return nil, fmt.Errorf("%s header: %w", name, err)
	}
	b := make([]byte, wireHeader+n) // n is at most maxFrame
	copy(b, h[:])
	if k, err := io.ReadFull(r, b[wireHeader:]); err != nil {
		return nil, fmt.Errorf("%s: truncated: %d of the %d bytes announced (%w)", name, k, n, err)
	}
	return b, nil
}
