package egress

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		addr   string
		public bool
		why    string
	}{
		{"8.8.8.8", true, ""},
		{"1.1.1.1", true, ""},
		{"0.0.0.0", false, "this network"},
		{"0.255.1.1", false, "this network"},
		{"10.1.2.3", false, "private"},
		{"100.64.0.1", false, "CGNAT"},
		{"100.127.255.255", false, "CGNAT"},
		{"100.128.0.1", true, ""},
		{"127.0.0.1", false, "loopback"},
		{"127.255.255.254", false, "loopback"},
		{"169.254.169.254", false, "metadata"},
		{"172.16.0.1", false, "private"},
		{"172.31.255.255", false, "private"},
		{"172.32.0.1", true, ""},
		{"192.0.0.8", false, "IETF"},
		{"192.0.2.1", false, "documentation"},
		{"192.88.99.1", false, "6to4"},
		{"192.168.1.1", false, "private"},
		{"198.18.0.1", false, "benchmarking"},
		{"198.19.255.255", false, "benchmarking"},
		{"198.51.100.7", false, "documentation"},
		{"203.0.113.9", false, "documentation"},
		{"224.0.0.1", false, "multicast"},
		{"240.0.0.1", false, "reserved"},
		{"255.255.255.255", false, "broadcast"},
		{"223.255.255.255", true, ""},
		{"2606:4700::1111", true, ""},
		{"2a00:1450::1", true, ""},
		{"::", false, "unspecified"},
		{"::1", false, "loopback"},
		{"::ffff:8.8.8.8", true, ""},
		{"::ffff:127.0.0.1", false, "IPv4-mapped loopback"},
		{"::ffff:10.0.0.1", false, "IPv4-mapped private"},
		{"::169.254.169.254", false, "IPv4-compatible link-local"},
		{"::8.8.8.8", true, ""},
		{"64:ff9b::a00:1", false, "NAT64"},
		{"64:ff9b:1::1", false, "NAT64"},
		{"100::1", false, "discard"},
		{"2001::1", false, "Teredo"},
		{"2001:1ff::1", false, "IETF"},
		{"2001:200::1", true, ""},
		{"2001:db8::1", false, "documentation"},
		{"2002:7f00:1::1", false, "6to4"},
		{"3fff::1", false, "documentation"},
		{"3fff:fff::1", false, "documentation"},
		{"3fff:1000::1", true, ""},
		{"fc00::1", false, "unique local"},
		{"fd12::1", false, "unique local"},
		{"fe80::1", false, "link-local"},
		{"ff02::1", false, "multicast"},
		{"4000::1", false, "not global unicast"},
		{"1000::1", false, "not global unicast"},
		{"fe80::1%eth0", false, "zone"},
	}
	for _, tt := range tests {
		got, why := Classify(netip.MustParseAddr(tt.addr))
		if got != tt.public || !strings.Contains(why, tt.why) || got != (why == "") {
			t.Errorf("Classify(%s) = %v, %q; want %v, containing %q", tt.addr, got, why, tt.public, tt.why)
		}
	}
	if ok, _ := Classify(netip.Addr{}); ok {
		t.Error("Classify(invalid) = true")
	}
}

func TestParseIPLiteral(t *testing.T) {
	tests := []struct{ in, want string }{
		{"127.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0X7F000001", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0x7f.0.0x0.01", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"00", "0.0.0.0"},
		{"0x0", "0.0.0.0"},
		{"169.254.43518", "169.254.169.254"},
		{"169.16689662", "169.254.169.254"},
		{"4294967295", "255.255.255.255"},
		{"10.0x10.0x1000", "10.16.16.0"},
		{"::1", "::1"},
		{"::ffff:127.0.0.1", "::ffff:127.0.0.1"},
		{"2001:DB8::1", "2001:db8::1"},
	}
	for _, tt := range tests {
		a, ok := ParseIPLiteral(tt.in)
		if !ok || a.String() != tt.want {
			t.Errorf("ParseIPLiteral(%q) = %v, %v; want %s", tt.in, a, ok, tt.want)
		}
	}
	for _, in := range []string{
		"", ".", "1.2.3.4.5", "256.1.1.1", "1.256.1.1", "1.2.3.256", "1.2.65536", "1.16777216", "4294967296",
		"08", "09.1.1.1", "0x", "0xg", "1..2", "1.2.3.", ".1.2.3", " 1.2.3.4", "1.2.3.4 ", "+1.2.3.4", "-1",
		"example.com", "fe80::1%eth0", "[::1]", "1.2.3.4:80", "0x100000000", "99999999999999999999",
	} {
		if a, ok := ParseIPLiteral(in); ok {
			t.Errorf("ParseIPLiteral(%q) = %v; want not a literal", in, a)
		}
	}
}

func TestHostAddrs(t *testing.T) {
	addrs, err := HostAddrs()
	if err != nil {
		t.Skipf("cannot list interfaces here: %v", err)
	}
	for _, a := range addrs {
		if !a.IsValid() || a.Is4In6() {
			t.Errorf("HostAddrs returned %v", a)
		}
	}
}

func TestPublicCheckerRefusesHostAddrs(t *testing.T) {
	everything := func(netip.Addr) (bool, string) { return true, "" }
	calls := 0
	c := &publicChecker{classify: everything, list: func() ([]netip.Addr, error) {
		calls++
		return []netip.Addr{netip.MustParseAddr("8.8.4.4"), netip.MustParseAddr("2001:4860::1")}, nil
	}}
	for addr, want := range map[string]bool{"8.8.4.4": false, "::ffff:8.8.4.4": false, "2001:4860::1": false, "8.8.8.8": true} {
		if got, why := c.isPublic(netip.MustParseAddr(addr)); got != want {
			t.Errorf("isPublic(%s) = %v, %q; want %v", addr, got, why, want)
		}
	}
	if calls != 1 {
		t.Errorf("host addresses listed %d times; want 1 (cached)", calls)
	}
	broken := &publicChecker{classify: everything, list: func() ([]netip.Addr, error) { return nil, errors.New("no netlink") }}
	if ok, why := broken.isPublic(netip.MustParseAddr("8.8.8.8")); ok {
		t.Errorf("isPublic with unlistable host addresses = true, %q; want fail closed", why)
	}
	def := New(Config{}).cfg.IsPublic
	if ok, _ := def(netip.MustParseAddr("127.0.0.1")); ok {
		t.Error("default IsPublic accepts 127.0.0.1")
	}
}
