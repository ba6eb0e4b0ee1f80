package profile

import mobyseccomp "github.com/moby/profiles/seccomp"

// defaultProfile is docker's default profile, which moby builds on Linux only.
func defaultProfile() *mobyseccomp.Seccomp { return mobyseccomp.DefaultProfile() }
