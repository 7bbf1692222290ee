// SPDX-License-Identifier: GPL-2.0
/*
 * footprint promote --lock output.lock --scratch DIR: copy a scratch run's
 * locked outputs into the real tree, only if everything matches, checked
 * before anything is written (docs/scratch.md). Runs as the invoking user.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "lockfile.h"
#include "promote.h"
#include "promote_check.h"
#include "run_args.h"
#include "longopts.h"
#include "say_bytes.h"

struct promote_opts {
	const char *lock, *scratch;
	bool as_root;
	struct fp_positionals pos;
};

static void promote_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint promote --lock FILE --scratch DIR\n"
		"\n"
		"Copy the outputs locked in FILE (footprint lock RECEIPT) from the\n"
		"scratch directory DIR of footprint run --scratch into the real tree,\n"
		"and apply the locked removals. Nothing is written unless everything\n"
		"matches: every scratch file, hashed again now, has its locked hash;\n"
		"the scratch changes, minus the lock's skipped paths, are exactly the\n"
		"locked ones; and the real tree still holds, at every locked path,\n"
		"what the run started from. Each file is written to a temporary file\n"
		"beside its target, fsync'd and renamed over it; if a step fails, what\n"
		"was applied is restored. Needs no root, only the right to write the\n"
		"target; two promotes of one tree never interleave (flock). Each\n"
		"scratch file is opened without blocking and copied only if it is\n"
		"still the regular file that was hashed. SIGINT, SIGTERM or SIGHUP\n"
		"while it writes: what was applied is restored, then promote ends\n"
		"by that signal; the tree is either promoted whole or as it was.\n"
		"Under sudo it acts as the invoking user (SUDO_UID). As root with\n"
		"nobody to act for (a root login) it refuses, unless --as-root.\n"
		"\n"
		"Options:\n"
		"  -l, --lock FILE      the output lock\n"
		"  -s, --scratch DIR    the scratch directory of the run\n"
		"      --as-root        a root login: promote as root, writing regular\n"
		"                       files without set-user-ID, set-group-ID and\n"
		"                       sticky bits (each one dropped is said)\n"
		"  -h, --help           show this help\n"
		"\n"
		"Examples:\n"
		"  footprint lock r.json --skip-disallowed -o fixture/output.lock\n"
		"  footprint promote --lock fixture/output.lock --scratch \"$scratch\"\n"
		"  sudo footprint promote --lock out.lock --scratch \"$scratch\"  # as you\n"
		"\n"
		"Exit status: 0 promoted; 1 refused (a hash miss, set drift, input\n"
		"drift, a lock of a failed receipt) or failed and restored; 2 usage\n"
		"or input error (also root with nobody to act for); ended by the\n"
		"signal that interrupted it, after restoring the tree.\n");
}

const struct option fp_promote_longopts[] = {
	{ "lock", required_argument, NULL, 'l' },
	{ "scratch", required_argument, NULL, 's' },
	{ "as-root", no_argument, NULL, 'R' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int promote_args(int argc, char **argv, struct promote_opts *o)
{
	int c, at;

	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:l:s:h",
					  fp_promote_longopts, &at, &o->pos)) !=
	       -1) {
		if (c == 'l')
			o->lock = optarg;
		else if (c == 's')
			o->scratch = optarg;
		else if (c == 'R')
			o->as_root = true;
		else if (c == 'h')
			return FP_ARGS_HELP;
		else
			return fp_bad_option("promote", c, argv[at]);
	}
	if (!o->lock || !o->scratch || o->pos.n)
		return fp_usage_error(
			"promote",
			"give --lock FILE and --scratch DIR, and nothing else");
	return 0;
}

/*
 * As root, promote would write what the traced command left in its
 * scratch layer as root's files: a set-user-ID copy of a shell among
 * them. Under sudo, main.c has already become the invoking user; root
 * here is a root login (or sudo from one), with nobody else to act for.
 */
static int check_who(const struct promote_opts *o)
{
	if (geteuid() == 0 && !o->as_root) {
		fprintf(stderr,
			"footprint: promote: refused to run as root with no invoking user to act for (a root login, or sudo from root): it would write the scratch files as root's; run it as the tree's owner (sudo -u OWNER footprint promote ...), or pass --as-root to promote as root without set-user-ID, set-group-ID or sticky bits\n");
		return FP_EXIT_USAGE;
	}
	if (geteuid() != 0 && o->as_root)
		return fp_usage_error(
			"promote",
			"--as-root is for a root login; promote runs as you (under sudo, as SUDO_UID): leave it out");
	return 0;
}

static int open_dir(int at, const char *path, const char *what)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   (at == AT_FDCWD ? 0 : RESOLVE_BENEATH),
	};
	int fd = syscall(SYS_openat2, at, path, &how, sizeof(how));

	if (fd < 0)
		fprintf(stderr,
			"footprint: promote: cannot open %s %s: %m; give the real path of a directory, without symbolic links\n",
			what, fp_said(path));
	return fd;
}

