/*
 * pid1.c: a MEASUREMENT prototype of acbox's sandbox pid 1 written in C.
 * Not shipped, not built by make, not a security boundary: see README.md.
 *
 * It is exec'd by the real acbox parent in place of acbox-init (a scratch
 * build of acbox whose nsjail.Options.Exe is taken from ACBOX_BENCH_PID1)
 * and does, for the plain `acbox run -- true` plan, the same kind and
 * amount of kernel work as the Go pid 1 (nsjail/helper_linux.go and the
 * files it calls), in the same order, as recorded by strace -f:
 *   close_range sweep, config line from fd 3, entering the v1 cgroup
 *   leaves, the /etc and /etc/ssh views (tmpfs snapshots with one
 *   open_tree clone + move_mount per entry), clones of /usr /etc /opt and
 *   the six /dev nodes, staging tmpfs, system symlinks, /proc with
 *   hidepid, /dev tmpfs + devpts + /dev/shm, the plan's tmpfs, read-only
 *   root, pivot_root, namespace inodes, sethostname, loopback up,
 *   dumpable off, release byte, rlimits, /proc/sys/user caps, pid 1's own
 *   capability drop, then a forked member: securebits, bounding set drop,
 *   no_new_privs, Landlock (same rules), the embedded seccomp BPF,
 *   PATH lookup, RLIMIT_DATA, exec; ready and exit messages on fd 4.
 * What it parses of the JSON config is only: id, command, env, cwd, gid,
 * tmpfs, cgroup_leaves, user_counters and whether there are views (plain
 * strings, no escapes). The rest of the plan (system directories, the
 * views' paths and hidden names, Landlock paths) is the default plan's,
 * hard-coded; grants, runtime mounts, proxy and tty are not handled. Errors abort with exit 126 and an error line.
 *
 * Build: gcc -O2 -static -o pid1 pid1.c \
 *          -DBPF_FILE='"<repo>/coordinator/seccomp/filter_amd64.bpf"'
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef BPF_FILE
#error "build with -DBPF_FILE='\"path/to/coordinator/seccomp/filter_amd64.bpf\"'"
#endif

/* The seccomp program acbox embeds, linked in as raw sock_filter records. */
__asm__(".section .rodata\nbpf_real_start:\n.incbin \"" BPF_FILE "\"\nbpf_real_end:\n.previous\n");
extern const char bpf_real_start[], bpf_real_end[];

#define STATUS_FD 4

static void die(const char *step, int err)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "{\"kind\":\"error\",\"error\":\"%s: %s\",\"step\":\"%s\"}\n",
			 step, strerror(err), step);
	(void)!write(STATUS_FD, buf, n);
	_exit(126);
}
#define CHECK(expr, step) do { if ((expr) < 0) die(step, errno); } while (0)

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- raw syscalls glibc may not wrap ---- */
static int sys_openat2(int dfd, const char *p, uint64_t flags, uint64_t resolve)
{
	struct { uint64_t flags, mode, resolve; } how = { flags, 0, resolve };
	return syscall(SYS_openat2, dfd, p, &how, sizeof how);
}
static int sys_open_tree(int dfd, const char *p, unsigned flags) { return syscall(SYS_open_tree, dfd, p, flags); }
static int sys_move_mount(int f, const char *fp, int t, const char *tp, unsigned fl)
{
	return syscall(SYS_move_mount, f, fp, t, tp, fl);
}
static int sys_setattr(int fd, const char *p, unsigned fl, uint64_t set)
{
	struct mount_attr a = { .attr_set = set };
	return syscall(SYS_mount_setattr, fd, p, fl, &a, sizeof a);
}
static int sys_fsopen(const char *fs) { return syscall(SYS_fsopen, fs, FSOPEN_CLOEXEC); }
static int sys_fsconfig(int fd, unsigned cmd, const char *k, const char *v)
{
	return syscall(SYS_fsconfig, fd, cmd, k, v, 0);
}
static int sys_fsmount(int fd, unsigned attrs) { return syscall(SYS_fsmount, fd, FSMOUNT_CLOEXEC, attrs); }

