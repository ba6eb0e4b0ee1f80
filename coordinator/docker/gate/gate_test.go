package gate

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestReadGateMsgBounds(t *testing.T) {
	big := `{"token":"` + strings.Repeat("a", MaxMsg) + `"}` + "\n"
	var h Hello
	if err := ReadMsg(bufio.NewReader(strings.NewReader(big)), &h); err == nil {
		t.Error("an oversize message was accepted")
	}
	if err := ReadMsg(bufio.NewReader(strings.NewReader(`{"token":"t"}`+"\n")), &h); err != nil || h.Token != "t" {
		t.Errorf("token %q, %v", h.Token, err)
	}
}

func FuzzReadGateMsg(f *testing.F) {
	f.Add([]byte(`{"release":true,"env":["A=1"]}` + "\n"))
	f.Add([]byte(`{"stat":["/a"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Release
		if ReadMsg(bufio.NewReader(bytes.NewReader(b)), &r) == nil && r.Release && r.Refused != "" && !bytes.Contains(b, []byte("refused")) {
			t.Fatalf("release with a refusal out of nowhere: %q", b)
		}
	})
}
