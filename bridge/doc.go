// Package bridge connects the sandbox's loopback to the egress proxy outside
// it. It runs in the sandbox's pid 1 (the helper), which lives in a network
// namespace of its own with nothing but lo.
//
// The helper brings lo up ([LoopbackUp]), listens on [Addr] ([Listen]), and
// hands every accepted connection, once its first byte has arrived, to the
// proxy over the proxy's Unix socket (SCM_RIGHTS): the proxy reads and
// relays the member's socket itself ([Serve]). The bytes are relayed
// instead when the dialer is not a Unix socket, and when the kernel refuses
// the handoff because the user has too many descriptors in flight
// (ETOOMANYREFS: any process of the user can cause that). The proxy's
// socket is outside the sandbox's new root, so the helper reaches it
// through an O_PATH descriptor of the socket file that the parent passed
// down ([DialFile]).
//
// # Example
//
//	if err := bridge.LoopbackUp(); err != nil { ... }
//	ln, err := bridge.Listen()
//	if err != nil { ... }
//	go bridge.Serve(ln, bridge.DialFile(os.NewFile(3, "proxy")))
//
// # Limits
//
//   - Members must say 127.0.0.1:3128, not localhost: the listener is IPv4
//     only, and [::1]:3128 is refused.
//   - The listener refuses Multipath TCP, which Landlock's TCP rules do not
//     cover (docs/kernel-facts.md, section 5).
//   - The bridge does no policy: the proxy at the other end decides.
//
// # Platform notes
//
// Linux only. On other systems LoopbackUp and DialFile fail with ENOSYS; Listen
// and Serve work anywhere, which keeps tests of Serve portable.
package bridge
