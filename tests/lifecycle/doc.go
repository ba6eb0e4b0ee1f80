// Package lifecycle tests the life of sandboxes on a host from the built
// binary (ACBOX_BIN, build tag integration): the registry after owners are
// SIGKILLed (`acbox ps` shows none, `acbox gc` removes what they left), the
// admission cap under concurrent launches, `acbox stop`, and the memory and
// process limits against a fork bomb and a memory hog. When run as root,
// each test runs twice: as root (cgroups where the host has them) and as
// the unprivileged ACBOX_TEST_USER (default acbox-test, created with useradd
// when missing; rlimits).
package lifecycle
