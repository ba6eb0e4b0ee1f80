// Package egress holds the end-to-end test of network policy: real
// sandboxes, the real proxy and bridge, and an origin server in a network
// namespace the test creates, reached over a veth pair. Nothing leaves the
// machine: the "public" origin address exists only inside the test's own
// namespaces, and names resolve through a hosts file the test writes.
package egress
