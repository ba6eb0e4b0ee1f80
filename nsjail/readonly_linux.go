package nsjail

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/acbox/acbox/coordinator/policy"
	"github.com/acbox/acbox/coordinator/sys"
)

// Every bind of a host inode that is not the member's to change is
// read-only. Landlock covers no change of metadata (chmod, chown,
// utimensat, setxattr), and the member owns, as uid 0 in its user
// namespace, whatever the caller owns: on a read-write bind it could
// change the host's own file, such as a root caller's /dev/null or the
// broker socket in the caller's state directory. A read-only bind refuses
// all four with EROFS before any permission check (mnt_want_write), and
// what the member needs of such a file still works: opening, reading and
// writing a device node (do_dentry_open exempts special files from the
// mount's write check) and connect(2) to a socket (which needs only write
// permission on the inode).
//
// The binds that stay read-write are the member's by the plan: write
// grants, runtime mounts the spec marks rw (the caller's own grant of that
// path), pins inside write grants, and the persisted home (the member's
// home, which it must write). acbox's own binds (the device nodes and
// everything under policy.DelegateDir: the broker socket, acbox's binary,
// the probe runner) are never read-write: verifyReadOnly refuses to start
// if one is.

// verifyReadOnly re-reads, in the finished root, every bind whose record
// says read-only and each of acbox's own binds, and requires a read-only
// mount there. A bind hidden by a later mount on the same target is judged
// by the one on top, which is what the member reaches.
func (r *rootfs) verifyReadOnly() error {
	for i, rec := range r.records {
		want, err := wantReadOnly(rec)
		if err != nil {
			return err
		}
		if !want || covered(r.records, i) {
			continue
		}
		if err := r.checkReadOnly(rec); err != nil {
			return err
		}
	}
	return nil
}

// wantReadOnly: whether rec's mount must be read-only in the new root; an
// error when it is one of acbox's own binds and its record is read-write.
func wantReadOnly(rec policy.MountRecord) (bool, error) {
	switch rec.Kind {
	case "dev", "system", "grant", "mount":
	default:
		return false, nil // tmpfs, proc, devpts, views, masks and carve-outs are checked where they are made
	}
	ro := flagsReadOnly(rec.Flags)
	if ownBind(rec) && !ro {
		return false, fmt.Errorf("acbox's own bind %s (of %s) is read-write (%s), which would let the member change the host's file: refusing to start (a bug in acbox; report it)", policy.Quote(rec.Target), policy.Quote(rec.Source), rec.Flags)
	}
	return ro, nil
}

// ownBind: a bind acbox makes for itself: a device node or anything under
// the delegation directory.
func ownBind(rec policy.MountRecord) bool {
	switch rec.Kind {
	case "dev":
		return rec.Source != "" // the nodes; "/dev" itself is the sandbox's tmpfs
	case "mount":
		return rec.Target == policy.DelegateDir || strings.HasPrefix(rec.Target, policy.DelegateDir+"/")
	}
	return false
}

// flagsReadOnly: a record's flags (attrNames, then options after a comma)
// name RDONLY.
func flagsReadOnly(flags string) bool {
	attrs, _, _ := strings.Cut(flags, ",")
	return slices.Contains(strings.Split(attrs, "|"), "RDONLY")
}

// covered: a later record mounts on the same target.
func covered(recs []policy.MountRecord, i int) bool {
	for _, r := range recs[i+1:] {
		if r.Target == recs[i].Target {
			return true
		}
	}
	return false
}

func (r *rootfs) checkReadOnly(rec policy.MountRecord) error {
	fd, err := openNoFollow(r.root, strings.TrimPrefix(rec.Target, "/"), false, true)
	if err != nil {
		return fmt.Errorf("%s %s cannot be checked for read-only in the new root: %w (it changed since it was mounted; retry)", rec.Kind, policy.Quote(rec.Target), err)
	}
	defer sys.Close(fd)
	var st unix.Statfs_t
	if err := sys.Fstatfs(fd, rec.Target, &st); err != nil {
		return err
	}
	if st.Flags&unix.ST_RDONLY == 0 {
		return fmt.Errorf("%s %s is mounted read-write in the new root, though it should be read-only: refusing to start (a bug in acbox; report it)", rec.Kind, policy.Quote(rec.Target))
	}
	return nil
}