/* open a root's real tree (and lock it) and its scratch layer */
static int open_root(struct fp_proot *r, const struct fp_jv *l, int sdir)
{
	const char *upper = fp_jv_str(l, "upper");

	r->rootfd = r->upperfd = -1;
	r->root = fp_jv_str(l, "root");
	if (!r->root || !upper || strstr(upper, "..")) {
		fprintf(stderr,
			"footprint: promote: the lock names no root or layer; give the file footprint lock wrote\n");
		return FP_EXIT_USAGE;
	}
	r->rootfd = open_dir(AT_FDCWD, r->root, "the target");
	if (r->rootfd < 0)
		return FP_EXIT_USAGE;
	/* two promotes of one tree never interleave */
	if (flock(r->rootfd, LOCK_EX)) {
		fprintf(stderr, "footprint: promote: cannot lock %s: %m\n",
			fp_said(r->root));
		return FP_EXIT_USAGE;
	}
	r->upperfd = open_dir(sdir, upper, "the scratch layer");
	return r->upperfd < 0 ? FP_EXIT_USAGE : 0;
}

/*
 * Apply every root, all or nothing: a root that fails (or is interrupted)
 * restores itself, and the roots applied before it are restored too.
 * 0, or 1; *sig the held signal that interrupted it.
 */
static int apply_all(struct fp_proot *r, size_t n, int *sig)
{
	size_t i, k;
	int rc = 0;

	fp_promote_hold_signals();
	for (i = 0; !rc && i < n; i++)
		rc = fp_promote_apply(&r[i]);
	*sig = rc ? fp_promote_signalled() : 0;
	if (!rc) {
		for (k = 0; k < n; k++)
			fp_promote_commit(&r[k]);
		return 0;
	}
	/* r[i - 1] failed and restored itself; the ones before it */
	for (k = i - 1; k-- > 0;)
		fp_promote_undo(&r[k]);
	return rc;
}

static int promote(const struct fp_jv *lk, int sdir, bool as_root, int *sig)
{
	const struct fp_jv *roots = fp_jv_get(lk, "roots");
	struct fp_proot r[FP_ROOTS_MAX];
	size_t n = 0, i;
	int rc = 0;

	if (!roots || roots->type != FP_JV_ARR || roots->n > FP_ROOTS_MAX) {
		fprintf(stderr,
			"footprint: promote: the lock has no roots; give the file footprint lock wrote\n");
		return FP_EXIT_USAGE;
	}
	memset(r, 0, sizeof(r));
	for (n = 0; !rc && n < roots->n; n++) {
		rc = open_root(&r[n], &roots->items[n], sdir);
		r[n].drop_setid = as_root;
	}
	for (i = 0; !rc && i < n; i++)
		rc = fp_promote_load(&r[i], lk);
	/* everything is checked before anything is written */
	for (i = 0; !rc && i < n; i++)
		rc = fp_promote_verify(&r[i], lk);
	if (!rc)
		rc = apply_all(r, n, sig);
	if (!rc)
		for (i = 0; i < n; i++)
			fprintf(stderr,
				"footprint: promoted %zu locked changes into %s\n",
				r[i].locked.n, fp_said(r[i].root));
	for (i = 0; i < n; i++) {
		if (r[i].rootfd >= 0)
			close(r[i].rootfd);
		if (r[i].upperfd >= 0)
			close(r[i].upperfd);
		fp_pset_free(&r[i].locked);
		fp_pset_free(&r[i].scratch);
	}
	return rc;
}

int cmd_promote(int argc, char **argv)
{
	struct promote_opts o = { 0 };
	struct fp_creds self = { 0 };
	struct fp_jv lk;
	int rc = promote_args(argc, argv, &o), sdir, sig = 0;

	if (rc == FP_ARGS_HELP) {
		promote_usage(stdout);
		return FP_EXIT_OK;
	}
	if (!rc)
		rc = check_who(&o);
	if (rc)
		return rc;
	rc = fp_lockfile_read(&self, "the lock", o.lock, &lk);
	if (rc)
		return rc;
	rc = fp_lockfile_kind(&lk, "outputs", o.lock);
	if (!rc)
		rc = fp_promote_receipt_ok(&lk);
	sdir = rc ? -1 : open_dir(AT_FDCWD, o.scratch, "the scratch directory");
	if (!rc && sdir < 0)
		rc = FP_EXIT_USAGE;
	if (!rc)
		rc = promote(&lk, sdir, o.as_root, &sig);
	if (sdir >= 0)
		close(sdir);
	fp_jv_free(&lk);
	if (sig)
		fp_promote_end_by(sig);
	return rc;
}
