package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/acbox/acbox/coordinator/homes"
	"github.com/acbox/acbox/coordinator/policy"
)

// HomeCmd lists and removes the persisted homes of `run --home NAME`.
type HomeCmd struct {
	List HomeListCmd `cmd:"" help:"List the persisted homes: name, size, entries, last used."`
	Rm   HomeRmCmd   `cmd:"" name:"rm" help:"Remove a persisted home and everything in it (refused while a run uses it)."`
}

// HomeListCmd prints one home per line, or JSON.
type HomeListCmd struct {
	JSON bool `name:"json" help:"Print JSON."`
}

// Run lists the homes.
func (c *HomeListCmd) Run(s *Streams) error {
	h, err := policy.HostFromEnv()
	if err != nil {
		return err
	}
	list, err := homes.List(policy.HomesDir(h), h.UID)
	if err != nil {
		return err
	}
	if c.JSON {
		if list == nil {
			list = []homes.Info{}
		}
		b, _ := json.MarshalIndent(list, "", "  ")
		_, err = fmt.Fprintln(s.Out, string(b))
		return err
	}
	tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSIZE\tENTRIES\tLAST USED\tNOTE")
	for _, in := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", cell(in.Name), policy.FormatSize(in.Bytes), in.Entries, lastUsed(in.LastUsed), homeNote(in))
	}
	return tw.Flush()
}

func lastUsed(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func homeNote(in homes.Info) string {
	switch {
	case in.Problem != "":
		return "refused: " + in.Problem
	case in.OverQuota:
		return fmt.Sprintf("over the quota (%s or %d entries): the next run is refused", policy.FormatSize(homes.Quota), homes.MaxEntries)
	}
	return ""
}

// HomeRmCmd removes one home.
type HomeRmCmd struct {
	Name string `arg:"" help:"The home's name, as given to --home."`
}

// Run removes the home.
func (c *HomeRmCmd) Run(s *Streams) error {
	h, err := policy.HostFromEnv()
	if err != nil {
		return err
	}
	return homes.Remove(policy.HomesDir(h), c.Name, h.UID)
}
