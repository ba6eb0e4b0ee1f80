package main

import (
	"errors"
	"fmt"

	"github.com/alecthomas/kong"

	"github.com/acbox/acbox/coordinator/policy"
)

// AdmissionFlags are the launch flags about admission and listing, not
// about what the member may reach: --wait and --label.
type AdmissionFlags struct {
	Wait  waitFlag `placeholder:"" help:"--wait[=DURATION]: when this user's sandbox cap is reached, queue for a slot (in order, up to DURATION, default 10m) instead of failing at once."`
	Label []string `sep:"none" placeholder:"KEY=VALUE" help:"Label the sandbox; acbox ps shows labels (repeatable)."`
}

// applyAdmission adds the flags to the spec: --wait replaces the spec's
// wait, labels add to (and override) the spec's.
func (f *AdmissionFlags) applyAdmission(s *policy.Spec) error {
	if f.Wait.set {
		s.Wait = f.Wait.value
	}
	for _, kv := range f.Label {
		k, v, err := policy.ParseLabelFlag(kv)
		if err != nil {
			return err
		}
		if s.Labels == nil {
			s.Labels = map[string]string{}
		}
		s.Labels[k] = v
	}
	return nil
}

// waitFlag is a flag with an optional value: --wait alone means
// policy.DefaultWait, --wait=DURATION that duration. "--wait 5m" is not
// read as a value: the next word may be the command.
type waitFlag struct {
	set   bool
	value string
}

// Decode implements kong.MapperValue.
func (w *waitFlag) Decode(ctx *kong.DecodeContext) error {
	w.set, w.value = true, policy.DefaultWait.String()
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		return nil
	}
	t := ctx.Scan.Pop()
	s, ok := t.Value.(string)
	if !ok {
		return fmt.Errorf("--wait=%v: want a duration such as 30s, 10m or 1h", t.Value)
	}
	if s == "" { // ParseWait reads "" as no wait; the spec's "wait": "" is refused too
		return errors.New("the value is empty: give --wait alone for the default (" + policy.DefaultWait.String() + "), or --wait=DURATION")
	}
	if _, err := policy.ParseWait(s); err != nil {
		return err
	}
	w.value = s
	return nil
}

// IsBool lets --wait stand without a value.
func (w *waitFlag) IsBool() bool { return true }
