package probe

import (
	"strings"
	"testing"
)

func TestReadLinesDropsFloodAndKeepsResults(t *testing.T) {
	flood := strings.Repeat(strings.Repeat("x", 200_000)+"\n", 3)
	in := flood + `{"id":"a","result":"pass"}` + "\n" + "{not json\n" + `{"id":"b","result":"fail"}`
	got := readLines(strings.NewReader(in))
	if len(got) != 2 || got[0].ID != "a" || got[1].Result != Fail {
		t.Errorf("got %+v", got)
	}
}
