package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/acbox/acbox/coordinator/policy"
)

// Entry is one live sandbox in the host registry: a JSON file
// StateDir/sandboxes/<id>.json written by the acbox process that owns the
// sandbox. Both backends record one; the backend fills in what only it knows
// (the helper's pid) with [Registry.Update].
type Entry struct {
	ID      string `json:"id"`
	Backend string `json:"backend"`
	UID     int    `json:"uid"`
	// OwnerPid is the acbox process that runs the sandbox; OwnerStart is
	// its start time (field 22 of /proc/<pid>/stat, clock ticks since boot),
	// so a reused pid is never taken for the owner. PidNS is the inode of
	// the owner's pid namespace: pids of another namespace mean nothing here.
	OwnerPid    int               `json:"owner_pid"`
	OwnerStart  uint64            `json:"owner_start"`
	PidNS       uint64            `json:"pid_ns,omitempty"`
	HelperPid   int               `json:"helper_pid,omitempty"`
	HelperStart uint64            `json:"helper_start,omitempty"`
	Access      json.RawMessage   `json:"access,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Memory      int64             `json:"memory"`
	Pids        int               `json:"pids"`
	Started     time.Time         `json:"started"`
	// Parent is the sandbox that launched this one through its broker
	// ("" from the host); Depth counts the nesting. `acbox stop` uses them
	// to stop children first, deepest first.
	Parent string `json:"parent,omitempty"`
	Depth  int    `json:"depth,omitempty"`
	// Within: Parent was named by `acbox run --within` (the spec's
	// "within"), not by a broker; the sandbox has its own owner, which
	// `acbox stop` signals as for a launch from the host.
	Within bool `json:"within,omitempty"`
	// Plan is what a launch --within this sandbox is held to (policy's
	// Narrower): the plan without its command and environment, which
	// narrowing does not read and which may hold secrets. It is trusted
	// because only this user can write it: the owner writes the entry
	// 0600 in the 0700 state directory that OpenRegistry checks is this
	// user's, so whoever could forge it could already launch anything.
	Plan json.RawMessage `json:"plan,omitempty"`
}

// Owner is what the registry knows about an entry's owner process.
type Owner int

const (
	// OwnerAlive: the owner pid runs and started at OwnerStart.
	OwnerAlive Owner = iota
	// OwnerDead: gone, a zombie, or the pid now belongs to another process.
	OwnerDead
	// OwnerElsewhere: the owner lives in another pid namespace; its entry is
	// counted for admission but never reaped or signalled from here.
	OwnerElsewhere
)

// NewEntry describes a sandbox about to start, owned by this process.
func NewEntry(p *policy.Plan, id string) (Entry, error) {
	start, err := ProcStart(os.Getpid())
	if err != nil {
		return Entry{}, fmt.Errorf("%w: reading this process's start time: %w", policy.ErrCannotSandbox, err)
	}
	return Entry{
		ID: id, Backend: p.Backend, UID: os.Getuid(), OwnerPid: os.Getpid(), OwnerStart: start,
		PidNS: selfPidNS(), Access: json.RawMessage(p.Access(true)), Labels: p.Labels,
		Memory: p.Limits.Memory, Pids: p.Limits.Pids, Started: time.Now().UTC(),
		Parent: p.Parent, Depth: p.Depth, Within: p.Within, Plan: narrowingPlan(p),
	}, nil
}

// narrowingPlan is the plan as Entry.Plan keeps it: no command, no
// environment, no mounts acbox added itself (its binary and broker
// socket, which no child may re-mount). Written by hand: see
// policy.AppendPlanJSON.
func narrowingPlan(p *policy.Plan) json.RawMessage {
	q := *p
	q.Command, q.Env = nil, nil
	q.Mounts = nil
	for _, m := range p.Mounts {
		if !m.Internal {
			q.Mounts = append(q.Mounts, m)
		}
	}
	return policy.AppendPlanJSON(nil, &q)
}

// Owner tells whether the entry's owner is still the process that wrote it.
func (e Entry) Owner() Owner {
	if e.PidNS != 0 && e.PidNS != selfPidNS() {
		return OwnerElsewhere
	}
	if sameProcess(e.OwnerPid, e.OwnerStart) {
		return OwnerAlive
	}
	return OwnerDead
}

// HelperAlive tells whether the recorded helper still runs.
func (e Entry) HelperAlive() bool {
	return e.HelperPid > 0 && e.Owner() != OwnerElsewhere && sameProcess(e.HelperPid, e.HelperStart)
}

// sameProcess: pid runs, is not a zombie, and started at start.
func sameProcess(pid int, start uint64) bool {
	got, err := ProcStart(pid)
	return err == nil && got == start
}

// Registry is the host registry of one user: StateDir/sandboxes. Every
// acbox process of the user shares it; admission and reaping hold the
// lock file StateDir/registry.lock.
type Registry struct {
	state string
}

// CheckID refuses ids that could name a path outside the registry: 1-64
// letters, digits, '-', '_' or '.', starting with a letter or digit, no "..".
// (Checked by hand: the equivalent regexp, ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$,
// compiled at package init cost every acbox process 0.15 ms and 861
// allocations, twice per launch.)
func CheckID(id string) error {
	if !validID(id) || strings.Contains(id, "..") {
		return policy.Invalid("sandbox id %q: want letters, digits, '-', '_' or '.'; see acbox ps", id)
	}
	return nil
}

// OpenRegistry opens (creating, 0700) the registry under stateDir. The
// state directory must belong to this user and be closed to others: an
// entry another user could write would be trusted for admission and stop.
func OpenRegistry(stateDir string) (*Registry, error) {
	if !filepath.IsAbs(stateDir) {
		return nil, fmt.Errorf("%w: state directory %q is not absolute; set XDG_RUNTIME_DIR or HOME", policy.ErrCannotSandbox, stateDir)
	}
	r := &Registry{state: stateDir}
	for _, d := range []string{stateDir, r.dir(), filepath.Join(stateDir, "run"), r.queueDir()} {
		if err := privateDir(d); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func privateDir(d string) error {
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("%w: creating %s: %w", policy.ErrCannotSandbox, d, err)
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("%w: %w", policy.ErrCannotSandbox, err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || fileUID(fi) != os.Getuid() {
		return policy.Refuse(d, "acbox's state directory must be a directory of yours, closed to others (0700)",
			fmt.Sprintf("run chmod 700 %s (and chown it to uid %d), or remove it, or set XDG_RUNTIME_DIR to a private directory of yours", d, os.Getuid()))
	}
	return nil
}

func (r *Registry) dir() string             { return filepath.Join(r.state, "sandboxes") }
func (r *Registry) file(id string) string   { return filepath.Join(r.dir(), id+".json") }
func (r *Registry) lockPath() string        { return filepath.Join(r.state, "registry.lock") }
func (r *Registry) RunDir(id string) string { return filepath.Join(r.state, "run", id) }

// Register writes the entry atomically (temp file, then rename), without
// admission. Launches go through [Registry.Admit] instead.
func (r *Registry) Register(e Entry) error {
	return r.write(e, os.Rename)
}

// write writes the entry to a temp file and moves it into place with put.
func (r *Registry) write(e Entry, put func(tmp, file string) error) error {
	if err := CheckID(e.ID); err != nil {
		return err
	}
	b, err := e.appendJSON(make([]byte, 0, 512+len(e.Plan)+len(e.Access)))
	if err != nil {
		return fmt.Errorf("%w: registry: %w", policy.ErrCannotSandbox, err)
	}
	// No fsync: the registry describes running processes, which a crash or
	// reboot ends anyway; a torn or lost entry is a dead entry.
	f, err := os.CreateTemp(r.dir(), ".tmp-"+e.ID+"-*")
	if err != nil {
		return fmt.Errorf("%w: registry: %w", policy.ErrCannotSandbox, err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = put(f.Name(), r.file(e.ID))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%w: registry: %w", policy.ErrCannotSandbox, err)
	}
	return nil
}

// Update changes a live entry (the backend recording its helper, say).
// The new entry replaces the old one atomically (replace).
func (r *Registry) Update(id string, f func(*Entry)) error {
	e, err := r.Get(id)
	if err != nil {
		return err
	}
	f(&e)
	e.ID = id
	return r.write(e, replace)
}

// Replace writes e over its entry, as [Registry.Update] does, without
// reading the entry back: for the owner, which holds what it wrote (the
// launch recording pid 1 when it is ready). As with Update, an entry
// removed meanwhile is written anew (see replace).
func (r *Registry) Replace(e Entry) error {
	return r.write(e, replace)
}

// Get reads one entry, dead or alive.
func (r *Registry) Get(id string) (Entry, error) {
	if err := CheckID(id); err != nil {
		return Entry{}, err
	}
	return readEntry(r.file(id))
}

// ErrNoSandbox is returned for an id with no registry entry.
var ErrNoSandbox = errors.New("no such sandbox")

func readEntry(path string) (Entry, error) {
	var e Entry
	b, err := readStateFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return e, fmt.Errorf("%w: %s; run acbox ps to list the live ones", ErrNoSandbox, strings.TrimSuffix(filepath.Base(path), ".json"))
	}
	if err != nil {
		return e, err
	}
	if fast, ok := decodeEntryFast(b); ok {
		return fast, nil
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("registry entry %s is damaged (%w); acbox gc removes it once its owner is gone", path, err)
	}
	return e, nil
}

// Remove deletes the entry and the sandbox's runtime directory. Removing
// what is already gone is not an error.
func (r *Registry) Remove(id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	err := os.Remove(r.file(id))
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if rerr := os.RemoveAll(r.RunDir(id)); err == nil {
		err = rerr
	}
	return err
}

// all reads every entry file, sorted by start time. A damaged file whose
// name is a valid id becomes an entry with no owner (dead), so that
// reaping removes it.
func (r *Registry) all() ([]Entry, error) { return r.allBut("") }

// allBut is all without the entry of sandbox skip, which is not read.
func (r *Registry) allBut(skip string) ([]Entry, error) {
	des, err := os.ReadDir(r.dir())
	if err != nil {
		return nil, fmt.Errorf("%w: registry: %w", policy.ErrCannotSandbox, err)
	}
	var out []Entry
	for _, de := range des {
		id, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || id == skip || CheckID(id) != nil {
			continue
		}
		e, err := readEntry(filepath.Join(r.dir(), de.Name()))
		if errors.Is(err, ErrNoSandbox) {
			continue // removed while we listed
		}
		e.ID = id
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}

// List returns the entries whose owner is alive (or lives in another pid
// namespace). It removes nothing; [Registry.Reap] does.
func (r *Registry) List() ([]Entry, error) { return r.ListOthers("") }

// ListOthers is List without sandbox id's own entry, which it does not
// read: a sandbox's end looks for the sandboxes launched within it, and
// decoding its own entry (with its plan) cost every launch about 0.7% of
// its CPU.
func (r *Registry) ListOthers(id string) ([]Entry, error) {
	es, err := r.allBut(id)
	var out []Entry
	for _, e := range es {
		if e.Owner() != OwnerDead {
			out = append(out, e)
		}
	}
	return out, err
}

// Reap removes, under the lock, every entry whose owner is dead, with its
// runtime directory, and returns what it removed so that backends can
// clean up after them (cgroups, containers). Admission-queue tickets of
// dead or expired waiters go too.
func (r *Registry) Reap() ([]Entry, error) {
	unlock, err := r.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	dead, _, err := r.reapLocked()
	if _, qerr := r.ticketsLocked(); err == nil {
		err = qerr
	}
	return dead, err
}

func (r *Registry) reapLocked() (dead, live []Entry, err error) {
	es, err := r.all()
	if err != nil {
		return nil, nil, err
	}
	for _, e := range es {
		if e.Owner() != OwnerDead {
			live = append(live, e)
			continue
		}
		if err := r.Remove(e.ID); err != nil {
			return dead, live, fmt.Errorf("removing the dead sandbox %s: %w", e.ID, err)
		}
		dead = append(dead, e)
	}
	return dead, live, nil
}

func validID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '-') {
			return false
		}
	}
	return true
}
