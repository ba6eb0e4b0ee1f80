// Package engine is a small client of the Docker Engine API over the
// daemon's Unix socket: the dozen calls the docker backend makes (ping,
// info, image inspect, create, inspect, start, attach, wait, kill, resize,
// remove, list), with only the fields of the API's JSON that acbox sends
// or checks.
//
//	c, err := engine.FromEnv() // DOCKER_HOST, DOCKER_API_VERSION
//	if err != nil { ... }
//	defer c.Close()
//	if err := c.Ping(ctx); err != nil { ... } // negotiates the version
//	in, err := c.ContainerInspect(ctx, "acbox-0123456789ab")
//
// # Why not the official client
//
// The official Go client (github.com/docker/docker/client, a module path
// its maintainers have deprecated) links OpenTelemetry,
// distribution/reference and go-digest into acbox, and Go runs every
// linked package's init in every process: in each sandbox's pid 1 and
// each nested launch too, for calls the native backend never makes. This
// package needs net/http only; cmd/acbox's TestDeps keeps the official
// client's dependencies out of the binary.
//
// # Versions
//
// The client asks for API [MaxVersion] (what the official client v28.5
// asks for) and [Client.Ping] lowers it to the daemon's (1.41 for Docker
// 20.10), as the official client's version negotiation does; a daemon that
// names no version is taken as 1.24. DOCKER_API_VERSION pins the version
// and skips negotiation. Requests go to /v<version>/...
//
// # Limits
//
//   - Unix sockets only (DOCKER_HOST=unix:///path); anything else is
//     [ErrNotLocal]. TLS, SSH and TCP daemons are out of scope, so
//     DOCKER_CERT_PATH and DOCKER_TLS_VERIFY are not read.
//   - Fields the API adds, and fields acbox neither sends nor checks, are
//     ignored when decoding, as in any JSON client: a check must name its
//     field in types.go.
//   - The daemon is trusted as the root-equivalent service it is; answers
//     are size-limited only where they are read whole (error messages).
package engine
