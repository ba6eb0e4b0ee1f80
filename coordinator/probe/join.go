package probe

import "fmt"

// joinedOracles pairs a probe whose own verdict can only be info (what it
// did stayed inside, as far as it can see) with the outside oracle that
// decides it.
var joinedOracles = map[string]string{
	"net.udp-host-loopback": "oracle.udp-received",
	"fs.write-host-path":    "oracle.host-dir-unchanged",
}

// JoinOracles gives each paired probe line with an info verdict its
// oracle's verdict, and the oracle's detail after its own. The oracle
// lines stay as they are.
func JoinOracles(lines []Line) []Line {
	byID := map[string]Line{}
	for _, l := range lines {
		byID[l.ID] = l
	}
	out := make([]Line, len(lines))
	for i, l := range lines {
		if o, ok := byID[joinedOracles[l.ID]]; ok && l.Result == Info {
			l.Result = o.Result
			l.Detail = join([]string{l.Detail, o.ID + ": " + o.Detail})
		}
		out[i] = l
	}
	return out
}

// String renders a line for the readable table.
func (l Line) String() string {
	return fmt.Sprintf("%-5s %-32s %s", l.Result, l.ID, l.Detail)
}
