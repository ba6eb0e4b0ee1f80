package sys

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

func TestRetryEINTR(t *testing.T) {
	n := 0
	err := pathErr("op", "/p", func() error {
		if n++; n < 3 {
			return syscall.EINTR
		}
		return syscall.EACCES
	})
	var pe *os.PathError
	if n != 3 || !errors.As(err, &pe) || pe.Op != "op" || pe.Path != "/p" || !errors.Is(err, syscall.EACCES) {
		t.Fatalf("after %d calls: %v", n, err)
	}
	if err := callErr("x", func() error { return nil }); err != nil {
		t.Fatalf("nil became %v", err)
	}
	if err := callErr("x", func() error { return syscall.EINTR }); !errors.Is(err, syscall.EINTR) {
		t.Fatalf("endless EINTR: %v", err)
	}
}
