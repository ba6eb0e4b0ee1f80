package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// The admission queue: launches that wait for a slot (--wait) hold a
// ticket, a file StateDir/queue/<seq>.json. Tickets are numbered in order
// under the registry lock (one more than the highest live ticket), and only
// the live ticket with the lowest number may take a free slot, so waiters
// are admitted first come, first served, across every acbox process of the
// user. A launch without --wait does not jump the queue: while anyone waits
// it is refused.
//
// A waiter that dies (killed, crashed, its machine's pid namespace gone)
// must not block those behind it: a ticket whose owner process is gone is
// removed by whoever looks next, and a ticket past its deadline (the
// waiter's --wait) is removed even when its owner cannot be checked (an
// owner in another pid namespace).

// Ticket is one waiter's place in the admission queue.
type Ticket struct {
	r    *Registry
	Seq  uint64
	name string
}

// ticketFile is a ticket's content: who waits, and until when.
type ticketFile struct {
	ID         string    `json:"id"` // the waiting sandbox's, whose run directory Sweep spares
	OwnerPid   int       `json:"owner_pid"`
	OwnerStart uint64    `json:"owner_start"`
	PidNS      uint64    `json:"pid_ns,omitempty"`
	Deadline   time.Time `json:"deadline"`
}

// Queue is what admission saw: how many of the user's sandboxes run (and
// how many foreign ones), and how many waiters are ahead.
type Queue struct {
	Admitted bool
	Running  int // this user's sandboxes in the registry
	Foreign  int // the backend's sandboxes the registry does not know
	Ahead    int // live tickets before this one (all of them without one)
}

func (r *Registry) queueDir() string { return filepath.Join(r.state, "queue") }

// Enqueue takes a ticket for sandbox id behind every live one; it is
// valid until deadline. Leave it when done, admitted or not.
func (r *Registry) Enqueue(id string, deadline time.Time) (*Ticket, error) {
	unlock, err := r.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	live, err := r.ticketsLocked()
	if err != nil {
		return nil, err
	}
	seq := uint64(1)
	if n := len(live); n > 0 {
		seq = live[n-1].seq + 1
	}
	start, err := ProcStart(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("%w: reading this process's start time: %w", policy.ErrCannotSandbox, err)
	}
	// The pid in the name keeps two tickets apart even if one numbered
	// the same was removed as expired while its owner still held it.
	t := &Ticket{r: r, Seq: seq, name: fmt.Sprintf("%020d-%d.json", seq, os.Getpid())}
	b, _ := json.Marshal(ticketFile{ID: id, OwnerPid: os.Getpid(), OwnerStart: start, PidNS: selfPidNS(), Deadline: deadline.UTC()})
	if err := writeFileAtomic(r.queueDir(), t.name, b); err != nil {
		return nil, fmt.Errorf("%w: admission queue: %w", policy.ErrCannotSandbox, err)
	}
	return t, nil
}

// Leave gives the ticket up. Leaving twice is not an error.
func (t *Ticket) Leave() error {
	if t == nil {
		return nil
	}
	err := os.Remove(filepath.Join(t.r.queueDir(), t.name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// liveTicket is a waiter's number and sandbox id.
type liveTicket struct {
	seq uint64
	id  string
}

// ticketsLocked returns the live tickets in order, removing the tickets
// of dead owners, expired tickets and damaged ones.
func (r *Registry) ticketsLocked() ([]liveTicket, error) {
	des, err := os.ReadDir(r.queueDir())
	if err != nil {
		return nil, fmt.Errorf("%w: admission queue: %w", policy.ErrCannotSandbox, err)
	}
	var live []liveTicket // numbers may repeat (see Enqueue)
	for _, de := range des {
		path := filepath.Join(r.queueDir(), de.Name())
		seq, ok := ticketSeq(de.Name())
		if !ok {
			removeStaleTemp(path)
			continue
		}
		tf, ok := ticketAlive(path)
		if !ok {
			os.Remove(path)
			continue
		}
		live = append(live, liveTicket{seq: seq, id: tf.ID})
	}
	sort.Slice(live, func(i, j int) bool { return live[i].seq < live[j].seq })
	return live, nil
}

// ticketSeq reads the number of a ticket file, SEQ-PID.json.
func ticketSeq(name string) (uint64, bool) {
	base, ok := strings.CutSuffix(name, ".json")
	num, _, cut := strings.Cut(base, "-")
	seq, err := strconv.ParseUint(num, 10, 64)
	return seq, ok && cut && err == nil
}

// removeStaleTemp removes a ticket's temp file that a waiter killed while
// writing it left (older than a minute: a write takes microseconds).
func removeStaleTemp(path string) {
	fi, err := os.Lstat(path)
	if err == nil && strings.HasPrefix(fi.Name(), ".tmp-") && time.Since(fi.ModTime()) > time.Minute {
		os.Remove(path)
	}
}

func ticketAlive(path string) (ticketFile, bool) {
	b, err := readStateFile(path)
	var tf ticketFile
	// A deadline further off than any wait may last (policy.MaxWait, plus
	// a minute of slack) was not written by acbox: it would hold the queue
	// for as long as its pid lives. Such a ticket counts as stale.
	now := time.Now()
	if err != nil || json.Unmarshal(b, &tf) != nil || now.After(tf.Deadline) || tf.Deadline.After(now.Add(policy.MaxWait+time.Minute)) {
		return tf, false
	}
	e := Entry{OwnerPid: tf.OwnerPid, OwnerStart: tf.OwnerStart, PidNS: tf.PidNS}
	return tf, e.Owner() != OwnerDead
}

// writeFileAtomic writes dir/name through a temp file and a rename, so
// that a reader never sees half a file.
func writeFileAtomic(dir, name string, b []byte) error {
	f, err := os.CreateTemp(dir, ".tmp-"+name+"-*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
