//go:build !linux

package sys

func Unlinkat(int, string, int) error { return ErrUnsupported }
func Touch(int) error                 { return ErrUnsupported }
