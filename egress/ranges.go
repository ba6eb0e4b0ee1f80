package egress

// RefusedRanges lists what the proxy refuses as a destination, one
// "prefix reason" string per range in the order Classify checks them, then
// the rules that are not a fixed prefix. It is documentation and the input
// of acbox's policy fingerprint; Classify is the enforcement.
func RefusedRanges() []string {
	var out []string
	for _, r := range refusedV4 {
		out = append(out, r.prefix.String()+" "+r.what)
	}
	for _, r := range refusedV6 {
		out = append(out, r.prefix.String()+" "+r.what)
	}
	return append(out,
		"::ffff:0:0/96 IPv4-mapped: judged as the IPv4 address",
		"::/96 IPv4-compatible: judged as the IPv4 address",
		"outside "+globalUnicast.String()+" not global unicast",
		"any address with a zone",
		"every address of this host's interfaces",
	)
}
