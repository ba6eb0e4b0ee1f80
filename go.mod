module github.com/acbox/acbox

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/landlock-lsm/go-landlock v0.11.2
	github.com/moby/profiles/seccomp v0.3.0
	github.com/opencontainers/runtime-spec v1.2.1
	github.com/seccomp/libseccomp-golang v0.11.1
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78
)
