package main

import (
	_ "embed"
	"strings"
)

// The release's semantic version: the VERSION file beside this one, which
// the build embeds (the repository's top level holds only what its layout
// names, so the file lives with the program that reports it).
//
//go:embed VERSION
var versionFile string

// contract is the version of the client contract: the launch spec's
// "version", the events on --status-fd (docs/events.schema.json), the exit
// statuses and the access JSON members receive. A client checks it in
// `acbox version --json` before its first launch (docs/extension.md).
const contract = 1

// releaseVersion is the release's semantic version, from VERSION.
func releaseVersion() string { return strings.TrimSpace(versionFile) }
