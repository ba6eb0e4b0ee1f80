package policy

import (
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"design example", `{"backend":"native","command":["pi","--mode","rpc"],"cwd":"/repo","access":{"read":["/a"],"write":["/b"],"network":{"mode":"proxy","allow":["api.example.com","*.example.org:8443"]}},"mounts":[{"source":"/opt/pi","target":"/opt/pi","readonly":true}],"tmpfs":[{"target":"/home/u/.pi","size":"64MiB"}],"env":{"LANG":"C.UTF-8"},"tty":false,"limits":{"memory":"2GiB","pids":1024},"image":"i:t","labels":{"team":"t1"}}`, ""},
		{"unknown field", `{"command":["x"],"acess":{}}`, `unknown field "acess"`},
		{"unknown nested", `{"command":["x"],"access":{"network":{"mode":"none","hosts":[]}}}`, `unknown field "hosts"`},
		{"trailing", `{"command":["x"]} {}`, "trailing data"},
		{"allow null", `{"command":["x"],"access":{"network":{"mode":"proxy","allow":null}}}`, "allow is null"},
		{"allow null in other case", `{"command":["x"],"access":{"network":{"mode":"proxy","allow":["a.example"],"ALLOW":null}}}`, "more than once"},
		{"allow twice", `{"command":["x"],"access":{"network":{"mode":"proxy","allow":["a.example"],"allow":[]}}}`, "more than once"},
		{"allow empty", `{"command":["x"],"access":{"network":{"mode":"proxy","allow":[]}}}`, ""},
		{"allow absent", `{"command":["x"],"access":{"network":{"mode":"proxy"}}}`, ""},
		{"not json", `command: x`, "spec:"},
		{"wrong type", `{"command":"x"}`, "spec:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSpec(strings.NewReader(c.in))
			checkErr(t, err, c.want)
		})
	}
	big := `{"command":["` + strings.Repeat("a", MaxSpecBytes) + `"]}`
	if _, err := ParseSpec(strings.NewReader(big)); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Fatalf("oversize spec: %v", err)
	}
}

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
	}{{"512MiB", 512 << 20}, {"2GiB", 2 << 30}, {"64m", 64 << 20}, {"4096", 4096}, {"1k", 1024}, {"10MB", 10_000_000}, {"0", 0}, {"-1", 0}, {"x", 0}, {"", 0}, {"99999999999999GiB", 0}}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if (err != nil) != (c.want == 0) || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestParseMountFlag(t *testing.T) {
	type want struct {
		src, dst string
		ro       bool
	}
	cases := []struct {
		in   string
		want want
		err  bool
	}{
		{"/a", want{"/a", "", true}, false},
		{"/a:rw", want{"/a", "", false}, false},
		{"/a:ro", want{"/a", "", true}, false},
		{"/a:/b", want{"/a", "/b", true}, false},
		{"/a:/b:rw", want{"/a", "/b", false}, false},
		{"/a:/b:/c", want{}, true},
		{":/b", want{}, true},
		// An empty target would silently mean "at the source's path", which
		// the spec refuses ("mounts[0].target is \"\"").
		{"/a:", want{}, true},
		{"/a::rw", want{}, true},
		{"/a::ro", want{}, true},
	}
	for _, c := range cases {
		got, err := ParseMountFlag(c.in)
		if (err != nil) != c.err || (!c.err && (want{got.Source, got.Target, got.ReadOnly()}) != c.want) {
			t.Errorf("ParseMountFlag(%q) = %+v (read-only %v), %v", c.in, got, got.ReadOnly(), err)
		}
	}
}

// TestSpecMountReadOnlyByDefault: a spec's mount is read-only unless it
// says "readonly": false, as --mount is unless :rw.
func TestSpecMountReadOnlyByDefault(t *testing.T) {
	for in, ro := range map[string]bool{
		`{"command":["x"],"mounts":[{"source":"/a"}]}`:                  true,
		`{"command":["x"],"mounts":[{"source":"/a","readonly":true}]}`:  true,
		`{"command":["x"],"mounts":[{"source":"/a","readonly":false}]}`: false,
	} {
		s, err := ParseSpec(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Mounts[0].ReadOnly(); got != ro {
			t.Errorf("%s: read-only %v, want %v", in, got, ro)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add(`{"command":["x"],"access":{"network":{"mode":"proxy","allow":[]}}}`)
	f.Add(`{"command":["x"],"tmpfs":[{"target":"/a","size":"1k"}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec(strings.NewReader(s))
		if err == nil {
			_ = spec.String()
		}
	})
}

func FuzzParseSize(f *testing.F) {
	f.Add("64MiB")
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := ParseSize(s); err == nil && n <= 0 {
			t.Fatalf("ParseSize(%q) = %d without error", s, n)
		}
	})
}

func FuzzParseMountFlag(f *testing.F) {
	f.Add("/a:/b:ro")
	f.Fuzz(func(t *testing.T, s string) {
		if m, err := ParseMountFlag(s); err == nil && m.Source == "" {
			t.Fatalf("empty source accepted for %q", s)
		}
	})
}

func TestReadSpecLineLeavesTheRest(t *testing.T) {
	r := strings.NewReader(`{"command":["cat"]}` + "\n" + `{"rpc":1}` + "\n")
	s, err := ReadSpecLine(r)
	if err != nil || s.Command[0] != "cat" {
		t.Fatalf("spec %+v, %v", s, err)
	}
	rest := make([]byte, 64)
	n, _ := r.Read(rest)
	if string(rest[:n]) != `{"rpc":1}`+"\n" {
		t.Fatalf("the member's stdin lost bytes: %q", rest[:n])
	}
}
