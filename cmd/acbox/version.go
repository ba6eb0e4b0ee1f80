package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
)

// VersionCmd prints the build.
type VersionCmd struct {
	JSON bool `help:"Print JSON."`
}

// Run prints the module version, VCS revision and dependency versions.
func (c *VersionCmd) Run(s *Streams) error {
	v := map[string]any{"version": "devel"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v["version"] = bi.Main.Version
		v["go"] = bi.GoVersion
		deps := map[string]string{}
		for _, d := range bi.Deps {
			deps[d.Path] = d.Version
		}
		v["deps"] = deps
		for _, st := range bi.Settings {
			if st.Key == "vcs.revision" || st.Key == "vcs.modified" {
				v[st.Key] = st.Value
			}
		}
	}
	if c.JSON {
		b, _ := json.MarshalIndent(v, "", "  ")
		_, err := fmt.Fprintln(s.Out, string(b))
		return err
	}
	_, err := fmt.Fprintf(s.Out, "acbox %v (%v) %v\n", v["version"], v["vcs.revision"], v["go"])
	return err
}
