// SPDX-License-Identifier: GPL-2.0
/*
 * footprint sidecar start|status|stop: trace a whole CI job from a daemon
 * started at its beginning, and judge it at its end (docs/ci.md). The
 * daemon's loop is session/sidecar.c; this file is the command line, the
 * state directory, the daemon's birth and the clients of its socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <unistd.h>

#include "cgroup.h"
#include "cli.h"
#include "creds.h"
#include "logrun.h"
#include "reconcile.h"
#include "rule_args.h"
#include "run.h"
#include "run_args.h"
#include "sidecar.h"
#include "summary_md.h"
#include "tracer.h"
#include "userfile.h"

#define DEFAULT_STATE "/run/footprint/sidecar"
#define MAX_CGROUPS 8

struct sidecar_opts {
	const char *state;
	const char *roots_arg[64];
	size_t nroots;
	const char *record_path;
	uint64_t record_max;
	const char *cgroups[MAX_CGROUPS];
	size_t ncgroups;
	pid_t pid_trees[FP_TRACER_MAX_PID_TREES];
	size_t npid_trees;
	pid_t step_parent;
	const char *receipt_path, *summary_path;
	bool annotations, json, quiet;
	size_t summary_max;
	uint64_t mem_budget;
	size_t ring_bytes;
	struct fp_rule_args rules;
	const char *verb;
	const char *name; /* mark */
};

static void sidecar_usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint sidecar start [--state DIR] [OPTIONS]\n"
		"       footprint sidecar status [--state DIR] [--json]\n"
		"       footprint sidecar mark [--state DIR] NAME\n"
		"       footprint sidecar stop [--state DIR] [--receipt FILE]\n"
		"                              [--summary FILE.md] [--annotations]\n"
		"                              [--summary-max N]\n"
		"\n"
		"Trace a whole CI job: `start` takes the before snapshot, attaches\n"
		"and leaves a daemon tracing; it returns once tracing is live, so the\n"
		"next command is traced. `stop` takes the after snapshot, judges the\n"
		"whole job, writes the receipt and exits with the verdict's code. If\n"
		"the daemon died meanwhile, `stop` judges the log it left and fails.\n"
		"\n"
		"Options of start:\n"
		"  -r, --root DIR        watch DIR (repeatable; default: the current directory)\n"
		"  -a, --allow, -f, --forbid, -x, --expect, --ignore PATTERN, -p, --policy FILE\n"
		"                        the rules, as for `footprint run`\n"
		"      --pid-tree PID    trace PID and every descendant, present and future\n"
		"                        (repeatable, up to 16)\n"
		"      --cgroup PATH     trace this cgroup v2 and its descendants (repeatable,\n"
		"                        up to 8; below the cgroup2 mount or under it), e.g.\n"
		"                        docker's, for container jobs and services\n"
		"      --step-parent PID its direct children are the job's steps (default:\n"
		"                        the Runner.Worker the scope was found from)\n"
		"                        Default scope: the Runner.Worker among start's\n"
		"                        ancestors (a GitHub Actions job), if there is one;\n"
		"                        --cgroup adds to it, --pid-tree replaces it\n"
		"  -w, --record FILE     keep the event log in FILE (default: in the state\n"
		"                        directory, where stop reads it)\n"
		"      --record-max SIZE cut the log into segments of at most SIZE (at\n"
		"                        least 1M): LOG, LOG.1, LOG.2, ...\n"
		"      --ring-size SIZE  ring buffer size (default 16M)\n"
		"      --memory-budget SIZE  as for `footprint run` (default 128M)\n"
		"Options of every verb:\n"
		"      --state DIR       the daemon's directory (default " DEFAULT_STATE
		"):\n"
		"                        root's, 0711; made by start\n"
		"Options of stop:\n"
		"  -o, --receipt FILE    write the JSON receipt (- for stdout)\n"
		"      --summary FILE.md a markdown job summary, under 64 KiB, per step\n"
		"      --annotations     GitHub workflow commands (::error) on stdout, at\n"
		"                        most 10\n"
		"  -q, --quiet           no summary on stderr\n"
		"      --summary-max N   at most N examples per category in the summary\n"
		"                        (default 10)\n"
		"Of mark: the steps that start from now on are called NAME (when the\n"
		"runner gives them no GITHUB_ACTION); anyone may mark and ask status.\n"
		"Options of status:\n"
		"      --json            one JSON object: events, lost, lost per minute, RSS\n"
		"\n"
		"Examples:\n"
		"  sudo footprint sidecar start --root \"$GITHUB_WORKSPACE\" --cgroup /system.slice/docker.service\n"
		"  footprint sidecar status\n"
		"  footprint sidecar mark integration-tests\n"
		"  sudo footprint sidecar stop --receipt footprint.json\n"
		"\n"
		"Exit status: as `footprint run`: 0 ok; 1 the verdict failed (also when\n"
		"the daemon died or its log has a gap); 2 usage error; 125 cannot trace.\n");
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v <= 0 || v > 0x3fffffff)
		return -EINVAL;
	*pid = v;
	return 0;
}

