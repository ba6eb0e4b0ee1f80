package probe

import (
	"fmt"
	"reflect"
	"strings"
)

// Env is what the runner outside tells the probes inside: where its
// canaries and listeners are. Every field is set by [Fixture.Env]; a probe
// whose field is empty skips. The kong tags make it the flag set of the
// hidden `acbox probe` command; [Env.Args] renders it back into flags.
type Env struct {
	Fixture     string   `help:"Write-granted fixture directory." placeholder:"DIR"`
	ReadGrant   string   `help:"Read-only grant holding the file 'file'." placeholder:"DIR"`
	HostCanary  string   `help:"File on the host outside every grant." placeholder:"FILE"`
	TmpCanary   string   `help:"File in the host's /tmp." placeholder:"FILE"`
	ShmCanary   string   `help:"File in the host's /dev/shm." placeholder:"FILE"`
	HomeCanary  string   `help:"File in the caller's real home." placeholder:"FILE"`
	Canary      string   `help:"Content of every canary file."`
	EnvName     string   `help:"Environment variable set on acbox outside." placeholder:"NAME"`
	TCPPort     int      `help:"Host 127.0.0.1 TCP listener port." placeholder:"PORT"`
	UDPPort     int      `help:"Host 127.0.0.1 UDP listener port." placeholder:"PORT"`
	UnixSocket  string   `help:"Unix socket path on the host, outside every grant." placeholder:"PATH"`
	Abstract    string   `help:"Abstract Unix socket name served on the host." placeholder:"NAME"`
	ShmKey      int      `help:"Host SysV shared memory key." placeholder:"KEY"`
	MsgKey      int      `help:"Host SysV message queue key." placeholder:"KEY"`
	SemKey      int      `help:"Host SysV semaphore set key." placeholder:"KEY"`
	MqName      string   `help:"Host POSIX message queue name, without the slash." placeholder:"NAME"`
	Mounts      []string `help:"Mount points the plan creates (repeatable)." sep:"none" placeholder:"PATH"`
	RunnerPid   int      `help:"Host pid of the runner." placeholder:"PID"`
	UID         int      `name:"uid" help:"The caller's uid outside." default:"-1"`
	Backend     string   `help:"The backend the runner launched this sandbox with (empty: native)." placeholder:"NAME"`
	Lacks       []string `help:"Kernel features missing outside the sandbox (repeatable); probes that need one skip." sep:"none" placeholder:"FEATURE"`
	AllowedPort int      `help:"Host 127.0.0.1 TCP port the --net host sandbox may connect to." placeholder:"PORT"`
	BindPort    int      `help:"TCP port the --net host sandbox may bind." placeholder:"PORT"`
	HostAddrs   []string `help:"The host's own non-loopback addresses (repeatable)." sep:"none" placeholder:"ADDR"`
}

// Args renders e as `acbox probe` flags, skipping zero values (an int
// with a default, such as the uid, is always rendered: 0 is meaningful).
func (e Env) Args() []string {
	var out []string
	v, t := reflect.ValueOf(e), reflect.TypeOf(e)
	for i := 0; i < t.NumField(); i++ {
		name := "--" + flagName(t.Field(i))
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			if f.String() != "" {
				out = append(out, name+"="+f.String())
			}
		case reflect.Int:
			if f.Int() != 0 || t.Field(i).Tag.Get("default") != "" {
				out = append(out, fmt.Sprintf("%s=%d", name, f.Int()))
			}
		case reflect.Slice:
			for j := 0; j < f.Len(); j++ {
				out = append(out, name+"="+f.Index(j).String())
			}
		}
	}
	return out
}

// flagName is kong's default: the field name in kebab case, or the name tag.
func flagName(f reflect.StructField) string {
	if n := f.Tag.Get("name"); n != "" {
		return n
	}
	var b strings.Builder
	rs := []rune(f.Name)
	for i, r := range rs {
		upper := r >= 'A' && r <= 'Z'
		if upper && i > 0 && (rs[i-1] < 'A' || rs[i-1] > 'Z' || (i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z')) {
			b.WriteByte('-')
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}
