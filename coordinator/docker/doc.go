// Package docker is acbox's docker backend: it runs a resolved
// [policy.Plan] in a hardened container through the Docker Engine API
// (acbox's own small client, package engine), as a peer of the native
// backend (package nsjail) behind [backend.Backend]. Grant rules and
// refused paths are the native ones: the plan arrives already resolved,
// for backend "docker". The two backends do not import each other: what
// both need lives beneath them (coordinator/pin holds bind sources by
// descriptor, coordinator/backend makes ids, coordinator/seccomp is the
// syscall policy).
//
//	out, err := docker.Backend{}.Launch(plan, backend.LaunchIO{ID: id, ProxySocket: sock})
//
// [Backend.Lacks] names what a plan asks for that this backend cannot give
// (the host view, nested launches, the host network, masks inside a grant
// or mount source); Launch refuses such a plan before it talks to the
// daemon.
// # The daemon
//
// The client (package engine) reads DOCKER_HOST (default
// unix:///var/run/docker.sock) and negotiates the API version down to the
// daemon's; DOCKER_API_VERSION pins it. Below [MinAPIVersion] (1.41,
// Docker 20.10) the backend is unavailable. Only a local Unix socket is
// accepted, because bind sources are this host's paths; and
// rootless or userns-remapped daemons are refused, because they would not
// run the container as the caller's own uid. Access to the daemon's socket
// is root-equivalent: whoever can use it can start a privileged container.
// [Backend.Available] ([Probe]; acbox status) says whether the backend can
// run and, if not, the next step.
//
// # The container
//
// Created, never started, until it passed inspection: the caller's uid:gid;
// every capability dropped; no-new-privileges; read-only root; network
// none (lo only); no published or exposed ports; no restart policy; log
// driver none; docker's init as pid 1; private pid, ipc, uts and cgroup
// namespaces; tmpfs /tmp (mode 1777), the home and any extra tmpfs (0700),
// all owned by the user; memory with no swap and pids limits; healthcheck
// off; the grants and runtime mounts bound at their paths, read-only where
// the plan says, non-recursively; the carve-outs of the write grants
// (coordinator/policy/protect.go: git hooks and config by default) bound onto
// themselves, read-only, with the directories above them pinned (bound
// read-write, so that they cannot be renamed), mounted after their grant
// because the daemon mounts in order of target depth; labels [LabelID],
// [LabelOwnerPid], [LabelOwnerStart], [LabelOwnerPidNS] and [LabelUID].
// Images that declare volumes or ports are refused. Inspection compares
// the daemon's view with the request and refuses any difference: network,
// ports, privileged, capabilities, security options (the exact seccomp
// profile), masked and read-only paths, namespace modes, devices, device
// requests, groups, volumes-from, image volumes, mounts (type, source,
// target, mode; carve-outs included), the tmpfs set, user, limits, restart
// policy, log driver, command, working directory and labels. Network and
// ports are checked again after start.
//
// # The start gate
//
// The container's process is acbox itself, bound read-only at [InitPath],
// running the hidden command container-init. In proxy mode it relays
// 127.0.0.1:3128 to the egress proxy's socket, bound read-only from its
// private directory. It then connects once to the gate, a Unix socket in a
// private directory (0700, in the sandbox's run directory, which gc removes
// if acbox is killed) bound read-only, and presents the random token
// from its command line. The parent accepts one connection only, closes the
// listener, checks and forgets the token, asks for the dev/ino of every
// bind target (opened O_PATH|O_NOFOLLOW inside), compares each with the
// source it has held open since before create, and, where it may, with
// /proc/<pid>/root/<target> from the host (root and docker-group users of
// the container's uid may; pid is the daemon's number for the container's
// pid 1, used only once verified to be that process here, hostinit.go), where it also requires every read-only bind to
// be read-only and every pin writable (this shows the mount order, which
// identities cannot). It also checks the init's ids, groups, capabilities
// and no_new_privs. Only then does it send the member's
// environment, and only then does the init start the member. Any
// difference removes the container; a replayed token finds no socket.
//
// # Lifetime
//
// The container is created with AutoRemove and is removed explicitly on
// every way out of Launch. If acbox itself is killed (SIGKILL), the next
// docker launch, or acbox gc ([Backend.Cleanup]), removes every container
// whose owner pid is gone or was reused (start time differs).
// [Backend.Live] lists the others, whoever owns them: the daemon is shared,
// so admission counts them.
//
// # Limits
//
//   - No Landlock: the report says "landlock: not available in the docker
//     backend; the container's read-only root and binds are the file
//     boundary" (requested false, so not a shortfall).
//   - Seccomp is acbox's profile: docker's default narrowed by the native
//     policy, built at development time by package profile and embedded
//     (seccomp_profile.json, seccomp.go), x86_64 only, so 32-bit x86
//     programs are killed.
//     The report carries its digest ([ProfileDigest]). AppArmor is
//     docker's default, as the runtime provides it.
//   - Docker's /sys, /dev/mqueue and /etc/resolv.conf cannot be left out,
//     only masked; /etc/hosts and /etc/hostname are docker's.
//   - Binds are non-recursive: a mount beneath a grant is not visible
//     (API 1.41 cannot make a recursive bind read-only throughout).
//   - --net host is refused; network none is the only mode besides proxy.
//   - The acbox binary bound into the container is trusted; it is refused
//     when it lies inside one of the plan's write grants.
//   - The member's exit status is passed as docker reports it (128+N for a
//     signal); Outcome.Signal is N read back from it, since the status is
//     all that crosses back: a member that exits with 128+N itself reads
//     as killed by N.
//
// # Platform notes
//
// Linux only, with a rootful Docker Engine on this host. The acbox binary
// must be static (make build), since the image may hold nothing else.
// Elsewhere (macOS) the package builds, and the backend reports itself
// unavailable, lacking and refusing every launch: its host-side checks
// (bind sources held by descriptor, the container's mounts seen through
// /proc/<pid>/root) need Linux, and a container is never started without
// them (host.go).
package docker
