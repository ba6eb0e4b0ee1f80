// Package acbox holds what the build embeds about the release: its semantic
// version (the VERSION file beside this one) and the version of the
// contract between acbox and its clients (docs/extension.md).
package acbox

import (
	_ "embed"
	"strings"
)

//go:embed VERSION
var version string

// Contract is the version of the client contract: the launch spec's
// "version", the events on --status-fd (docs/events.schema.json), the exit
// statuses and the access JSON members receive. A client checks it in
// `acbox version --json` before its first launch.
const Contract = 1

// Version is the release's semantic version, from the VERSION file.
func Version() string { return strings.TrimSpace(version) }
