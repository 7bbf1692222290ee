// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "capnames.h"
#include "json.h"
#include "shape_json.h"

static const char *const seccomp_modes[] = { "disabled", "strict", "filter" };

/* in capability-number order, the kernel's own */
static void caps(struct json_out *j, const char *key, uint64_t mask)
{
	char buf[16];
	int i;

	json_field_array(j, key);
	for (i = 0; i < 64; i++)
		if (mask >> i & 1)
			json_elem_str(j, fp_cap_name(i, buf, sizeof(buf)));
	json_end_array(j);
}

static void ids(struct json_out *j, const char *key, const uint32_t v[4])
{
	int i;

	json_field_array(j, key);
	for (i = 0; i < 4; i++)
		json_elem_u64(j, v[i]);
	json_end_array(j);
}

static void namespaces(struct json_out *j, const struct fp_shape_proc *p)
{
	int i;

	json_field_object(j, "namespaces");
	for (i = 0; i < FP_NS_N; i++) {
		if (!p->ns[i].ino)
			continue; /* not in this kernel */
		json_field_object(j, fp_ns_names[i]);
		json_field_u64(j, "id", p->ns[i].ino);
		if (p->ns[i].known)
			json_field_bool(j, "differs_from_init",
					p->ns[i].differs);
		else
			json_field_null(j, "differs_from_init");
		json_end_object(j);
	}
	json_end_object(j);
}

static void mounts(struct json_out *j, const struct fp_shape_proc *p)
{
	const struct fp_shape_mount *m;
	size_t i;

	json_field_array(j, "mounts");
	for (i = 0; i < p->nmounts; i++) {
		m = &p->mounts[i];
		json_begin_object(j);
		json_field_bytes(j, "mount_point", m->point.data, m->point.len);
		json_field_bytes(j, "root", m->root.data, m->root.len);
		json_field_bytes(j, "fstype", m->fstype.data, m->fstype.len);
		json_field_bytes(j, "source", m->source.data, m->source.len);
		json_field_bool(j, "rw", m->rw);
		json_field_str(j, "propagation", m->propagation);
		json_end_object(j);
	}
	json_end_array(j);
}

static void strings(struct json_out *j, const char *key, char **v, size_t n)
{
	size_t i;

	json_field_array(j, key);
	for (i = 0; i < n; i++)
		json_elem_str(j, v[i]);
	json_end_array(j);
}

static void proc(struct json_out *j, const struct fp_shape *s,
		 const struct fp_shape_proc *p)
{
	json_begin_object(j);
	json_field_i64(j, "pid", p->pid);
	json_field_i64(j, "ppid", p->ppid);
	json_field_bool(j, "main", p->pid == s->main_pid);
	json_field_bytes(j, "exe", p->exe.data, p->exe.len);
	json_field_str(j, "exe_sha256", p->exe_sha256);
	json_field_strv(j, "argv", p->argv.data, p->argv.len);
	ids(j, "uids", p->uids);
	ids(j, "gids", p->gids);
	caps(j, "cap_eff", p->cap_eff);
	caps(j, "cap_prm", p->cap_prm);
	caps(j, "cap_inh", p->cap_inh);
	caps(j, "cap_bnd", p->cap_bnd);
	caps(j, "cap_amb", p->cap_amb);
	json_field_bool(j, "no_new_privs", p->no_new_privs == 1);
	json_key(j, "seccomp");
	json_begin_object(j);
	json_field_str(j, "mode",
		       p->seccomp >= 0 && p->seccomp <= 2 ?
			       seccomp_modes[p->seccomp] :
			       "unknown");
	json_field_i64(j, "filters", p->seccomp_filters);
	json_end_object(j);
	namespaces(j, p);
	json_field_bytes(j, "cgroup", p->cgroup.data, p->cgroup.len);
	strings(j, "listeners", p->listeners, p->nlisteners);
	mounts(j, p);
	json_end_object(j);
}

static void unit(struct json_out *j, const struct fp_shape_unit *u)
{
	size_t i;

	json_key(j, "unit");
	json_begin_object(j);
	json_field_str(j, "name", u->name ? u->name : "");
	json_field_i64(j, "main_pid", u->main_pid);
	json_field_str(j, "control_group",
		       u->control_group ? u->control_group : "");
	json_key(j, "properties");
	json_begin_object(j);
	for (i = 0; i < u->nprops; i++)
		json_field_str(j, u->keys[i], u->vals[i]);
	json_end_object(j);
	json_end_object(j);
}

void fp_shape_json(FILE *f, const struct fp_shape *s)
{
	struct json_out j = { .f = f };
	size_t i;

	json_begin_object(&j);
	json_field_i64(&j, "footprint_shape", 1);
	json_field_str(&j, "kind", s->kind);
	json_field_bytes(&j, "target", s->target, strlen(s->target));
	json_field_bool(&j, "complete", !s->nnotes);
	strings(&j, "incomplete", (char **)s->notes, s->nnotes);
	json_field_bool(&j, "init_namespaces_readable", !s->init_ns_unreadable);
	json_field_i64(&j, "main_pid", s->main_pid);
	if (s->has_unit)
		unit(&j, &s->unit);
	json_field_array(&j, "processes");
	for (i = 0; i < s->nprocs; i++)
		proc(&j, s, &s->procs[i]);
	json_end_array(&j);
	json_end_object(&j);
	fputc('\n', f);
}
