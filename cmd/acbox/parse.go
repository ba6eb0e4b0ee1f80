package main

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/alecthomas/kong"
)

// parseOptions are the kong options every acbox command tree is built
// with: values are taken whole, numbers are read in acbox's words, and a
// flag given a value that reads as leaving it out is refused.
func parseOptions() []kong.Option {
	return []kong.Option{
		kong.PostBuild(wholeValues),
		kong.Help(helpWithExamples),
		kong.KindMapper(reflect.String, stringMapper{}),
		kong.KindMapper(reflect.Int, intMapper{}),
		kong.KindMapper(reflect.Uint16, portMapper{}),
	}
}

// wholeValues turns off kong's splitting of repeatable flags on commas
// (and of map flags on semicolons) for every flag of the tree, including
// flags added later: a value is one value (`--env FOO=a,b`, `-r ~/w/a,b`);
// repeat the flag for more, as docker and env(1) do.
func wholeValues(k *kong.Kong) error {
	return kong.Visit(k.Model, func(n kong.Visitable, next kong.Next) error {
		if f, ok := n.(*kong.Flag); ok {
			f.Tag.Sep, f.Tag.MapSep = -1, -1
		}
		if v, ok := n.(*kong.Value); ok && v.Tag != nil {
			v.Tag.Sep, v.Tag.MapSep = -1, -1
		}
		return next(nil)
	})
}

// stringMapper refuses an empty value for a flag (`--memory ""`, `--cwd
// ""`, `--socket ""`, `--read ""`): it would silently read as the default,
// which is not what a person who typed it meant. Arguments of the command
// (after --) may be empty.
type stringMapper struct{}

func (stringMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	t, err := ctx.Scan.PopValue("value")
	if err != nil {
		return err
	}
	s := fmt.Sprint(t.Value)
	if s == "" && isFlag(ctx) {
		if ctx.Value.Required {
			return errors.New("the value is empty: give a value")
		}
		return errors.New("the value is empty: leave the flag out for the default, or give a value")
	}
	target.SetString(s)
	return nil
}

func isFlag(ctx *kong.DecodeContext) bool { return ctx.Value != nil && ctx.Value.Flag != nil }

// intMapper reads a whole number in base 10 (kong's own reads "010" as
// octal and says "expected a valid 64 bit int").
type intMapper struct{}

func (intMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	t, err := ctx.Scan.PopValue("number")
	if err != nil {
		return err
	}
	s := fmt.Sprint(t.Value)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n != int64(int(n)) {
		return fmt.Errorf("want a whole number such as 64, got %q", s)
	}
	if n == 0 && isFlag(ctx) && !ctx.Value.HasDefault {
		return errors.New("0 would read as leaving the flag out: leave it out for the default, or give a positive number")
	}
	target.SetInt(n)
	return nil
}

// portMapper reads a TCP port (the only uint16 flags are ports).
type portMapper struct{}

func (portMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	t, err := ctx.Scan.PopValue("port")
	if err != nil {
		return err
	}
	s := fmt.Sprint(t.Value)
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil || n == 0 {
		return fmt.Errorf("want a TCP port number from 1 to 65535, got %q", s)
	}
	target.SetUint(n)
	return nil
}
