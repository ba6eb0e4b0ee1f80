package probe

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func infoProbes() []Probe {
	return []Probe{
		{ID: "info.hostname", Category: Information, Source: "bubblewrap --unshare-uts",
			Expect: "the hostname is \"acbox\"", Run: hostname},
		{ID: "info.uid-map", Category: Information, Source: "docs/kernel-facts.md 1",
			Expect: "uid_map and gid_map are one line mapping the caller's own id (for root, gid_map also maps 65534 for hidepid), and setgroups is deny", Run: idMaps},
		{ID: "info.mountinfo", Category: Information, Source: "acbox design",
			Expect: "every mount point is one the plan creates (/, /proc, /dev, system dirs, grants, tmpfs, runtime mounts)", Run: mountinfo},
		{ID: "info.kallsyms", Category: Information, Source: "kernel.kptr_restrict; KASLR leaks",
			Expect: "/proc/kallsyms is unreadable or shows only zero addresses", Run: kallsyms},
		{ID: "info.kmsg", Category: Information, Source: "kernel.dmesg_restrict",
			Expect: "/dev/kmsg and /proc/kmsg cannot be read", Run: kmsg},
		{ID: "info.sysv-shm", Category: Information, Source: "bubblewrap --unshare-ipc",
			Expect: "the runner's SysV shared memory segment is not visible (ENOENT)", Run: sysvShm},
		{ID: "info.sysv-msg", Category: Information, Source: "bubblewrap --unshare-ipc",
			Expect: "the runner's SysV message queue is not visible (ENOENT)", Run: sysvMsg},
		{ID: "info.sysv-sem", Category: Information, Source: "bubblewrap --unshare-ipc",
			Expect: "the runner's SysV semaphore set is not visible (ENOENT)", Run: sysvSem},
		{ID: "info.posix-mq", Category: Information, Source: "bubblewrap --unshare-ipc",
			Expect: "the runner's POSIX message queue is not visible (ENOENT)", Run: posixMq},
		{ID: "env.no-host-variable", Category: Environment, Source: "Codex env filtering; sandbox-runtime",
			Expect: "the canary variable set on acbox outside is absent", Run: noHostVar},
		{ID: "env.minimal", Category: Environment, Source: "acbox design (fixed minimal environment)",
			Expect: "the environment holds only PATH HOME TMPDIR USER ACBOX_ACCESS ACBOX_ID and the host's LANG TERM COLORTERM LC_*", Run: minimalEnv},
		{ID: "env.acbox-access", Category: Environment, Source: "acbox design",
			Expect: "ACBOX_ACCESS is JSON with enforced true", Run: acboxAccess},
		{ID: "env.home-private", Category: Environment, Source: "acbox design",
			Expect: "$HOME is a private tmpfs", Run: homePrivate},
	}
}

func hostname(*Env) Outcome {
	h, err := os.Hostname()
	if err != nil {
		return errorf("%v", err)
	}
	if h != "acbox" {
		return failf("hostname %q", h)
	}
	return passf("acbox")
}

