//go:build !linux

package egress

import "net"

// takeClient: the bridge hands sockets over on Linux only.
func takeClient(c net.Conn) (net.Conn, []byte, error) { return c, nil, nil }