#define RES_NOLINK (RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS)
#define O_PATHDIR (O_RDONLY | O_CLOEXEC | O_PATH | O_DIRECTORY)
#define RO_ATTRS (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define VIEW_ATTRS (RO_ATTRS | MOUNT_ATTR_NOEXEC)

/* ---- the few config fields read ---- */
struct tmpfs { char target[256]; long long size; };
struct counter { char name[64]; long long cap; };
static struct {
	long gid;
	struct tmpfs tmpfs[8]; int ntmpfs;
	int leaves[8]; int nleaves;
	struct counter ctr[16]; int nctr;
	char id[64];
	char *argv[16]; /* the command, strings without escapes only */
	char *env[24];
	char cwd[256];
	int views; /* the plan has views (root: /etc and /etc/ssh) */
} cfg;

/* strings parses a JSON array of plain strings (no escapes) at p. */
static void strings(const char *p, char **out, int max)
{
	for (int i = 0; i < max - 1 && *p == '"'; i++) {
		const char *end = strchr(p + 1, '"');
		out[i] = strndup(p + 1, end - p - 1);
		p = end + 1;
		if (*p == ',') p++;
	}
}

static const char *after(const char *s, const char *key) { const char *p = strstr(s, key); return p ? p + strlen(key) : NULL; }

static void parse_config(const char *js)
{
	const char *p = after(js, "\"id\":\"");
	if (p) sscanf(p, "%63[^\"]", cfg.id);
	if ((p = after(js, "\"command\":[")))
		strings(p, cfg.argv, 16);
	if ((p = after(js, "\"env\":[")))
		strings(p, cfg.env, 22);
	if ((p = after(js, "\"cwd\":\"")))
		sscanf(p, "%255[^\"]", cfg.cwd);
	cfg.views = strstr(js, "\"views\":[{") != NULL;
	p = after(js, "\"gid\":");
	cfg.gid = p ? strtol(p, NULL, 10) : -1;
	if ((p = after(js, "\"tmpfs\":[")))
		while (cfg.ntmpfs < 8 && (p = strstr(p, "{\"target\":\"")) && p < strchr(p, ']') + 1) {
			struct tmpfs *t = &cfg.tmpfs[cfg.ntmpfs++];
			sscanf(p, "{\"target\":\"%255[^\"]\",\"size\":%lld", t->target, &t->size);
			p = strchr(p, '}');
			if (p[1] != ',') break;
		}
	if ((p = after(js, "\"cgroup_leaves\":[")))
		for (char *e; cfg.nleaves < 8; p = e + 1) {
			cfg.leaves[cfg.nleaves++] = strtol(p, &e, 10);
			if (*e != ',') break;
		}
	if ((p = after(js, "\"user_counters\":[")))
		while (cfg.nctr < 16 && (p = strstr(p, "{\"name\":\""))) {
			struct counter *c = &cfg.ctr[cfg.nctr++];
			sscanf(p, "{\"name\":\"%63[^\"]\"", c->name);
			c->cap = strtoll(after(p, "\"cap\":"), NULL, 10);
			p = strchr(p, '}');
			if (p[1] != ',') break;
		}
}

/* ---- rootfs ---- */
struct entry { char name[256]; char link[256]; mode_t kind; dev_t dev; ino_t ino; };

