// SPDX-License-Identifier: GPL-2.0
/*
 * The child's half of the scratch box. It runs between clone and exec in
 * the child of a threaded process, so it makes system calls only: no
 * malloc, no stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "scratch.h"

/* The mount points are the user's paths: resolved with the user's fs
 * identity, through no symbolic link. Mounting needs CAP_SYS_ADMIN,
 * which the fsuid does not take away. */
static int as_user(const struct fp_scratch *sc)
{
	if (!sc->as_user)
		return 0;
	if (syscall(SYS_setgroups, sc->ngroups, sc->groups))
		return -errno;
	syscall(SYS_setfsgid, sc->gid);
	syscall(SYS_setfsuid, sc->uid);
	return 0;
}

static int move_onto(int mnt, const char *path, unsigned long type)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC | type,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	int e = 0;

	if (fd < 0)
		return -errno;
	if (move_mount(mnt, "", fd, "",
		       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH))
		e = -errno;
	close(fd);
	return e;
}

/*
 * A proc of the box's own pid namespace over /proc: the old one shows
 * every process of the machine, and /proc/PID/root of one of the user's
 * outside is the real tree, around the overlays and the hides.
 */
static int proc_of_the_box(void)
{
	int fs = fsopen("proc", FSOPEN_CLOEXEC), mnt = -1, e = 0;

	if (fs < 0)
		return -errno;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		e = -errno;
	if (!e)
		mnt = fsmount(fs, FSMOUNT_CLOEXEC,
			      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				      MOUNT_ATTR_NOEXEC);
	if (!e && mnt < 0)
		e = -errno;
	close(fs);
	if (!e)
		e = move_onto(mnt, "/proc", O_DIRECTORY);
	if (mnt >= 0)
		close(mnt);
	return e;
}

static int loopback_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), e = 0;

	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr))
		e = -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (!e && ioctl(s, SIOCSIFFLAGS, &ifr))
		e = -errno;
	close(s);
	return e;
}

int fp_scratch_enter(const struct fp_scratch *sc)
{
	size_t i;
	int e;

	if (unshare(CLONE_NEWNS))
		return -errno;
	/* nothing mounted here propagates back to the real tree */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	e = as_user(sc);
	/* layers first, so that a hidden path inside a root hides it there */
	for (i = 0; !e && i < sc->nlayers; i++)
		e = move_onto(sc->layer[i].mnt, sc->layer[i].path, O_DIRECTORY);
	if (!e)
		e = proc_of_the_box();
	/* as the user: a cwd they may not enter fails here, not later; and
	 * before the hides, whose relative paths are relative to it */
	if (!e && sc->cwd[0] && chdir(sc->cwd))
		e = -errno;
	for (i = 0; !e && i < sc->nhide; i++)
		e = move_onto(sc->hide[i].mnt, sc->hide[i].path,
			      sc->hide[i].dir ? O_DIRECTORY : 0);
	if (!e && sc->no_network && unshare(CLONE_NEWNET))
		e = -errno;
	if (!e && sc->no_network)
		e = loopback_up();
	/*
	 * The upper layers are the user's: what they write there shows at
	 * the roots' paths in the box, however the real files are owned
	 * (a new ld.so.preload, pam.d file...). A set-user-ID program must
	 * not run with root's rights on that.
	 */
	if (!e && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		e = -errno;
	return e;
}