func idMaps(e *Env) Outcome {
	var outs []Outcome
	for _, f := range []struct{ name, want string }{{"uid_map", strconv.Itoa(os.Getuid())}, {"gid_map", strconv.Itoa(os.Getgid())}} {
		b, err := os.ReadFile("/proc/self/" + f.name)
		if err != nil {
			return errorf("%v", err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		fs := strings.Fields(lines[0])
		// A root caller's gid_map also maps nobody's group: it names the
		// group hidepid exempts (see nsjail.gidMappings), which nobody holds.
		if f.name == "gid_map" && f.want == "0" && len(lines) == 2 && strings.Join(strings.Fields(lines[1]), " ") == "65534 65534 1" {
			lines = lines[:1]
		}
		if len(lines) != 1 || len(fs) != 3 || fs[0] != f.want || fs[1] != f.want || fs[2] != "1" {
			outs = append(outs, failf("%s: %q", f.name, strings.TrimSpace(string(b))))
			continue
		}
		outs = append(outs, passf("%s: %s %s 1", f.name, f.want, f.want))
	}
	if e.UID >= 0 && os.Getuid() != e.UID {
		outs = append(outs, failf("uid inside %d, caller outside %d", os.Getuid(), e.UID))
	}
	if b, _ := os.ReadFile("/proc/self/setgroups"); strings.TrimSpace(string(b)) != "deny" {
		outs = append(outs, failf("setgroups: %q", strings.TrimSpace(string(b))))
	}
	return worst(outs...)
}

func mountinfo(e *Env) Outcome {
	if len(e.Mounts) == 0 {
		return skipf("the runner named no plan mounts")
	}
	n, extra, err := mountsOutside(append([]string{"/proc", "/dev"}, e.Mounts...))
	if err != nil {
		return errorf("%v", err)
	}
	if len(extra) > 0 {
		return failf("mount points outside the plan: %s", strings.Join(extra, " "))
	}
	return passf("%d mounts, all from the plan", n)
}

// mountsOutside counts the mounts of /proc/self/mountinfo and lists the
// mount points other than / that are not under one of allowed.
func mountsOutside(allowed []string) (int, []string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	var extra []string
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 5 {
			continue
		}
		n++
		if mp := unescape(fs[4]); mp != "/" && !underAny(mp, allowed) {
			extra = append(extra, mp)
		}
	}
	return n, extra, sc.Err()
}

func unescape(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

func kallsyms(*Env) Outcome {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		return passf("unreadable: %s", short(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() && n < 2000 {
		n++
		if a := strings.Fields(sc.Text()); len(a) > 0 && strings.Trim(a[0], "0") != "" {
			return failf("non-zero kernel address visible: %s", sc.Text())
		}
	}
	return passf("%d symbols read, every address zero", n)
}

func kmsg(*Env) Outcome {
	return worst(expectDenied("read /dev/kmsg", readSome("/dev/kmsg")), expectDenied("read /proc/kmsg", readSome("/proc/kmsg")))
}

func readSome(p string) error {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Read(make([]byte, 64))
	return err
}

func noHostVar(e *Env) Outcome {
	if e.EnvName == "" {
		return skipf("the runner named no variable")
	}
	if v, ok := os.LookupEnv(e.EnvName); ok {
		return failf("%s=%q is visible", e.EnvName, v)
	}
	return passf("%s is absent", e.EnvName)
}

// envAllowed: the fixed environment, and the locale and terminal variables
// acbox forwards from the host (policy's forwarded: LANG, TERM, COLORTERM,
// LC_*).
var envAllowed = []string{"PATH", "HOME", "TMPDIR", "USER", "LANG", "TERM", "COLORTERM", "ACBOX_ACCESS", "ACBOX_ID"}

func minimalEnv(*Env) Outcome {
	var extra []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !contains(envAllowed, k) && !strings.HasPrefix(k, "LC_") {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		return failf("unexpected variables: %s", strings.Join(extra, " "))
	}
	return passf("%d variables, all expected", len(os.Environ()))
}

func acboxAccess(*Env) Outcome {
	var a struct {
		Enforced bool `json:"enforced"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("ACBOX_ACCESS")), &a); err != nil {
		return failf("ACBOX_ACCESS is not JSON: %v", err)
	}
	if !a.Enforced {
		return failf("enforced is false")
	}
	return passf("enforced true")
}

func homePrivate(*Env) Outcome {
	home := os.Getenv("HOME")
	var st unix.Statfs_t
	if err := unix.Statfs(home, &st); err != nil {
		return errorf("statfs %s: %v", home, err)
	}
	if st.Type != unix.TMPFS_MAGIC {
		return failf("%s is not a tmpfs (type %#x)", home, st.Type)
	}
	return passf("%s is a tmpfs", home)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }
