package probe

import "testing"

// TestCatalogueKeepsProbesOwnDockerVariant: a probe that carries its own
// docker variant keeps it when the catalogue joins the variants' table
// (res.ipc-within-memory ran its native check under docker and failed
// TestBackendsAgree when the table's nil overwrote it).
func TestCatalogueKeepsProbesOwnDockerVariant(t *testing.T) {
	for _, p := range catalogue() {
		if p.ID == "res.ipc-within-memory" {
			if p.Docker == nil {
				t.Fatal("res.ipc-within-memory lost its docker variant in the catalogue")
			}
			return
		}
	}
	t.Fatal("res.ipc-within-memory is not in the catalogue")
}