static int list_entries(int under, struct entry *out, int max, const char **hide, const char *glob)
{
	int fd = openat(under, ".", O_RDONLY | O_CLOEXEC | O_DIRECTORY), n = 0;
	CHECK(fd, "open view dir");
	DIR *d = fdopendir(fd);
	for (struct dirent *de; (de = readdir(d)) && n < max;) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		int skip = 0;
		for (const char **h = hide; h && *h; h++) skip |= !strcmp(*h, de->d_name);
		if (glob && !fnmatch(glob, de->d_name, 0)) skip = 1;
		if (skip) continue;
		struct entry *e = &out[n];
		struct stat st;
		if (fstatat(under, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) continue;
		snprintf(e->name, sizeof e->name, "%s", de->d_name);
		e->kind = S_ISDIR(st.st_mode) ? S_IFDIR : S_ISLNK(st.st_mode) ? S_IFLNK : S_IFREG;
		e->dev = st.st_dev, e->ino = st.st_ino;
		if (e->kind == S_IFLNK) {
			ssize_t l = readlinkat(under, e->name, e->link, sizeof e->link - 1);
			if (l < 0) continue;
			e->link[l] = 0;
		}
		n++;
	}
	closedir(d);
	return n;
}

static int view_tmpfs(int under, int n)
{
	struct stat st;
	char v[32];
	CHECK(fstat(under, &st), "fstat view");
	int fs = sys_fsopen("tmpfs");
	CHECK(fs, "fsopen");
	sys_fsconfig(fs, FSCONFIG_SET_STRING, "size", "1m");
	snprintf(v, sizeof v, "%d", n + 8);
	sys_fsconfig(fs, FSCONFIG_SET_STRING, "nr_inodes", v);
	snprintf(v, sizeof v, "%o", st.st_mode & 07777);
	sys_fsconfig(fs, FSCONFIG_SET_STRING, "mode", v);
	if (st.st_uid == getuid() && st.st_gid == getgid()) {
		snprintf(v, sizeof v, "%u", st.st_uid);
		sys_fsconfig(fs, FSCONFIG_SET_STRING, "uid", v);
		snprintf(v, sizeof v, "%u", st.st_gid);
		sys_fsconfig(fs, FSCONFIG_SET_STRING, "gid", v);
	}
	CHECK(sys_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL), "fsconfig create");
	int m = sys_fsmount(fs, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	CHECK(m, "fsmount");
	close(fs);
	return m;
}

static struct entry etc_ents[1024], ssh_ents[64];
static int etc_n, ssh_n;

/* snapshot builds a view of the directory open at under onto at; the child
 * view /etc/ssh is built inside /etc's snapshot, as the Go pid 1 does. */
static int snapshot(int under, int at, struct entry *ents, int max, const char **hide, const char *glob, int *count)
{
	int n = list_entries(under, ents, max, hide, glob);
	int mnt = view_tmpfs(under, n);
	for (int i = 0; i < n; i++) {
		struct entry *e = &ents[i];
		int r = e->kind == S_IFDIR ? mkdirat(mnt, e->name, 0755)
		      : e->kind == S_IFLNK ? symlinkat(e->link, mnt, e->name)
		      : mknodat(mnt, e->name, S_IFREG | 0644, 0);
		CHECK(r, "view placeholder");
	}
	CHECK(sys_move_mount(mnt, "", at, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH), "move view");
	*count = n;
	return mnt;
}