static int parse_sidecar(int argc, char **argv, struct sidecar_opts *o)
{
	static const struct option longopts[] = {
		{ "state", required_argument, NULL, 'S' + 256 },
		{ "root", required_argument, NULL, 'r' },
		{ "allow", required_argument, NULL, 'a' },
		{ "forbid", required_argument, NULL, 'f' },
		{ "expect", required_argument, NULL, 'x' },
		{ "ignore", required_argument, NULL, FP_OPT_IGNORE },
		{ "policy", required_argument, NULL, 'p' },
		{ "report-noise", no_argument, NULL, FP_OPT_REPORT_NOISE },
		{ "record", required_argument, NULL, 'w' },
		{ "record-max", required_argument, NULL, 'W' + 256 },
		{ "cgroup", required_argument, NULL, 'C' + 256 },
		{ "pid-tree", required_argument, NULL, 'T' + 256 },
		{ "step-parent", required_argument, NULL, 'P' + 256 },
		{ "receipt", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'J' + 256 },
		{ "summary", required_argument, NULL, 'M' + 256 },
		{ "annotations", no_argument, NULL, 'N' + 256 },
		{ "ring-size", required_argument, NULL, 'R' + 256 },
		{ "memory-budget", required_argument, NULL, 'B' + 256 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "summary-max", required_argument, NULL, 'X' + 256 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fp_positionals pos = { 0 };
	int c, taken, at;

	o->state = DEFAULT_STATE;
	o->ring_bytes = 16 << 20;
	o->mem_budget = FP_RECON_BUDGET_DEFAULT;
	o->summary_max = FP_SUMMARY_MAX_DEFAULT;
	/* options may come before or after the verb */
	fp_opts_start();
	while ((c = fp_next_opt_any_order(argc, argv, "-:r:a:f:x:p:w:o:qh",
					  longopts, &at, &pos)) != -1) {
		taken = fp_rule_args_take(&o->rules, "sidecar", c, optarg);
		if (taken < 0)
			return -taken;
		if (taken)
			continue;
		switch (c) {
		case 'S' + 256:
			o->state = optarg;
			break;
		case 'r':
			if (o->nroots == 64)
				return fp_usage_error("sidecar",
						      "too many --root");
			o->roots_arg[o->nroots++] = optarg;
			break;
		case 'w':
			o->record_path = optarg;
			break;
		case 'W' + 256:
			if (fp_parse_record_max("sidecar", optarg,
						&o->record_max))
				return FP_EXIT_USAGE;
			break;
		case 'C' + 256:
			if (o->ncgroups == MAX_CGROUPS)
				return fp_usage_error("sidecar",
						      "at most 8 --cgroup");
			o->cgroups[o->ncgroups++] = optarg;
			break;
		case 'T' + 256:
			if (o->npid_trees == FP_TRACER_MAX_PID_TREES)
				return fp_usage_error("sidecar",
						      "at most 16 --pid-tree");
			if (parse_pid(optarg, &o->pid_trees[o->npid_trees++]))
				return fp_usage_error(
					"sidecar",
					"--pid-tree wants a process id, got '%s'",
					optarg);
			break;
		case 'P' + 256:
			if (parse_pid(optarg, &o->step_parent))
				return fp_usage_error(
					"sidecar",
					"--step-parent wants a process id, got '%s'",
					optarg);
			break;
		case 'o':
			o->receipt_path = optarg;
			break;
		case 'J' + 256:
			o->json = true;
			break;
		case 'M' + 256:
			o->summary_path = optarg;
			break;
		case 'N' + 256:
			o->annotations = true;
			break;
		case 'R' + 256:
			if (fp_parse_ring_size("sidecar", optarg,
					       &o->ring_bytes))
				return FP_EXIT_USAGE;
			break;
		case 'B' + 256:
			if (fp_parse_budget("sidecar", optarg, &o->mem_budget))
				return FP_EXIT_USAGE;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'X' + 256:
			if (fp_parse_summary_max("sidecar", optarg,
						 &o->summary_max))
				return FP_EXIT_USAGE;
			break;
		case 'h':
			return -1;
		case ':':
			return fp_usage_error("sidecar",
					      "option '%s' needs a value",
					      argv[at]);
		default:
			return fp_usage_error("sidecar", "unknown option '%s'",
					      argv[at]);
		}
	}
	if (pos.n < 1)
		return fp_usage_error("sidecar",
				      "say start, status or stop (see --help)");
	o->verb = pos.v[0];
	if (strcmp(o->verb, "start") && strcmp(o->verb, "status") &&
	    strcmp(o->verb, "stop") && strcmp(o->verb, "mark"))
		return fp_usage_error(
			"sidecar",
			"unknown verb '%s'; say start, status, mark or stop",
			o->verb);
	if (!strcmp(o->verb, "mark")) {
		if (pos.n != 2 || !*pos.v[1] || strlen(pos.v[1]) > 255)
			return fp_usage_error(
				"sidecar",
				"mark wants one step name of 1 to 255 bytes");
		o->name = pos.v[1];
		return 0;
	}
	if (pos.n > 1)
		return fp_usage_error("sidecar", "unexpected argument '%s'",
				      pos.v[1]);
	return 0;
}

/* ---- the state directory ---- */

/*
 * The state directory, root's and 0711 (anyone may ask for status, only
 * root may stop or read the log): made when missing (its parent
 * opened as the invoking user, through no link), refused when it is
 * anything else. An fd on it, or -1 after one line.
 */
static int open_state(const char *path, const struct fp_creds *c, bool make)
{
	char err[PATH_MAX + 256];
	struct fp_outdir d;
	struct stat st;
	int fd = -1, ret;

	if (make && !strcmp(path, DEFAULT_STATE))
		mkdir("/run/footprint", 0755);
	if (fp_outdir_open(&d, make ? c : NULL, "the state directory", path,
			   err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (make && !fp_creds_enter(make ? c : NULL)) {
		ret = mkdirat(d.dirfd, d.base, 0711);
		fp_creds_leave(c);
		if (ret && errno != EEXIST) {
			fprintf(stderr,
				"footprint: cannot make the state directory %s: %s\n",
				path, strerror(errno));
			goto cleanup;
		}
	}
	/* O_PATH: search permission is all anyone but root has */
	fd = openat(d.dirfd, d.base,
		    (make ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr,
			"footprint: cannot open the state directory %s: %s; is the sidecar started (footprint sidecar start)?\n",
			path, strerror(errno));
		goto cleanup;
	}
	/* a directory the user made there is not ours until it is root's */
	if (make && !fstat(fd, &st) && st.st_uid != 0 &&
	    (fchown(fd, 0, 0) || fchmod(fd, 0711)))
		fprintf(stderr, "footprint: cannot make %s root's: %s\n", path,
			strerror(errno));
	if (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 066)) {
		fprintf(stderr,
			"footprint: the state directory %s is not root's alone; remove it or pick another --state\n",
			path);
		close(fd);
		fd = -1;
	}
cleanup:
	fp_outdir_close(&d);
	return fd;
}

static int ctl_connect(int statefd, const char *state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	/* a short path through our own fd: the state dir may be deep */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s",
		 statefd, FP_SIDECAR_CTL);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		(void)state;
		return -e;
	}
	return fd;
}

/* A daemon of an earlier start, still alive? */
static bool daemon_alive(int statefd)
{
	int fd = ctl_connect(statefd, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* ---- start: the daemon ---- */

static int listen_ctl(int statefd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s",
		 statefd, FP_SIDECAR_CTL);
	unlinkat(statefd, FP_SIDECAR_CTL, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    fchmodat(statefd, FP_SIDECAR_CTL, 0666, 0) || listen(fd, 8)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * Where --record put the log, for a stop that finds the daemon dead: the
 * file's device and inode, then its path. Root's, in the state directory.
 */
static void write_log_id(int statefd, struct fp_session *s)
{
	struct fp_output *log = &s->outs[FP_OUT_LOG];
	struct stat st;
	FILE *f;
	int fd;

	if (fstat(s->log.w.fd, &st))
		return;
	fd = openat(statefd, FP_SIDECAR_LOG_ID,
		    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return;
	fprintf(f, "%llu %llu\n%s/%s", (unsigned long long)st.st_dev,
		(unsigned long long)st.st_ino, log->dir.real, log->dir.base);
	fclose(f);
}

/* Tracing starts from an empty log in the state directory, or --record. */
static int daemon_session(struct fp_session *s, struct sidecar_opts *o,
			  int statefd, char **roots, struct fp_policy *pol,
			  const struct fp_creds *c)
{
	struct fp_session_opts so = {
		.roots = roots,
		.nroots = o->nroots,
		.pol = pol,
		.invoker = c,
		.record_path = o->record_path ? o->record_path : FP_SIDECAR_LOG,
		.record_max = o->record_max,
		.log_fd = -1,
		.log_dirfd = statefd,
		.force = true,
		.quiet = true,
		.mem_budget = o->mem_budget,
		.ring_bytes = o->ring_bytes,
		.max_argv_bytes = 1 << 20,
	};
	int rc;

	if (!o->record_path) {
		so.log_fd = openat(statefd, FP_SIDECAR_LOG,
				   O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
					   O_CLOEXEC,
				   0600);
		if (so.log_fd < 0) {
			fprintf(stderr,
				"footprint: cannot write the log in the state directory: %s\n",
				strerror(errno));
			return FP_EXIT_NOTRACE;
		}
	}
	if (fp_session_init(s, &so)) {
		fprintf(stderr, "footprint: out of memory\n");
		return FP_EXIT_NOTRACE;
	}
	rc = fp_session_prepare(s);
	if (!rc)
		rc = fp_session_outputs(s);
	if (!rc && o->record_path)
		write_log_id(statefd, s);
	return rc;
}

/* Point the tracer at the job: cgroups and process trees; never us. */
static int daemon_scope(struct fp_session *s, const struct sidecar_opts *o)
{
	char mnt[PATH_MAX], path[2 * PATH_MAX];
	size_t i;
	int fd, ret;

	if (o->ncgroups && fp_cgroup_mountpoint(mnt, sizeof(mnt))) {
		fprintf(stderr,
			"footprint: no cgroup v2 hierarchy is mounted\n");
		return FP_EXIT_NOTRACE;
	}
	for (i = 0; i < o->ncgroups; i++) {
		size_t ml = strlen(mnt);
		const char *cg = o->cgroups[i];

		/* /sys/fs/cgroup/x as well as /x (below the mount) */
		if (!strncmp(cg, mnt, ml) && (cg[ml] == '/' || !cg[ml]))
			snprintf(path, sizeof(path), "%s", cg);
		else
			snprintf(path, sizeof(path), "%s/%s", mnt, cg);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr,
				"footprint: cannot open cgroup %s: %s; give a path below %s\n",
				path, strerror(errno), mnt);
			return FP_EXIT_USAGE;
		}
		ret = fp_tracer_add_cgroup(s->tracer, fd);
		close(fd);
		if (ret) {
			fprintf(stderr,
				"footprint: cannot trace cgroup %s: %s\n", path,
				strerror(-ret));
			return FP_EXIT_NOTRACE;
		}
	}
	for (i = 0; i < o->npid_trees; i++) {
		ret = fp_tracer_add_pid_tree(s->tracer, o->pid_trees[i]);
		if (ret) {
			fprintf(stderr,
				"footprint: cannot trace the tree of pid %d: %s\n",
				(int)o->pid_trees[i], strerror(-ret));
			return ret == -ESRCH ? FP_EXIT_USAGE : FP_EXIT_NOTRACE;
		}
	}
	if (o->step_parent)
		fp_tracer_set_step_parent(s->tracer, o->step_parent);
	return fp_tracer_add_self(s->tracer, getpid()) ? FP_EXIT_NOTRACE : 0;
}

/*
 * A GitHub Actions job: every step is a child of Runner.Worker, found
 * among start's ancestors (sudo does not keep GITHUB_ACTIONS, so the
 * process tree is asked, not the environment). 0 when there is none.
 */
static pid_t find_runner_worker(void)
{
	char path[64], comm[64], stat[512];
	pid_t pid = getppid();
	int hops, ppid;
	FILE *f;

	for (hops = 0; pid > 1 && hops < 64; hops++) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		f = fopen(path, "re");
		if (!f)
			return 0;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		if (!strcmp(comm, "Runner.Worker\n"))
			return pid;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "re");
		if (!f)
			return 0;
		if (!fgets(stat, sizeof(stat), f) || !strrchr(stat, ')') ||
		    sscanf(strrchr(stat, ')') + 2, "%*c %d", &ppid) != 1) {
			fclose(f);
			return 0;
		}
		fclose(f);
		pid = ppid;
	}
	return 0;
}

/* A sidecar's run: its step parent, and its state directory, a write
 * under which by the job is tampering. */
static int sidecar_header(struct fp_session *s, const struct sidecar_opts *o,
			  int statefd)
{
	char link[64], dir[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", statefd);
	n = readlink(link, dir, sizeof(dir) - 1);
	if (n <= 0 || n == sizeof(dir) - 1)
		return -ENAMETOOLONG;
	dir[n] = '\0';
	return fp_run_set_sidecar(&s->run, o->step_parent, dir);
}

/* The daemon never traces itself: it lives in a cgroup of its own. */
static int daemon_cgroup(struct fp_cgroup *cg)
{
	char err[512], procs[sizeof(cg->path) + 16];
	FILE *f;

	if (fp_cgroup_create(cg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_NOTRACE;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg->path);
	f = fopen(procs, "we");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		fprintf(stderr, "footprint: cannot move into %s: %s\n",
			cg->path, strerror(errno));
		return FP_EXIT_NOTRACE;
	}
	return 0;
}

/* the daemon's pid, and its cgroup, where `stop` moves itself so that
 * its own outputs are not the job's */
static void leave_cgroup(const struct fp_cgroup *cg)
{
	char procs[sizeof(cg->path) + 16];
	char *slash;
	FILE *f;

	snprintf(procs, sizeof(procs), "%s", cg->path);
	slash = strrchr(procs, '/');
	if (!slash)
		return;
	strcpy(slash, "/cgroup.procs");
	f = fopen(procs, "we");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
}

static void write_pidfile(int statefd, const struct fp_cgroup *cg)
{
	char buf[sizeof(cg->path) + 64];
	int fd = openat(statefd, FP_SIDECAR_PID,
			O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			0600);
	int n = snprintf(buf, sizeof(buf), "%d\n%s/cgroup.procs\n",
			 (int)getpid(), cg->path);

	if (fd >= 0) {
		if (write(fd, buf, n) != n)
			fprintf(stderr, "footprint: cannot write %s\n",
				FP_SIDECAR_PID);
		close(fd);
	}
}

/* The watched roots, NUL-separated, for stop: an output there would be
 * a change of the job's. */
static void write_roots(int statefd, char *const *roots, size_t n)
{
	int fd = openat(statefd, FP_SIDECAR_ROOTS,
			O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			0600);
	size_t i;

	for (i = 0; fd >= 0 && i < n; i++)
		if (write(fd, roots[i], strlen(roots[i]) + 1) < 0)
			break;
	if (fd >= 0)
		close(fd);
}

static size_t read_roots(int statefd, char *buf, size_t len, char **roots,
			 size_t max)
{
	int fd = openat(statefd, FP_SIDECAR_ROOTS,
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	size_t i, k = 0;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (i = 0; i < (size_t)n && k < max; i += strlen(buf + i) + 1)
		roots[k++] = buf + i;
	return k;
}

/* stdio of the job is not ours to keep once tracing is live */
static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static int run_daemon(struct sidecar_opts *o, int statefd, int ready_fd,
		      char **roots, struct fp_policy *pol,
		      const struct fp_creds *c)
{
	static char *const argv[] = { "footprint", "sidecar", NULL };
	struct fp_sidecar_state st = { .ready_fd = ready_fd };
	struct fp_cgroup cg = { .fd = -1 };
	struct fp_session s = { 0 };
	char err[512];
	int rc;

	static const int ignored[] = { SIGTERM, SIGINT,	 SIGHUP, SIGQUIT,
				       SIGUSR1, SIGUSR2, SIGPIPE };
	size_t i;

	/* the runner kills what carries its tracking id after the job */
	unsetenv("RUNNER_TRACKING_ID");
	/* a signal from the job is tamper evidence (the kernel side sees
	 * it sent), not the end of the trace; only SIGKILL ends it, and
	 * stop then fails closed */
	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	prctl(PR_SET_DUMPABLE, 0);
	rc = daemon_cgroup(&cg);
	if (!rc)
		rc = daemon_session(&s, o, statefd, roots, pol, c);
	if (!rc && sidecar_header(&s, o, statefd))
		rc = FP_EXIT_NOTRACE;
	/* relative outputs are open: nothing keeps a directory busy now */
	if (!rc && chdir("/"))
		rc = FP_EXIT_NOTRACE;
	if (!rc && fp_session_open_tracer(&s, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		rc = FP_EXIT_NOTRACE;
	}
	if (!rc && fp_session_header(&s, argv, cg.rel))
		rc = FP_EXIT_NOTRACE;
	if (!rc)
		rc = daemon_scope(&s, o);
	if (!rc)
		rc = fp_session_before(&s);
	if (!rc && fp_session_attach(&s, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		rc = FP_EXIT_NOTRACE;
	}
	if (!rc) {
		st.listen_fd = listen_ctl(statefd);
		if (st.listen_fd < 0) {
			fprintf(stderr,
				"footprint: cannot listen in the state directory: %s\n",
				strerror(errno));
			rc = FP_EXIT_NOTRACE;
		}
	}
	if (!rc) {
		write_pidfile(statefd, &cg);
		write_roots(statefd, roots, o->nroots);
		detach_stdio();
		rc = fp_sidecar_serve(&s, &st);
		unlinkat(statefd, FP_SIDECAR_CTL, 0);
		unlinkat(statefd, FP_SIDECAR_PID, 0);
	}
	fp_session_free(&s);
	if (cg.fd >= 0) {
		/* out of our own cgroup first: a cgroup with us in it stays */
		leave_cgroup(&cg);
		fp_cgroup_remove(&cg);
	}
	return rc;
}

/*
 * The daemon is a grandchild in a session of its own (no terminal, no
 * job control, not the runner's step); start returns once it said it is
 * tracing, with its error otherwise.
 */
static int start(struct sidecar_opts *o, const struct fp_creds *c)
{
	struct fp_policy pol = { 0 };
	char *roots[64] = { 0 };
	int statefd, pfd[2], status, rc;
	char ok = 0;
	pid_t pid;
	size_t i;

	if (geteuid() != 0) {
		fprintf(stderr,
			"footprint: tracing needs root; run it under sudo: sudo footprint sidecar start\n");
		return FP_EXIT_NOTRACE;
	}
	/* --cgroup adds to the runner's tree (docker's cgroups for container
	 * jobs and services); --pid-tree replaces it */
	if (!o->npid_trees) {
		pid_t worker = find_runner_worker();

		if (worker) {
			o->pid_trees[o->npid_trees++] = worker;
			if (!o->step_parent)
				o->step_parent = worker;
		} else if (!o->ncgroups) {
			fprintf(stderr,
				"footprint: say what to trace: --pid-tree PID or --cgroup PATH (no Runner.Worker is among this process's ancestors)\n");
			return FP_EXIT_USAGE;
		}
	}
	if (!o->nroots)
		o->roots_arg[o->nroots++] = ".";
	rc = fp_resolve_roots(o->roots_arg, o->nroots, c, roots);
	if (!rc)
		rc = fp_rule_args_policy(&o->rules, &pol, c, roots, o->nroots);
	if (rc)
		goto cleanup;
	rc = FP_EXIT_USAGE;
	statefd = open_state(o->state, c, true);
	if (statefd < 0)
		goto cleanup;
	if (daemon_alive(statefd)) {
		fprintf(stderr,
			"footprint: a sidecar already runs with state %s; stop it first (footprint sidecar stop)\n",
			o->state);
		close(statefd);
		goto cleanup;
	}
	rc = FP_EXIT_NOTRACE;
	if (pipe2(pfd, O_CLOEXEC)) {
		close(statefd);
		goto cleanup;
	}
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		setsid();
		if (fork() == 0)
			_exit(run_daemon(o, statefd, pfd[1], roots, &pol, c));
		_exit(0);
	}
	close(pfd[1]);
	close(statefd);
	if (pid > 0)
		waitpid(pid, &status, 0);
	/* one byte once tracing is live; EOF if the daemon gave up */
	if (pid > 0 && read(pfd[0], &ok, 1) == 1 && ok == '1')
		rc = FP_EXIT_OK;
	else
		fprintf(stderr, "footprint: the sidecar did not start\n");
	close(pfd[0]);
cleanup:
	fp_policy_free(&pol);
	for (i = 0; i < 64; i++)
		free(roots[i]);
	return rc;
}

/*
 * stop is footprint's own, not the job's: it goes on in a child born in
 * the daemon's cgroup (clone3 CLONE_INTO_CGROUP), so that nothing it
 * writes is traced. Returns 1 in that child; 0 in the caller once the
 * child is done, with its exit code in *code; -1 when it must go on
 * where it is.
 */
static int leave_the_job(int statefd, int *code)
{
	char procs[PATH_MAX + 64], *slash;
	struct clone_args ca = { .flags = CLONE_INTO_CGROUP,
				 .exit_signal = SIGCHLD };
	int pid, status, cgfd,
		fd = openat(statefd, FP_SIDECAR_PID,
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	long child;

	if (!f)
		return -1;
	if (fscanf(f, "%d\n%4159s", &pid, procs) != 2 ||
	    strncmp(procs, "/sys/fs/cgroup/", 15) ||
	    !(slash = strrchr(procs, '/'))) {
		fclose(f);
		return -1;
	}
	fclose(f);
	*slash = '\0';
	cgfd = open(procs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cgfd < 0)
		return -1;
	ca.cgroup = cgfd;
	child = syscall(SYS_clone3, &ca, sizeof(ca));
	close(cgfd);
	if (child <= 0)
		return child == 0 ? 1 : -1;
	*code = FP_EXIT_NOTRACE;
	if (waitpid(child, &status, 0) == child && WIFEXITED(status))
		*code = WEXITSTATUS(status);
	return 0;
}

/* Before stop writes anything: the daemon leaves it out of the trace. */
static void say_hello(int statefd)
{
	char req = FP_SC_HELLO, ack;
	int fd = ctl_connect(statefd, NULL);

	if (fd < 0)
		return;
	if (send(fd, &req, 1, MSG_NOSIGNAL) == 1 && recv(fd, &ack, 1, 0) == 1)
		(void)ack;
	close(fd);
}

/* ---- status ---- */

static int status(struct sidecar_opts *o)
{
	char buf[4096], req = o->json ? FP_SC_STATUS : FP_SC_STATUS_TEXT;
	int statefd = open_state(o->state, NULL, false), fd;
	ssize_t n;

	if (statefd < 0)
		return FP_EXIT_USAGE;
	fd = ctl_connect(statefd, o->state);
	close(statefd);
	if (fd < 0) {
		fprintf(stderr,
			"footprint: no sidecar answers in %s (%s); `footprint sidecar stop` will judge what it recorded\n",
			o->state, strerror(-fd));
		return FP_EXIT_VERDICT;
	}
	n = (send(fd, &req, 1, 0) == 1) ? recv(fd, buf, sizeof(buf), 0) : -1;
	close(fd);
	if (n <= 0) {
		fprintf(stderr, "footprint: the sidecar did not answer\n");
		return FP_EXIT_VERDICT;
	}
	/* JSON to stdout, the human lines to stderr */
	fwrite(buf, 1, n, o->json ? stdout : stderr);
	return FP_EXIT_OK;
}

/* ---- mark ---- */

static int mark(struct sidecar_opts *o)
{
	char req[260], ack = 0;
	int statefd = open_state(o->state, NULL, false), fd;
	size_t len = strlen(o->name);

	if (statefd < 0)
		return FP_EXIT_USAGE;
	fd = ctl_connect(statefd, o->state);
	close(statefd);
	if (fd < 0) {
		fprintf(stderr, "footprint: no sidecar answers in %s (%s)\n",
			o->state, strerror(-fd));
		return FP_EXIT_VERDICT;
	}
	req[0] = FP_SC_MARK;
	memcpy(req + 1, o->name, len);
	if (send(fd, req, len + 1, MSG_NOSIGNAL) != (ssize_t)len + 1 ||
	    recv(fd, &ack, 1, 0) != 1 || ack != 'K') {
		fprintf(stderr,
			"footprint: the sidecar did not take the mark\n");
		close(fd);
		return FP_EXIT_VERDICT;
	}
	close(fd);
	return FP_EXIT_OK;
}

/* ---- stop ---- */

/* The log the daemon left: in the state directory, or where --record put
 * it (the same file: device and inode as recorded at start). Its
 * segments, if any, are *name.N in *dirfd (statefd or one to close). */
static int dead_log_fd(int statefd, int *dirfd, char **name)
{
	unsigned long long dev, ino;
	char path[PATH_MAX + 2], *slash;
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS };
	struct open_how dhow = how;
	struct stat st;
	FILE *f;
	int fd = openat(statefd, FP_SIDECAR_LOG_ID,
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	*dirfd = statefd;
	*name = strdup(FP_SIDECAR_LOG);
	if (fd < 0)
		return openat(statefd, FP_SIDECAR_LOG,
			      O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	f = fdopen(fd, "r");
	if (!f || fscanf(f, "%llu %llu\n", &dev, &ino) != 2 ||
	    !fgets(path, sizeof(path), f) || !(slash = strrchr(path, '/'))) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	*slash = '\0';
	dhow.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
	*dirfd = syscall(SYS_openat2, AT_FDCWD, *path ? path : "/", &dhow,
			 sizeof(dhow));
	free(*name);
	*name = strdup(slash + 1);
	if (*dirfd < 0)
		return -1;
	fd = syscall(SYS_openat2, *dirfd, slash + 1, &how, sizeof(how));
	if (fd >= 0 &&
	    (fstat(fd, &st) || st.st_dev != dev || st.st_ino != ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Fail closed: the daemon is gone. What it recorded is judged all the
 * same, and the verdict fails, saying why.
 */
static int judge_dead(int statefd, FILE *receipt, int summary_fd,
		      const char *why, const struct sidecar_opts *o)
{
	FILE *md;
	struct fp_run run;
	struct fp_policy pol = { 0 };
	struct fp_findings f = { 0 };
	struct fp_verdict v = { 0 };
	struct fp_outcome out;
	char err[1600], *name;
	int dirfd, fd = dead_log_fd(statefd, &dirfd, &name), ret;
	int rc = FP_EXIT_VERDICT;

	fprintf(stderr, "footprint: %s; judging what it recorded\n", why);
	if (fd < 0 || !name || fp_run_init(&run)) {
		fprintf(stderr,
			"footprint: the sidecar's log cannot be read; the verdict fails\n");
		if (fd >= 0)
			close(fd);
		if (dirfd >= 0 && dirfd != statefd)
			close(dirfd);
		free(name);
		return FP_EXIT_VERDICT;
	}
	/* fd is taken; the segments after it are read from its directory */
	ret = fp_log_load_fd(fd, dirfd, name, name, &run, NULL, NULL, err,
			     sizeof(err));
	if (dirfd != statefd)
		close(dirfd);
	free(name);
	if (ret && ret != -ENODATA)
		fprintf(stderr, "%s\n", err);
	/* the daemon's end first, then whatever the log itself says (a gap) */
	if (run.incomplete_why) {
		char *both = NULL;

		if (asprintf(&both, "%s; %s", why, run.incomplete_why) < 0)
			both = NULL;
		free(run.incomplete_why);
		run.incomplete_why = both;
	} else {
		run.incomplete_why = strdup(why);
	}
	run.have_trailer = false;
	if ((!ret || ret == -ENODATA) &&
	    !fp_run_policy(&run, &pol, err, sizeof(err)) &&
	    !fp_run_judge(&run, &pol, &f, &v, &out)) {
		if (receipt)
			fp_run_receipt(receipt, &run, &f, &v, &out);
		md = summary_fd >= 0 ? fdopen(dup(summary_fd), "w") : NULL;
		if (md) {
			fp_summary_md_write(md, &f, &v, FP_MD_SUMMARY_MAX);
			fclose(md);
		}
		if (o->annotations)
			fp_annotations_write(stdout, &f, &v,
					     FP_ANNOTATIONS_MAX);
		if (!o->quiet) {
			struct fp_summary_opts so = { false, o->summary_max };

			fp_summary_write_opts(stderr, &f, &v, &so);
		}
	}
	fp_verdict_free(&v);
	fp_findings_free(&f);
	fp_policy_free(&pol);
	fp_run_free(&run);
	return rc;
}

/* Ask the daemon for the verdict: "R <code>", or -1 if it died. */
static int ask_stop(int conn, int receipt_fd, int summary_fd,
		    const struct sidecar_opts *o)
{
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int fds[4] = { receipt_fd >= 0 ? receipt_fd : devnull,
		       summary_fd >= 0 ? summary_fd : devnull, STDOUT_FILENO,
		       STDERR_FILENO };
	char req[16] = { FP_SC_STOP, o->annotations ? 'a' : '-',
			 o->quiet ? 'q' : '-' };
	char ctl[CMSG_SPACE(sizeof(fds))], buf[64];
	/* "X", annotations, quiet, then --summary-max in decimal */
	struct iovec iov = { req, 3 + snprintf(req + 3, sizeof(req) - 3, "%zu",
					       o->summary_max) };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	ssize_t n;
	int rc = -1;

	if (devnull < 0)
		return -1;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	if (sendmsg(conn, &m, MSG_NOSIGNAL) == (ssize_t)iov.iov_len) {
		n = recv(conn, buf, sizeof(buf) - 1, 0);
		if (n > 2 && buf[0] == 'R') {
			buf[n] = '\0';
			rc = atoi(buf + 2);
		}
	}
	close(devnull);
	return rc;
}

static int stop(struct sidecar_opts *o, const struct fp_creds *c)
{
	struct fp_output receipt = FP_OUTPUT_INIT("the receipt");
	struct fp_output summary = FP_OUTPUT_INIT("the job summary");
	FILE *rf = NULL;
	int statefd, conn, rc;
	bool in_child;
	int where;
	static char rootbuf[64 * (PATH_MAX + 1)];
	char *roots[64];
	size_t nroots;

	if (geteuid() != 0) {
		fprintf(stderr,
			"footprint: stopping the sidecar needs root; run it under sudo: sudo footprint sidecar stop\n");
		return FP_EXIT_NOTRACE;
	}
	statefd = open_state(o->state, c, false);
	if (statefd < 0)
		return FP_EXIT_USAGE;
	where = leave_the_job(statefd, &rc);
	if (where == 0) {
		close(statefd);
		return rc;
	}
	in_child = where == 1;
	say_hello(statefd);
	receipt.path = o->receipt_path;
	nroots = read_roots(statefd, rootbuf, sizeof(rootbuf), roots, 64);
	summary.path = o->summary_path;
	rc = fp_output_prepare(&receipt, c, roots, nroots);
	if (!rc)
		rc = fp_output_prepare(&summary, c, roots, nroots);
	if (!rc && o->receipt_path && strcmp(o->receipt_path, "-") &&
	    fp_output_create(&receipt, c, true) < 0)
		rc = FP_EXIT_USAGE;
	if (!rc && o->summary_path && strcmp(o->summary_path, "-") &&
	    fp_output_create(&summary, c, true) < 0)
		rc = FP_EXIT_USAGE;
	if (rc)
		goto cleanup;
	conn = ctl_connect(statefd, o->state);
	rc = conn < 0 ?
		     -1 :
		     ask_stop(conn,
			      o->receipt_path && !strcmp(o->receipt_path, "-") ?
				      STDOUT_FILENO :
				      receipt.fd,
			      summary.fd, o);
	if (conn >= 0)
		close(conn);
	if (rc < 0) {
		if (receipt.fd >= 0)
			rf = fdopen(dup(receipt.fd), "w");
		else if (o->receipt_path)
			rf = stdout;
		rc = judge_dead(
			statefd, rf, summary.fd,
			conn < 0 ?
				"the sidecar daemon is gone (killed, or it died)" :
				"the sidecar daemon died while it was stopping",
			o);
		if (rf && rf != stdout)
			fclose(rf);
	}
cleanup:
	close(statefd);
	if (c->active) {
		fp_output_hand_over(&receipt, 1, c->uid, c->gid, c->name);
		fp_output_hand_over(&summary, 1, c->uid, c->gid, c->name);
	}
	if (receipt.fd >= 0)
		close(receipt.fd);
	if (summary.fd >= 0)
		close(summary.fd);
	fp_output_close(&receipt);
	fp_output_close(&summary);
	if (in_child) {
		fflush(stdout);
		_exit(rc);
	}
	return rc;
}

int cmd_sidecar(int argc, char **argv)
{
	struct sidecar_opts o = { 0 };
	struct fp_creds invoker = { 0 };
	char err[512];
	int rc = parse_sidecar(argc, argv, &o);

	if (rc == -1) {
		sidecar_usage(stdout);
		return FP_EXIT_OK;
	}
	if (rc)
		return rc;
	if (fp_creds_invoker(&invoker, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return FP_EXIT_USAGE;
	}
	if (!strcmp(o.verb, "start"))
		rc = start(&o, &invoker);
	else if (!strcmp(o.verb, "status"))
		rc = status(&o);
	else if (!strcmp(o.verb, "mark"))
		rc = mark(&o);
	else
		rc = stop(&o, &invoker);
	fp_creds_free(&invoker);
	return rc;
}
