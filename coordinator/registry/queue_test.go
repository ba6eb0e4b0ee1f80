//go:build linux

package registry

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// TestQueueOrder: tickets are served first come, first served; a launch
// without a ticket does not jump the queue; a waiter is admitted only
// when a slot is free and no live ticket is ahead of it.
func TestQueueOrder(t *testing.T) {
	r := newRegistry(t)
	c := Cap{Max: 1, From: "test"}
	if _, err := r.Admit(selfEntry(t, "holder"), c); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	first, _ := r.Enqueue("first", deadline)
	second, _ := r.Enqueue("second", deadline)
	if second.Seq <= first.Seq {
		t.Fatalf("seq %d after %d", second.Seq, first.Seq)
	}
	if q, _, err := r.TryAdmit(selfEntry(t, "first"), c, nil, first); err != nil || q.Admitted || q.Ahead != 0 || q.Running != 1 {
		t.Fatalf("first while the slot is taken: %+v, %v", q, err)
	}
	r.Remove("holder")
	if q, _, err := r.TryAdmit(selfEntry(t, "second"), c, nil, second); err != nil || q.Admitted || q.Ahead != 1 {
		t.Fatalf("second ahead of first: %+v, %v", q, err)
	}
	_, err := r.AdmitCounting(selfEntry(t, "jumper"), c, nil)
	if !errors.Is(err, policy.ErrRefused) || !strings.Contains(err.Error(), "2 launches wait for a slot before this one") {
		t.Fatalf("a launch without --wait while two wait: %v", err)
	}
	if q, _, err := r.TryAdmit(selfEntry(t, "first"), c, nil, first); err != nil || !q.Admitted {
		t.Fatalf("first, slot free: %+v, %v", q, err)
	}
	if ts := queueFiles(t, r); len(ts) != 1 {
		t.Errorf("the admitted waiter's ticket is still queued: %v", ts)
	}
	second.Leave()
	second.Leave() // twice is fine
	if ts := queueFiles(t, r); len(ts) != 0 {
		t.Errorf("queue after both left: %v", ts)
	}
}

// TestQueueDeadWaiters: a ticket whose owner is dead, one past its
// deadline, one with a deadline beyond any wait and a damaged one block nobody and are removed by the next
// look (or by Reap); a waiting launch's run directory survives Sweep.
func TestQueueDeadWaiters(t *testing.T) {
	r := newRegistry(t)
	c := Cap{Max: 1, From: "test"}
	dead := deadEntry(t, "x")
	write := func(name string, tf ticketFile) {
		b, _ := json.Marshal(tf)
		os.WriteFile(filepath.Join(r.queueDir(), name), b, 0o600)
	}
	write("00000000000000000001-1.json", ticketFile{ID: "dead", OwnerPid: dead.OwnerPid, OwnerStart: dead.OwnerStart, PidNS: dead.PidNS, Deadline: time.Now().Add(time.Hour)})
	write("00000000000000000002-1.json", ticketFile{ID: "expired", OwnerPid: os.Getpid(), OwnerStart: selfEntry(t, "y").OwnerStart, PidNS: 1, Deadline: time.Now().Add(-time.Second)})
	os.WriteFile(filepath.Join(r.queueDir(), "00000000000000000003-1.json"), []byte("{"), 0o600)
	// A live owner with a deadline no wait can have (forged: --wait is at
	// most policy.MaxWait) must not hold the queue for its pid's life.
	write("00000000000000000004-1.json", ticketFile{ID: "forged", OwnerPid: os.Getpid(), OwnerStart: selfEntry(t, "z").OwnerStart, PidNS: selfPidNS(), Deadline: time.Now().AddDate(100, 0, 0)})
	me, err := r.Enqueue("me", time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(r.RunDir("me"), 0o700)
	os.MkdirAll(r.RunDir("gone"), 0o700)
	swept, err := r.Sweep()
	if err != nil || len(swept) != 1 || filepath.Base(swept[0]) != "gone" {
		t.Errorf("Sweep removed %v (%v); want the run directory of gone only", swept, err)
	}
	if q, _, err := r.TryAdmit(selfEntry(t, "me"), c, nil, me); err != nil || !q.Admitted {
		t.Fatalf("behind dead, expired and damaged tickets: %+v, %v", q, err)
	}
	if ts := queueFiles(t, r); len(ts) != 0 {
		t.Errorf("queue left: %v", ts)
	}
}

func queueFiles(t *testing.T, r *Registry) []string {
	des, err := os.ReadDir(r.queueDir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}