static void fill(int under, int mnt, struct entry *ents, int n, int is_etc)
{
	for (int i = 0; i < n; i++) {
		struct entry *e = &ents[i];
		if (e->kind == S_IFLNK) continue;
		if (is_etc && !strcmp(e->name, "ssh")) {
			int src = sys_openat2(under, "ssh", O_PATHDIR, RES_NOLINK | RESOLVE_BENEATH);
			CHECK(src, "open ssh");
			struct stat st;
			fstat(src, &st);
			int dst = sys_openat2(mnt, "ssh", O_PATHDIR, RES_NOLINK | RESOLVE_BENEATH);
			CHECK(dst, "open ssh placeholder");
			static const char *none[] = { NULL };
			int m = snapshot(src, dst, ssh_ents, 64, none, "ssh_host_*", &ssh_n);
			fill(src, m, ssh_ents, ssh_n, 0);
			CHECK(sys_setattr(m, "", AT_EMPTY_PATH, VIEW_ATTRS), "view ro");
			struct stat vs;
			fstat(m, &vs);
			close(m), close(src), close(dst);
			continue;
		}
		int t = sys_open_tree(under, e->name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
		CHECK(t, "open_tree entry");
		struct stat st;
		fstat(t, &st);
		if (st.st_dev != e->dev || st.st_ino != e->ino) die("entry changed", ESTALE);
		CHECK(sys_move_mount(t, "", mnt, e->name, MOVE_MOUNT_F_EMPTY_PATH), "move entry");
		close(t);
	}
}

static int clone_dir(const char *path, uint64_t attrs, int dir)
{
	int fd = sys_openat2(AT_FDCWD, path, dir ? O_PATHDIR : (O_RDONLY | O_CLOEXEC | O_PATH), RES_NOLINK);
	CHECK(fd, path);
	struct stat st;
	if (dir) fstat(fd, &st);
	int t = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	CHECK(t, "open_tree");
	close(fd);
	CHECK(sys_setattr(t, "", AT_EMPTY_PATH | AT_RECURSIVE, attrs), "mount_setattr");
	return t;
}

/* mkdir_beneath opens (creating each missing component) rel below root. */
static int mkdir_beneath(int root, const char *rel, mode_t mode)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", rel);
	int cur = dup(root);
	for (char *s = buf, *slash; s && *s; s = slash ? slash + 1 : NULL) {
		if ((slash = strchr(s, '/'))) *slash = 0;
		int fd = sys_openat2(cur, s, O_PATHDIR, RES_NOLINK | RESOLVE_BENEATH);
		if (fd < 0 && errno == ENOENT) {
			CHECK(mkdirat(cur, s, slash ? 0755 : mode), "mkdirat");
			fd = sys_openat2(cur, s, O_PATHDIR, RES_NOLINK | RESOLVE_BENEATH);
		}
		CHECK(fd, rel);
		close(cur);
		cur = fd;
	}
	return cur;
}

static int file_beneath(int dir, const char *name)
{
	int fd = sys_openat2(dir, name, O_RDONLY | O_CLOEXEC | O_PATH, RES_NOLINK | RESOLVE_BENEATH);
	if (fd < 0 && errno == ENOENT) {
		int c = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		CHECK(c, "create dev placeholder");
		close(c);
		fd = sys_openat2(dir, name, O_RDONLY | O_CLOEXEC | O_PATH, RES_NOLINK | RESOLVE_BENEATH);
	}
	CHECK(fd, name);
	return fd;
}

static void mount_at(const char *type, int fd, unsigned long flags, const char *data)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	CHECK(mount(type, p, type, flags, data), type);
}

static void attach(int root, const char *rel, int tree)
{
	int dst = mkdir_beneath(root, rel, 0755);
	CHECK(sys_move_mount(tree, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH), rel);
	close(tree), close(dst);
}

static const char *devnodes[] = { "null", "zero", "full", "random", "urandom", "tty" };

