//go:build !unix

package bridge

import "net"

// firstByte cannot peek here; the proxy is dialed at once.
func firstByte(net.Conn) bool { return true }
