package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/registry"
)

// PsCmd lists the live sandboxes of this user on this host, after removing
// the entries of dead owners.
type PsCmd struct {
	JSON bool `help:"Print a JSON array of registry entries."`
}

// Run reaps, lists and prints.
func (c *PsCmd) Run(s *Streams) error {
	l, err := hostLauncher()
	if err != nil {
		return err
	}
	if _, err := l.Reap(context.Background()); err != nil {
		return err
	}
	list, err := l.Registry.List()
	if err != nil {
		return err
	}
	if c.JSON {
		if list == nil {
			list = []registry.Entry{}
		}
		for i := range list {
			list[i].Plan = nil // what --within is judged against; acbox plan shows plans
		}
		b, _ := json.MarshalIndent(list, "", "  ")
		_, err = fmt.Fprintln(s.Out, string(b))
		return err
	}
	w := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tBACKEND\tOWNER\tHELPER\tUP\tLIMITS\tACCESS\tLABELS")
	for _, e := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cell(e.ID), cell(e.Backend), owner(e), helper(e),
			time.Since(e.Started).Round(time.Second), limits(e), accessSummary(e.Access), labels(e.Labels))
	}
	return w.Flush()
}

func owner(e registry.Entry) string {
	if e.Owner() == registry.OwnerElsewhere {
		return fmt.Sprintf("%d (other pid namespace)", e.OwnerPid)
	}
	return fmt.Sprint(e.OwnerPid)
}

func helper(e registry.Entry) string {
	if e.HelperPid == 0 {
		return "-"
	}
	return fmt.Sprint(e.HelperPid)
}

func limits(e registry.Entry) string {
	return fmt.Sprintf("%dMiB/%d", e.Memory>>20, e.Pids)
}

// accessSummary renders ACBOX_ACCESS as "rw:/a ro:/b net:none".
func accessSummary(raw json.RawMessage) string {
	var a struct {
		Read, Write []string
		Network     struct{ Mode string }
	}
	if json.Unmarshal(raw, &a) != nil {
		return "?"
	}
	var out []string
	if len(a.Write) > 0 {
		out = append(out, "rw:"+cells(a.Write))
	}
	if len(a.Read) > 0 {
		out = append(out, "ro:"+cells(a.Read))
	}
	return strings.Join(append(out, "net:"+cell(a.Network.Mode)), " ")
}

// cells renders a list of paths for the table, each through cell.
func cells(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = cell(p)
	}
	return strings.Join(out, ",")
}

// cell is a table cell naming s (policy.Quote): a path in a nested
// sandbox's grant is named by a member, and raw, a newline would forge a
// row of the table and an escape sequence would reach the terminal of
// whoever runs `acbox ps`; a comma or space would read as a separator.
func cell(s string) string { return policy.Quote(s) }

func labels(m map[string]string) string {
	var out []string
	for k, v := range m {
		// Keys hold no ',' or '=' (policy.CheckLabels); a value may, and
		// would read as more labels: such a value is quoted (cell).
		out = append(out, cell(k)+"="+cell(v))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ",")
}