static void build_rootfs(void)
{
	static const char *etc_hide[] = { "shadow", "gshadow", "shadow-", "gshadow-", NULL };
	CHECK(mount("", "/", NULL, MS_REC | MS_PRIVATE, NULL), "make private");
	struct stat st;
	if (cfg.views) { /* the /etc view, on /etc's own directory entry */
		int etc = sys_openat2(AT_FDCWD, "/etc", O_PATHDIR, RES_NOLINK);
		CHECK(etc, "open /etc");
		fstat(etc, &st);
		int vm = snapshot(etc, etc, etc_ents, 1024, etc_hide, NULL, &etc_n);
		fill(etc, vm, etc_ents, etc_n, 1);
		CHECK(sys_setattr(vm, "", AT_EMPTY_PATH, VIEW_ATTRS), "view ro");
		fstat(vm, &st);
		close(vm), close(etc);
	}
	/* system directories and devices, cloned before anything is hidden */
	int usr = clone_dir("/usr", RO_ATTRS, 1);
	int etcv; /* the view's anchor, moved; or a clone of /etc */
	if (cfg.views) {
		etcv = sys_open_tree(AT_FDCWD, "/etc", OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
		CHECK(etcv, "open_tree /etc");
		fstat(etcv, &st);
	} else {
		etcv = clone_dir("/etc", RO_ATTRS, 1);
	}
	int opt = clone_dir("/opt", RO_ATTRS, 1);
	int devs[6];
	char path[64];
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof path, "/dev/%s", devnodes[i]);
		devs[i] = clone_dir(path, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, 0);
	}
	/* stage */
	CHECK(fstatat(AT_FDCWD, "/tmp", &st, AT_SYMLINK_NOFOLLOW), "stat /tmp");
	CHECK(mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755"), "stage tmpfs");
	int root = sys_openat2(AT_FDCWD, "/tmp", O_PATHDIR, RES_NOLINK);
	CHECK(root, "open stage");
	static const char *links[][2] = { { "usr/bin", "bin" }, { "usr/sbin", "sbin" }, { "usr/lib", "lib" },
					  { "usr/lib32", "lib32" }, { "usr/lib64", "lib64" }, { "usr/libx32", "libx32" } };
	for (int i = 0; i < 6; i++) CHECK(symlinkat(links[i][0], root, links[i][1]), "system symlink");
	attach(root, "usr", usr);
	if (cfg.views) CHECK(sys_setattr(etcv, "", AT_EMPTY_PATH | AT_RECURSIVE, RO_ATTRS), "etc ro");
	attach(root, "etc", etcv);
	attach(root, "opt", opt);
	/* proc */
	int pfd = mkdir_beneath(root, "proc", 0555);
	char opts[64] = "hidepid=invisible";
	if (cfg.gid == 0) strcat(opts, ",gid=65534");
	mount_at("proc", pfd, MS_NOSUID | MS_NODEV | MS_NOEXEC, opts);
	close(pfd);
	/* dev */
	int dfd = mkdir_beneath(root, "dev", 0755);
	mount_at("tmpfs", dfd, MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755");
	for (int i = 0; i < 6; i++) {
		int dd = mkdir_beneath(root, "dev", 0755);
		int dst = file_beneath(dd, devnodes[i]);
		close(dd);
		CHECK(sys_move_mount(devs[i], "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH), "dev node");
		close(devs[i]), close(dst);
	}
	int pts = mkdir_beneath(root, "dev/pts", 0755);
	mount_at("devpts", pts, MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620");
	int shm = mkdir_beneath(root, "dev/shm", 0755);
	mount_at("tmpfs", shm, MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64m,mode=1777");
	close(shm), close(pts);
	static const char *dl[][2] = { { "pts/ptmx", "dev/ptmx" }, { "/proc/self/fd", "dev/fd" }, { "/proc/self/fd/0", "dev/stdin" },
				       { "/proc/self/fd/1", "dev/stdout" }, { "/proc/self/fd/2", "dev/stderr" } };
	for (int i = 0; i < 5; i++) CHECK(symlinkat(dl[i][0], root, dl[i][1]), "dev symlink");
	CHECK(sys_setattr(root, "dev", 0, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC), "dev ro");
	close(dfd);
	/* the plan's tmpfs */
	for (int i = 0; i < cfg.ntmpfs; i++) {
		struct tmpfs *t = &cfg.tmpfs[i];
		int fd = mkdir_beneath(root, t->target + 1, 0755);
		char data[96];
		snprintf(data, sizeof data, "size=%lld,mode=%o", t->size, strcmp(t->target, "/tmp") ? 0700 : 01777);
		mount_at("tmpfs", fd, MS_NOSUID | MS_NODEV, data);
		close(fd);
	}
	/* verifyMasks: the views are listed again from the new root */
	static struct entry scratch[1024];
	int v = !cfg.views ? -1 : sys_openat2(root, "etc", O_PATHDIR, RES_NOLINK | RESOLVE_BENEATH);
	if (cfg.views) {
		fstat(v, &st);
		list_entries(v, scratch, 1024, etc_hide, NULL);
		close(v);
		v = sys_openat2(root, "etc/ssh", O_PATHDIR, RES_NOLINK | RESOLVE_BENEATH);
		fstat(v, &st);
		list_entries(v, scratch, 64, NULL, "ssh_host_*");
		close(v);
	}
	/* read-only root and pivot */
	CHECK(sys_setattr(root, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY), "root ro");
	CHECK(fchdir(root), "fchdir");
	CHECK(syscall(SYS_pivot_root, ".", "."), "pivot_root");
	CHECK(umount2(".", MNT_DETACH), "umount old root");
	close(root);
	CHECK(chdir("/"), "chdir");
}

/* ---- limits, network ---- */
static void loopback_up(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	CHECK(s, "socket");
	struct ifreq ifr = { 0 };
	strcpy(ifr.ifr_name, "lo");
	CHECK(ioctl(s, SIOCGIFFLAGS, &ifr), "SIOCGIFFLAGS");
	ifr.ifr_flags |= IFF_UP;
	CHECK(ioctl(s, SIOCSIFFLAGS, &ifr), "SIOCSIFFLAGS");
	close(s);
}

static void apply_limits(void)
{
	struct rlimit nofile, sigp;
	struct sysinfo si;
	getrlimit(RLIMIT_NOFILE, &nofile);
	getrlimit(RLIMIT_SIGPENDING, &sigp);
	sysinfo(&si);
	/* the Go pid 1's share of sigpending for 2 GiB of this host's memory */
	rlim_t sp = (rlim_t)((double)sigp.rlim_max * 2147483648.0 / ((double)si.totalram * si.mem_unit));
	struct { int res; rlim_t v; } l[] = { { RLIMIT_NPROC, 1024 }, { RLIMIT_NOFILE, nofile.rlim_max },
					      { RLIMIT_CORE, 0 }, { RLIMIT_SIGPENDING, sp } };
	for (int i = 0; i < 4; i++) {
		struct rlimit r = { l[i].v, l[i].v };
		CHECK(setrlimit(l[i].res, &r), "setrlimit");
	}
	for (int i = 0; i < cfg.nctr; i++) {
		char p[128], v[32], back[32];
		snprintf(p, sizeof p, "/proc/sys/user/%s", cfg.ctr[i].name);
		int fd = open(p, O_RDWR | O_CLOEXEC);
		CHECK(fd, p);
		int n = snprintf(v, sizeof v, "%lld", cfg.ctr[i].cap);
		CHECK(write(fd, v, n), p);
		lseek(fd, 0, SEEK_SET);
		CHECK(read(fd, back, sizeof back), p);
		close(fd);
	}
}

/* ---- the member's layers ---- */
#define LL_RO (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_IOCTL_DEV (1ULL << 15)
#define LL_TRUNCATE (1ULL << 14)
#define LL_RW (LL_RO | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	       LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |          \
	       LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | LL_TRUNCATE)
#define LL_DEV (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | LL_IOCTL_DEV)
#define LL_ALL (LL_RW | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LL_IOCTL_DEV)

static void ll_rule(int rs, const char *path, uint64_t access)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_PATH);
	CHECK(fd, path);
	struct stat st;
	fstat(fd, &st);
	struct landlock_path_beneath_attr a = { .allowed_access = access, .parent_fd = fd };
	CHECK(syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &a, 0), "landlock_add_rule");
	close(fd);
}

static void apply_landlock(void)
{
	struct stat st;
	char p[64];
	for (int i = 0; i < 6; i++) {
		snprintf(p, sizeof p, "/dev/%s", devnodes[i]);
		lstat(p, &st);
	}
	lstat("/dev/pts", &st);
	CHECK(syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION), "landlock abi");
	struct { uint64_t fs, net, scoped; } attr = { LL_ALL, 0, 3 /* abstract unix socket, signal */ };
	int rs = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	CHECK(rs, "landlock_create_ruleset");
	const char *ro[] = { "/proc", "/usr", "/etc", "/opt" };
	for (int i = 0; i < 4; i++) ll_rule(rs, ro[i], LL_RO);
	ll_rule(rs, "/dev/shm", LL_RW);
	for (int i = 0; i < cfg.ntmpfs; i++) ll_rule(rs, cfg.tmpfs[i].target, LL_RW);
	for (int i = 0; i < 6; i++) {
		snprintf(p, sizeof p, "/dev/%s", devnodes[i]);
		ll_rule(rs, p, LL_DEV);
	}
	ll_rule(rs, "/dev/pts", LL_DEV | LANDLOCK_ACCESS_FS_READ_DIR);
	ll_rule(rs, "/", LANDLOCK_ACCESS_FS_READ_DIR);
	prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	CHECK(syscall(SYS_landlock_restrict_self, rs, 0), "landlock_restrict_self");
	close(rs);
}

