// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "uring_seen.h"

#define IORING_OP_URING_CMD 46

static unsigned int popcount4(const uint64_t *v)
{
	return __builtin_popcountll(v[0]) + __builtin_popcountll(v[1]) +
	       __builtin_popcountll(v[2]) + __builtin_popcountll(v[3]);
}

/* "SETXATTR", "URING_CMD (cmd_op 3)", "opcode 70" */
static void op_text(char *buf, size_t len, uint32_t op, int64_t arg)
{
	const char *name = fp_uring_op_name(op);

	if (!name)
		snprintf(buf, len, "opcode %u", op);
	else if (op == IORING_OP_URING_CMD)
		snprintf(buf, len, "%s (cmd_op %lld)", name, (long long)arg);
	else
		snprintf(buf, len, "%s", name);
}

static void update_why(struct fp_uring_seen *u)
{
	char op[64];
	unsigned int more = popcount4(u->ops);
	size_t n = 0;

	u->why[0] = '\0';
	if (u->unsupported) {
		op_text(op, sizeof(op), u->op, u->op_arg);
		n = snprintf(
			u->why, sizeof(u->why),
			"pid %u made an io_uring request footprint does not understand: %s",
			u->op_pid, op);
		if (more > 1 && n < sizeof(u->why))
			n += snprintf(u->why + n, sizeof(u->why) - n,
				      " (and %u other opcode%s)", more - 1,
				      more > 2 ? "s" : "");
	}
	if (u->untraceable && n < sizeof(u->why))
		snprintf(
			u->why + n, sizeof(u->why) - n,
			"%spid %u set up an io_uring ring, and this kernel lacks the tracepoint footprint reads its requests from",
			n ? "; " : "", u->ring_pid);
}

void fp_uring_seen_feed(struct fp_uring_seen *u, const struct fp_event *ev)
{
	uint32_t op = ev->uring.opcode & 255;

	if (ev->type != FP_EV_URING)
		return;
	if (ev->uring.kind == FP_URING_UNTRACEABLE) {
		if (!u->untraceable++)
			u->ring_pid = ev->pid;
	} else {
		if (!u->unsupported++) {
			u->op = ev->uring.opcode;
			u->op_pid = ev->pid;
			u->op_arg = ev->uring.arg;
		}
		u->ops[op / 64] |= 1ULL << (op % 64);
	}
	update_why(u);
}

const char *fp_uring_seen_why(const struct fp_uring_seen *u)
{
	return u->unsupported || u->untraceable ? u->why : NULL;
}
