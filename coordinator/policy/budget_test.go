package policy

import (
	"errors"
	"testing"
)

// TestTmpfsBudget: a sandbox's tmpfs mounts (/tmp, home, every --tmpfs,
// and the fixed /dev/shm) together fit in its memory limit and in the
// host's memory; the default /tmp and home shrink to fit small limits; an
// explicit /tmp or home size replaces the default.
func TestTmpfsBudget(t *testing.T) {
	f := newFixture(t)
	home := f.host.Home
	const huge = "4611686018427387904" // 2^62 bytes: two of them overflow an int64 sum
	cases := []struct {
		name    string
		backend string
		memory  string
		tmpfs   []TmpfsSpec
		want    string           // substring of the refusal; "" means accepted
		sizes   map[string]int64 // expected sizes when accepted
	}{
		{"defaults", "", "", nil, "", map[string]int64{"/tmp": 512 << 20, home: 256 << 20}},
		{"defaults shrink to a small limit", "", "256MiB", nil, "", map[string]int64{"/tmp": 64 << 20, home: 32 << 20}},
		{"smallest limit with defaults", "", "128MiB", nil, "", map[string]int64{"/tmp": 32 << 20, home: 16 << 20}},
		{"below the smallest limit", "", "100MiB", nil, "at least 128MiB", nil},
		{"a few bytes", "", "2", nil, "at least 128MiB", nil},
		{"the issue's example", "", "256MiB", []TmpfsSpec{{Target: "/big", Size: "64GiB"}}, "more than the memory limit of 256MiB", nil},
		{"default extra fits", "", "256MiB", []TmpfsSpec{{Target: "/x"}}, "", map[string]int64{"/x": 64 << 20}},
		{"extra just over", "", "256MiB", []TmpfsSpec{{Target: "/x", Size: "100MiB"}}, "total 260MiB", nil},
		{"large extra within the default limit", "", "", []TmpfsSpec{{Target: "/x", Size: "1GiB"}}, "", map[string]int64{"/x": 1 << 30}},
		{"explicit /tmp replaces the default", "", "", []TmpfsSpec{{Target: "/tmp", Size: "1GiB"}}, "", map[string]int64{"/tmp": 1 << 30, home: 256 << 20}},
		{"explicit home replaces the default", "", "", []TmpfsSpec{{Target: home, Size: "1GiB"}}, "", map[string]int64{"/tmp": 512 << 20, home: 1 << 30}},
		{"explicit /tmp too large", "", "", []TmpfsSpec{{Target: "/tmp", Size: "2GiB"}}, "more than the memory limit of 2GiB", nil},
		{"larger limit, larger /tmp", "", "4GiB", []TmpfsSpec{{Target: "/tmp", Size: "3GiB"}}, "", map[string]int64{"/tmp": 3 << 30, home: 256 << 20}},
		{"the same target twice", "", "", []TmpfsSpec{{Target: "/x"}, {Target: "/x/"}}, "more than once", nil},
		{"larger than the host", "", "64GiB", []TmpfsSpec{{Target: "/big", Size: "32GiB"}}, "more than this host's memory (24GiB)", nil},
		{"an int64 sum would wrap", "", "", []TmpfsSpec{{Target: "/a", Size: huge}, {Target: "/b", Size: huge}}, "more than the memory limit", nil},
		{"docker: same rule", "docker", "256MiB", []TmpfsSpec{{Target: "/big", Size: "64GiB"}}, "more than the memory limit of 256MiB", nil},
		{"docker: defaults", "docker", "", nil, "", map[string]int64{"/tmp": 512 << 20, home: 256 << 20}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Spec{Command: []string{"x"}, Backend: c.backend, Tmpfs: c.tmpfs, Limits: LimitsSpec{Memory: c.memory}}
			p, err := Resolve(s, f.host)
			checkErr(t, err, c.want)
			if err != nil {
				if !errors.Is(err, ErrRefused) && !errors.Is(err, ErrInvalid) {
					t.Errorf("%v is neither a refusal nor invalid input", err)
				}
				return
			}
			got := map[string]int64{}
			for _, tm := range p.Tmpfs {
				if _, dup := got[tm.Target]; dup || tm.Size <= 0 {
					t.Errorf("tmpfs %s: size %d or listed twice: %+v", tm.Target, tm.Size, p.Tmpfs)
				}
				got[tm.Target] = tm.Size
			}
			for target, size := range c.sizes {
				if got[target] != size {
					t.Errorf("tmpfs %s is %d bytes, want %d (%+v)", target, got[target], size, p.Tmpfs)
				}
			}
		})
	}
}

// TestTmpfsBudgetHostView: the host view has no home tmpfs, so only /tmp,
// /dev/shm and the extra tmpfs count.
func TestTmpfsBudgetHostView(t *testing.T) {
	f := newFixture(t)
	other := f.host.Home + "/other"
	for _, c := range []struct{ size, want string }{{"120MiB", ""}, {"150MiB", "total 278MiB"}} {
		s := Spec{Command: []string{"x"}, View: ViewHost, Tmpfs: []TmpfsSpec{{Target: other, Size: c.size}}, Limits: LimitsSpec{Memory: "256MiB"}}
		_, err := Resolve(s, f.host)
		checkErr(t, err, c.want)
	}
}

// TestCheckTmpfsBudget: the rule on hand-built plans, as a Go program or a
// backend might present them: a zero or negative size (tmpfs reads size=0
// as unlimited) never passes, and sums saturate instead of wrapping.
func TestCheckTmpfsBudget(t *testing.T) {
	const g = int64(1) << 30
	cases := []struct {
		name   string
		tmpfs  []Tmpfs
		memory int64
		want   string
	}{
		{"fits", []Tmpfs{{"/tmp", g}}, 2 * g, ""},
		{"exactly full", []Tmpfs{{"/tmp", 2*g - DevShmSize}}, 2 * g, ""},
		{"one byte over", []Tmpfs{{"/tmp", 2*g - DevShmSize + 1}}, 2 * g, "more than the memory limit"},
		{"size 0 is unlimited", []Tmpfs{{"/tmp", 0}}, 2 * g, "/tmp: tmpfs size 0"},
		{"negative", []Tmpfs{{"/x", -1}}, 2 * g, "/x: tmpfs size -1"},
		{"wraps", []Tmpfs{{"/a", 1 << 62}, {"/b", 1 << 62}, {"/c", 1 << 62}}, 2 * g, "more than the memory limit"},
		{"no memory limit", []Tmpfs{{"/tmp", 1}}, 0, "memory limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkErr(t, CheckTmpfsBudget(c.tmpfs, c.memory, 24*g), c.want)
		})
	}
}