static void drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { 0 };
	CHECK(syscall(SYS_capset, &h, d), "capset");
}

static void member(void)
{
	/* securebits, bounding set, ambient, no_new_privs (dropBoundingAndAmbient, setNoNewPrivs) */
	CHECK(prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
			SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
			SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED), "securebits");
	for (int c = 0;; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
			if (errno == EINVAL) break;
			die("capbset drop", errno);
		}
	CHECK(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "ambient");
	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs");
	apply_landlock();
	drop_caps();
	prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	struct sock_fprog prog = { (unsigned short)((bpf_real_end - bpf_real_start) / 8), (struct sock_filter *)bpf_real_start };
	CHECK(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog), "seccomp");
	/* recordPrivileges reads the thread's status */
	char buf[4096];
	int fd = open("/proc/thread-self/status", O_RDONLY | O_CLOEXEC);
	CHECK(fd, "status");
	while (read(fd, buf, sizeof buf) > 0) {}
	close(fd);
}

static const char *find_cmd(const char *cmd)
{
	if (strchr(cmd, '/')) return cmd;
	static const char *dirs[] = { "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin" };
	static char p[128];
	struct stat st;
	for (int i = 0; i < 6; i++) {
		snprintf(p, sizeof p, "%s/%s", dirs[i], cmd);
		if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode) && (st.st_mode & 0111)) return p;
	}
	return NULL;
}

