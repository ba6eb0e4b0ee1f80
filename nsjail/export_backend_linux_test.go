package nsjail

// SandboxCgroupParents are the cgroups that hold this process's sandbox
// cgroups (acbox-<id>), for tests that plant leftovers there.
func SandboxCgroupParents() []string { return hostCgroups.parents() }
