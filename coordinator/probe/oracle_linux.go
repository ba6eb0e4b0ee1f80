package probe

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Oracles are the observations only the runner can make, joined to the
// probes' lines after the sandboxes have ended.
func (fx *Fixture) Oracles() []Line {
	out := []Line{
		fx.counter("oracle.tcp-accepts", Network, "tcp", "the host loopback listener accepted no connection"),
		fx.counter("oracle.udp-received", Network, "udp", "the host loopback UDP socket received no datagram"),
		fx.counter("oracle.unix-accepts", Network, "unix", "the host Unix socket outside the grants accepted no connection"),
		fx.counter("oracle.abstract-accepts", Network, "abstract", "the host abstract Unix socket accepted no connection"),
		fx.canariesUnchanged(),
		fx.dirUnchanged("oracle.host-dir-unchanged", filepath.Join(fx.Base, "outside"), []string{"secret", "sock"},
			"the ungranted directory beside the grants holds only what the runner put there"),
		fx.dirUnchanged("oracle.read-grant-unchanged", fx.Read, []string{"file"}, "the read grant holds only what the runner put there"),
		fx.writeGrantIsHost(),
	}
	return out
}

func oracle(id, cat, expect string, o Outcome) Line {
	return Line{ID: id, Category: cat, Result: o.Result, Expect: expect, Detail: o.Detail, Source: "acbox design (outside oracle)"}
}

func (fx *Fixture) counter(id, cat, name, expect string) Line {
	c, ok := fx.counters[name]
	if !ok {
		return oracle(id, cat, expect, skipf("no %s listener", name))
	}
	if n := c.Load(); n > 0 {
		return oracle(id, cat, expect, failf("%d reached the host", n))
	}
	return oracle(id, cat, expect, passf("0"))
}

func (fx *Fixture) canariesUnchanged() Line {
	var bad []string
	for p, want := range fx.files {
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			bad = append(bad, p)
		}
	}
	sort.Strings(bad)
	expect := "every canary file the runner created still holds its content"
	if len(bad) > 0 {
		return oracle("oracle.canaries-unchanged", Filesystem, expect, failf("changed or gone: %s", strings.Join(bad, " ")))
	}
	return oracle("oracle.canaries-unchanged", Filesystem, expect, passf("%d canaries intact", len(fx.files)))
}

func (fx *Fixture) dirUnchanged(id, dir string, want []string, expect string) Line {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return oracle(id, Filesystem, expect, errorf("%v", err))
	}
	var extra []string
	for _, e := range ents {
		if !contains(want, e.Name()) {
			extra = append(extra, e.Name())
		}
	}
	if len(extra) > 0 {
		return oracle(id, Filesystem, expect, failf("new entries in %s: %s", dir, strings.Join(extra, " ")))
	}
	return oracle(id, Filesystem, expect, passf("%s unchanged", dir))
}

// writeGrantIsHost shows the write grant inside was the host directory,
// so the write probes wrote where the runner can see.
func (fx *Fixture) writeGrantIsHost() Line {
	expect := "the file a probe wrote into the write grant is on the host"
	if _, err := os.Stat(filepath.Join(fx.Write, "written-by-probe")); err != nil {
		return oracle("oracle.write-grant-is-host", Filesystem, expect, failf("%v", err))
	}
	return oracle("oracle.write-grant-is-host", Filesystem, expect, passf("present"))
}