int main(void)
{
	double t0 = now_ms();
	CHECK(syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC), "close_range");
	static char js[1 << 16];
	size_t len = 0;
	char *nl = NULL;
	while (!nl) {
		ssize_t n = read(3, js + len, sizeof js - 1 - len);
		if (n <= 0) die("read config", n < 0 ? errno : EPIPE);
		len += n, js[len] = 0;
		nl = strchr(js, '\n');
	}
	size_t rest = len - (nl + 1 - js); /* the release byte may follow */
	char release = rest ? nl[1] : 0;
	*nl = 0;
	parse_config(js);
	for (int i = 0; i < cfg.nleaves; i++) {
		int fd = openat(cfg.leaves[i], "tasks", O_WRONLY | O_CLOEXEC);
		CHECK(fd, "cgroup leaf");
		CHECK(write(fd, "0", 1), "enter cgroup");
		close(fd), close(cfg.leaves[i]);
	}
	if (cfg.nleaves) { /* the Go pid 1 checks its placement in /proc/self/cgroup */
		char b[1024];
		int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) { (void)!read(fd, b, sizeof b); close(fd); }
	}
	double tm = now_ms();
	build_rootfs();
	double mounts = now_ms() - tm;
	static const char *ns[] = { "user", "mnt", "pid", "net", "ipc", "uts", "cgroup" };
	unsigned long long ino[7];
	for (int i = 0; i < 7; i++) {
		char p[64];
		struct stat st;
		snprintf(p, sizeof p, "/proc/self/ns/%s", ns[i]);
		ino[i] = stat(p, &st) == 0 ? st.st_ino : 0;
	}
	CHECK(sethostname("acbox", 5), "sethostname");
	loopback_up();
	double setup = now_ms() - t0;
	CHECK(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "dumpable");
	if (!release && read(3, &release, 1) != 1) die("release", EPIPE);
	if (release != 'g') die("release", EPROTO);
	apply_limits();
	const char *path = find_cmd(cfg.argv[0]);
	if (!path) die("lookup command", ENOENT);
	int pfd[2];
	CHECK(pipe2(pfd, O_CLOEXEC), "pipe");
	pid_t pid = fork();
	CHECK(pid, "fork");
	if (pid == 0) {
		close(pfd[0]);
		member();
		struct rlimit data = { 2147483648ULL, RLIM_INFINITY };
		setrlimit(RLIMIT_DATA, &data);
		setsid();
		CHECK(chdir(cfg.cwd), "chdir");
		char idv[80];
		snprintf(idv, sizeof idv, "ACBOX_ID=%s", cfg.id);
		int ne = 0;
		while (cfg.env[ne]) ne++;
		cfg.env[ne] = "ACBOX_ACCESS={}", cfg.env[ne + 1] = idv;
		execve(path, cfg.argv, cfg.env);
		int e = errno;
		(void)!write(pfd[1], &e, sizeof e);
		_exit(127);
	}
	close(pfd[1]);
	/* pid 1 gives up its capabilities. Simplified: right after the fork, not
	 * before it as in the Go pid 1, whose member is still a thread of pid 1
	 * when the bounding set is dropped; the kernel work is the same. */
	CHECK(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "ambient");
	drop_caps();
	int e;
	if (read(pfd[0], &e, sizeof e) == sizeof e) die("exec", e);
	close(pfd[0]);
	/* the ready message: the report's shape, with the figures this pid 1 has */
	static char msg[8192];
	int n = snprintf(msg, sizeof msg,
		"{\"kind\":\"ready\",\"report\":{\"id\":\"%s\",\"backend\":\"native\",\"namespaces\":{\"user\":%llu,\"mnt\":%llu,"
		"\"pid\":%llu,\"net\":%llu,\"ipc\":%llu,\"uts\":%llu,\"cgroup\":%llu},\"mounts\":[],"
		"\"controls\":[{\"name\":\"landlock\",\"requested\":true,\"enforced\":true},"
		"{\"name\":\"seccomp\",\"requested\":true,\"enforced\":true}],"
		"\"phases_ms\":{\"helper_setup\":%.3f,\"mounts_and_pivot\":%.3f},\"note\":\"cpid1 prototype: etc=%d ssh=%d\"},"
		"\"pid\":%d,\"entered\":%d}\n",
		cfg.id, ino[0], ino[1], ino[2], ino[3], ino[4], ino[5], ino[6], setup, mounts, etc_n, ssh_n, pid, cfg.nleaves);
	CHECK(write(STATUS_FD, msg, n), "ready");
	for (;;) {
		int ws;
		pid_t w = wait4(-1, &ws, 0, NULL);
		if (w < 0 && errno == EINTR) continue;
		if (w < 0) die("reap", errno);
		if (w != pid) continue;
		if (WIFSIGNALED(ws))
			n = snprintf(msg, sizeof msg, "{\"kind\":\"exit\",\"signal\":%d}\n", WTERMSIG(ws));
		else
			n = snprintf(msg, sizeof msg, "{\"kind\":\"exit\",\"code\":%d}\n", WEXITSTATUS(ws));
		(void)!write(STATUS_FD, msg, n);
		return WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
	}
}
