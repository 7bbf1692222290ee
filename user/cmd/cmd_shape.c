// SPDX-License-Identifier: GPL-2.0
/* footprint shape: the runtime shape of a unit, a process or a cgroup. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "creds.h"
#include "run_args.h"
#include "shape_cmd.h"
#include "shape_json.h"
#include "userfile.h"
#include "longopts.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: footprint shape (--unit NAME | --pid PID | --cgroup PATH) [-o FILE]\n"
		"       footprint shape diff BEFORE AFTER [--policy FILE] [-o FILE]\n"
		"\n"
		"Fingerprint what a running service really is: for each of its\n"
		"processes the executable and its sha256, argv, uids and gids,\n"
		"capabilities by name, NoNewPrivs, seccomp, namespaces, cgroup,\n"
		"listening sockets and the whole mount table; for a systemd unit\n"
		"also its sandbox properties, asked of systemd over D-Bus.\n"
		"The JSON (docs/shape.schema.json) goes to stdout or FILE.\n"
		"`shape diff` compares two shapes and fails on drift the policy\n"
		"does not allow (see `footprint shape diff --help`).\n"
		"\n"
		"Options:\n"
		"  --unit NAME     a systemd unit (\".service\" if NAME has no suffix)\n"
		"  --pid PID       one process\n"
		"  --cgroup PATH   every process of a cgroup (cgroup2; relative to\n"
		"                  /sys/fs/cgroup, or under it)\n"
		"  -o, --output FILE  write the shape there (replaced if it exists)\n"
		"  -h, --help      show this help\n"
		"\n"
		"Examples:\n"
		"  sudo footprint shape --unit shape-demo -o before.json\n"
		"  sudo footprint shape --pid \"$(pidof nginx | cut -d' ' -f1)\"\n"
		"  sudo footprint shape --cgroup system.slice/ssh.service\n"
		"  footprint shape diff before.json after.json --policy shape.policy\n"
		"\n"
		"Exit status: 0 the shape is complete; 1 it is incomplete (the JSON\n"
		"says why in \"incomplete\"); 2 usage error or no such target.\n");
}

struct shape_opts {
	const char *unit, *cgroup, *output;
	long pid;
	int ntargets;
};

const struct option fp_shape_longopts[] = {
	{ "unit", required_argument, NULL, 'u' },
	{ "pid", required_argument, NULL, 'p' },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int shape_args(int argc, char **argv, struct shape_opts *o)
{
	char *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", fp_shape_longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'u':
			o->unit = optarg;
			o->ntargets++;
			break;
		case 'p':
			errno = 0;
			o->pid = strtol(optarg, &end, 10);
			if (errno || *end || o->pid <= 0 || o->pid > INT_MAX)
				return fp_usage_error(
					"shape",
					"--pid wants a process id, not '%s'",
					optarg);
			o->ntargets++;
			break;
		case 'c':
			o->cgroup = optarg;
			o->ntargets++;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'h':
			return FP_ARGS_HELP;
		default:
			return fp_bad_option("shape", c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fp_usage_error("shape", "unexpected argument '%s'",
				      argv[optind]);
	if (o->ntargets != 1)
		return fp_usage_error(
			"shape",
			"say what to fingerprint: one of --unit, --pid, --cgroup");
	return 0;
}

/* who gets the output once it is whole (fp_outdir_create makes it root's) */
static struct {
	bool active;
	uid_t uid;
	gid_t gid;
} owner;

/* a new file made as the invoking user, or stdout for NULL or "-" */
FILE *fp_shape_output(const char *path, const char *what)
{
	struct fp_creds c;
	struct fp_outdir d;
	char err[PATH_MAX + 256];
	FILE *f = NULL;
	int fd = -1;

	if (!path || !strcmp(path, "-"))
		return stdout;
	if (fp_creds_invoker(&c, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return NULL;
	}
	if (fp_outdir_open(&d, &c, what, path, err, sizeof(err)) == 0) {
		fd = fp_outdir_create(&d, &c, what, path, true, err,
				      sizeof(err));
		fp_outdir_close(&d);
	}
	if (fd < 0)
		fprintf(stderr, "%s\n", err);
	else if (!(f = fdopen(fd, "w")))
		close(fd);
	owner.active = c.active;
	owner.uid = c.uid;
	owner.gid = c.gid;
	fp_creds_free(&c);
	return f;
}

int fp_shape_close(FILE *f, const char *path, const char *what)
{
	if (f != stdout && owner.active && !fflush(f) &&
	    fchown(fileno(f), owner.uid, owner.gid))
		fprintf(stderr,
			"footprint: shape: cannot give %s to its user: %s; it stays root's\n",
			path, strerror(errno));
	if (fflush(f) || (f != stdout && fclose(f))) {
		fprintf(stderr,
			"footprint: shape: writing %s to %s failed: %s\n", what,
			path ? path : "stdout", strerror(errno));
		return FP_EXIT_USAGE;
	}
	return 0;
}

static int capture(const struct shape_opts *o, struct fp_shape *s)
{
	int ret;

	if (o->unit)
		ret = fp_shape_unit(s, o->unit);
	else if (o->cgroup)
		ret = fp_shape_cgroup(s, o->cgroup);
	else
		ret = fp_shape_pid(s, o->pid);
	if (!ret)
		return 0;
	if (ret == -ENOMEM)
		fprintf(stderr, "footprint: shape: out of memory\n");
	else if (o->unit)
		fprintf(stderr,
			"footprint: shape: cannot read unit '%s' from systemd: %s; check the name with `systemctl status`\n",
			o->unit, s->nnotes ? s->notes[0] : strerror(-ret));
	else if (o->cgroup)
		fprintf(stderr,
			"footprint: shape: cannot read cgroup '%s': %s; give a cgroup2 path such as system.slice/ssh.service\n",
			o->cgroup, strerror(-ret));
	else
		fprintf(stderr,
			"footprint: shape: cannot read process %ld: %s; is it running?\n",
			o->pid, strerror(-ret));
	return FP_EXIT_USAGE;
}

int cmd_shape(int argc, char **argv)
{
	struct shape_opts o = { 0 };
	struct fp_shape s;
	FILE *out;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "diff"))
		return cmd_shape_diff(argc - 1, argv + 1);
	ret = shape_args(argc, argv, &o);
	if (ret == FP_ARGS_HELP) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return ret;
	ret = capture(&o, &s);
	if (ret) {
		fp_shape_free(&s);
		return ret;
	}
	out = fp_shape_output(o.output, "the shape");
	if (!out) {
		fp_shape_free(&s);
		return FP_EXIT_USAGE;
	}
	fp_shape_json(out, &s);
	ret = fp_shape_close(out, o.output, "the shape");
	if (!ret && s.init_ns_unreadable)
		fprintf(stderr,
			"footprint: shape: PID 1's namespaces are hidden here (a container?); \"differs_from_init\" is null\n");
	if (!ret && s.nnotes) {
		fprintf(stderr,
			"footprint: shape: incomplete (%s%s); run it as root, or see \"incomplete\"\n",
			s.notes[0], s.nnotes > 1 ? ", ..." : "");
		ret = FP_EXIT_VERDICT;
	}
	fp_shape_free(&s);
	return ret;
}
