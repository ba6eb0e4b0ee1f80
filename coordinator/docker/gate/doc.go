// Package gate is the docker backend's start-gate protocol: the messages
// the in-container init and the parent exchange before the member runs
// (see the comment in gate.go for the exchange), the init's side of it
// (Ask), and the fstat and self-inspection the init answers with
// (StatPaths, ReadSelf). The parent's side lives in package
// coordinator/docker; both import this package so that neither carries the
// other's code. It makes no network connection beyond the gate's Unix
// socket and imports nothing of acbox.
package gate
