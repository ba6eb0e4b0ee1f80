module github.com/acbox/acbox

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0 // indirect
	github.com/landlock-lsm/go-landlock v0.11.2 // indirect
	github.com/seccomp/libseccomp-golang v0.11.1 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
)
