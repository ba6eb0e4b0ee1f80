//go:build !linux

package sys

func Mkdirat(int, string, uint32) error { return ErrUnsupported }
func Unlinkat(int, string, int) error   { return ErrUnsupported }
func Touch(int) error                   { return ErrUnsupported }
