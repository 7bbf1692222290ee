// SPDX-License-Identifier: GPL-2.0
/* What a generated script did: made executable, then run. */
#include <stdlib.h>
#include <string.h>

#include "reconcile_int.h"

/* a chmod that sets an x bit, or a file created with one */
void fp_rc_note_made_exec(struct path_state *ps, const struct fp_event *ev)
{
	enum fp_file_op op = fp_file_op(ev);

	if ((op == FP_FOP_CHMOD || (op == FP_FOP_OPEN && ev->file.created)) &&
	    (ev->file.mode & 0111))
		ps->made_exec = true;
}

static void mark_ran(struct fp_recon *r, const char *p, size_t len, pid_t pid)
{
	struct path_state *ps = fp_hashmap_get(&r->paths, p, len);

	if (ps && !ps->ran) {
		ps->ran = true;
		ps->runner = who_now(r, pid);
	}
}

/*
 * An exec runs a file the run wrote: its executable (a binary), or the
 * file it was given (a #! script, whose exe is the interpreter). Only
 * paths the run changed have a state, so this is one lookup per exec. A
 * script given by a relative name ("./payload") is found when the
 * interpreter opens it: the kernel passes that name in its argv.
 */
void fp_rc_note_ran(struct fp_recon *r, const struct fp_event *ev)
{
	const struct fp_bytes *fn = &ev->exec.filename;
	struct proc_state *p = proc_of(r, ev->pid);
	const char *a = ev->exec.argv.data, *end = a + ev->exec.argv.len;
	uint8_t k;

	mark_ran(r, ev->exec.exe.data, ev->exec.exe.len, ev->pid);
	if (fn->len && fn->data[0] == '/')
		mark_ran(r, fn->data, fn->len, ev->pid);
	if (!p || !fn->len || fn->data[0] == '/' || !a)
		return;
	p->script_opens = 0;
	/* argv[1] (#!/bin/sh) or argv[2] (#!/bin/sh -e, #!/usr/bin/env sh) */
	for (k = 0; a < end && k < 3; k++) {
		size_t n = strnlen(a, end - a);

		if (k && n == fn->len && !memcmp(a, fn->data, n)) {
			p->script_opens = 64;
			p->script_arg = k;
			return;
		}
		a += n + 1;
	}
}

/* does path end in "/" + arg (arg without its leading "./")? */
static bool names_arg(const struct fp_bytes *path, const char *arg, size_t alen)
{
	while (alen >= 2 && arg[0] == '.' && arg[1] == '/') {
		arg += 2;
		alen -= 2;
	}
	return alen && alen < path->len && path->data[0] == '/' &&
	       path->data[path->len - alen - 1] == '/' &&
	       !memcmp(path->data + path->len - alen, arg, alen);
}

/* an open by a process that exec'd a relative name: the script, when it
 * names one of the first arguments its interpreter was given */
void fp_rc_note_script_open(struct fp_recon *r, const struct fp_event *ev)
{
	struct proc_state *p = proc_of(r, ev->pid);
	const struct exec_rec *e;
	const char *a, *end;
	int k;

	if (!p || !p->script_opens || ev->file.ret < 0 || !ev->file.npaths ||
	    p->exec_idx < 0 || (size_t)p->exec_idx >= r->execs.n)
		return;
	p->script_opens--;
	e = exec_at(r, p->exec_idx);
	a = e->cmd->argv.data;
	end = a + e->cmd->argv.len;
	for (k = 0; a && a < end && k <= p->script_arg; k++) {
		size_t n = strnlen(a, end - a);

		if (k == p->script_arg &&
		    names_arg(&ev->file.path[0].path, a, n) &&
		    fp_hashmap_get(&r->paths, ev->file.path[0].path.data,
				   ev->file.path[0].path.len)) {
			mark_ran(r, ev->file.path[0].path.data,
				 ev->file.path[0].path.len, ev->pid);
			p->script_opens = 0;
			return;
		}
		a += n + 1;
	}
}

/* what the finding of ps says of it: made executable, run, and (creator)
 * who created it when another process touched it last */
int fp_rc_ran_fill(const struct fp_recon *r, struct fp_file_finding *f,
		   const struct path_state *ps, bool creator)
{
	f->made_exec = ps->made_exec;
	f->ran = ps->ran;
	if (ps->ran && fp_rc_actor_fill(r, &f->ran_by, &ps->runner))
		return -ENOMEM;
	if (creator && ps->born && !f->created_by.pid &&
	    (ps->created.pid != ps->last.pid ||
	     ps->created.exec != ps->last.exec))
		return fp_rc_actor_fill(r, &f->created_by, &ps->created);
	return 0;
}
