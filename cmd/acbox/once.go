package main

import (
	"fmt"
	"reflect"

	"github.com/alecthomas/kong"

	"github.com/acbox/acbox/coordinator/policy"
)

// onlyOnce refuses a flag that takes one value and was given more than once.
// kong keeps the last; the spec refuses a key given twice (jsonstrict.go),
// and a later --net or --memory silently replacing an earlier one is how a
// wrapper's restriction would be lost. Repeatable flags (lists) and plain
// switches (--best-effort twice says the same) are exempt; --tty with
// --no-tty, or --wait given two durations, are not. The fast parser of
// `run` hands such a list to kong, so both paths refuse it.
func onlyOnce(ctx *kong.Context) error {
	seen := map[*kong.Flag]bool{}
	for _, p := range ctx.Path {
		f := p.Flag
		if f == nil || p.Resolved || f.IsCumulative() || f.IsCounter() || f.Target.Kind() == reflect.Bool {
			continue
		}
		if seen[f] {
			return fmt.Errorf("%w: --%s is given more than once; give it once (acbox does not pick one of them)", policy.ErrInvalid, f.Name)
		}
		seen[f] = true
	}
	return nil
}
