// SPDX-License-Identifier: GPL-2.0
/*
 * A systemd unit's sandbox properties, asked of systemd itself over D-Bus
 * (sd-bus) rather than parsed from `systemctl show`. Each is rendered as
 * one line of text, sets sorted, so two shapes compare key by key.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capnames.h"
#include "sdbus_dl.h"
#include "shape.h"

#define DEST "org.freedesktop.systemd1"
#define SERVICE_IF "org.freedesktop.systemd1.Service"
#define UNIT_NAME_MAX 256
#define PROP_MAX (64 * 1024)

/* set by fp_shape_read_unit before any other function here runs */
static const struct fp_sdbus *sd;

struct prop {
	const char *name;
	const char *sig;
	const char *iface;
};

static const struct prop props[] = {
	{ "ActiveState", "s", "org.freedesktop.systemd1.Unit" },
	{ "AmbientCapabilities", "t", SERVICE_IF },
	{ "BindPaths", "a(ssbt)", SERVICE_IF },
	{ "BindReadOnlyPaths", "a(ssbt)", SERVICE_IF },
	{ "CapabilityBoundingSet", "t", SERVICE_IF },
	{ "DynamicUser", "b", SERVICE_IF },
	{ "Group", "s", SERVICE_IF },
	{ "NoNewPrivileges", "b", SERVICE_IF },
	{ "PrivateNetwork", "b", SERVICE_IF },
	{ "PrivateTmp", "b", SERVICE_IF },
	{ "ProtectHome", "s", SERVICE_IF },
	{ "ProtectSystem", "s", SERVICE_IF },
	{ "ReadOnlyPaths", "as", SERVICE_IF },
	{ "ReadWritePaths", "as", SERVICE_IF },
	{ "RestrictAddressFamilies", "(bas)", SERVICE_IF },
	{ "SystemCallFilter", "(bas)", SERVICE_IF },
	{ "User", "s", SERVICE_IF },
};

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* a sorted, space-separated set; "" for none */
static char *join_sorted(char **v, const char *prefix)
{
	size_t n = 0, len = strlen(prefix) + 1, i;
	char *out;

	while (v && v[n])
		len += strlen(v[n++]) + 1;
	if (len > PROP_MAX)
		return NULL;
	qsort(v, n, sizeof(*v), strp_cmp);
	out = malloc(len);
	if (!out)
		return NULL;
	strcpy(out, prefix);
	for (i = 0; i < n; i++) {
		if (i || prefix[0])
			strcat(out, " ");
		strcat(out, v[i]);
	}
	return out;
}

/* systemd's "every capability" is all 64 bits; name only real ones */
static uint64_t known_caps(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = 63;

	if (f) {
		if (fscanf(f, "%d", &last) != 1 || last < 0 || last > 63)
			last = 63;
		fclose(f);
	}
	return last == 63 ? ~0ULL : (1ULL << (last + 1)) - 1;
}

static char *caps_text(uint64_t mask)
{
	char buf[16], *v[65], *out;
	size_t n = 0, i;

	mask &= known_caps();
	for (i = 0; i < 64; i++)
		if (mask >> i & 1)
			v[n++] = strdup(fp_cap_name(i, buf, sizeof(buf)));
	v[n] = NULL;
	for (i = 0; i < n; i++)
		if (!v[i])
			break;
	out = i == n ? join_sorted(v, "") : NULL;
	for (i = 0; i < n; i++)
		free(v[i]);
	return out;
}

/* BindPaths: "SOURCE:DEST" each, sorted */
static char *binds_text(sd_bus_message *m)
{
	const char *src, *dst;
	char **v = NULL, **nv, *out = NULL;
	size_t n = 0, i;
	uint64_t flags;
	int ignore, r;

	if (sd->message_enter_container(m, 'a', "(ssbt)") < 0)
		return NULL;
	while ((r = sd->message_read(m, "(ssbt)", &src, &dst, &ignore,
				     &flags)) > 0) {
		nv = n < 4096 ? realloc(v, (n + 2) * sizeof(*v)) : NULL;
		if (!nv)
			goto out;
		v = nv;
		if (asprintf(&v[n], "%s%s:%s", ignore ? "-" : "", src, dst) < 0)
			goto out;
		v[++n] = NULL;
	}
	if (r == 0)
		out = join_sorted(v ? v : (char *[]){ NULL }, "");
out:
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return out;
}

static char *get_prop(sd_bus *bus, const char *path, const struct prop *p,
		      sd_bus_error *e)
{
	sd_bus_message *m = NULL;
	char *out = NULL, **strv = NULL;
	const char *s;
	uint64_t t;
	int b, r;

	r = sd->get_property(bus, DEST, path, p->iface, p->name, e, &m, p->sig);
	if (r < 0)
		return NULL;
	if (!strcmp(p->sig, "s") && sd->message_read(m, "s", &s) >= 0)
		out = strndup(s, PROP_MAX);
	else if (!strcmp(p->sig, "b") && sd->message_read(m, "b", &b) >= 0)
		out = strdup(b ? "yes" : "no");
	else if (!strcmp(p->sig, "t") && sd->message_read(m, "t", &t) >= 0)
		out = caps_text(t);
	else if (!strcmp(p->sig, "a(ssbt)"))
		out = binds_text(m);
	else if (!strcmp(p->sig, "as") && sd->message_read_strv(m, &strv) >= 0)
		out = join_sorted(strv, "");
	else if (!strcmp(p->sig, "(bas)") &&
		 sd->message_enter_container(m, 'r', "bas") >= 0 &&
		 sd->message_read(m, "b", &b) >= 0 &&
		 sd->message_read_strv(m, &strv) >= 0)
		/* an empty deny list is no filter at all */
		out = join_sorted(strv, b ? "allow:" : "deny:");
	if (strv)
		for (char **x = strv; *x; x++)
			free(*x);
	free(strv);
	sd->message_unref(m);
	return out;
}

static int bus_fail(struct fp_shape *s, const char *what, sd_bus_error *e,
		    int r)
{
	fp_shape_note(s, "%s: %s", what,
		      e && e->message ? e->message : strerror(-r));
	sd->error_free(e);
	return -ENOENT;
}

static int read_props(struct fp_shape *s, sd_bus *bus, const char *path)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	struct fp_shape_unit *u = &s->unit;
	uint32_t pid = 0;
	char *cg = NULL;
	size_t i;
	int r;

	for (i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		u->keys[u->nprops] = props[i].name;
		u->vals[u->nprops] = get_prop(bus, path, &props[i], &e);
		if (!u->vals[u->nprops])
			return bus_fail(s, props[i].name, &e, -EIO);
		u->nprops++;
	}
	r = sd->get_property_trivial(bus, DEST, path, SERVICE_IF, "MainPID", &e,
				     'u', &pid);
	if (r < 0)
		return bus_fail(s, "MainPID", &e, r);
	r = sd->get_property_string(bus, DEST, path, SERVICE_IF, "ControlGroup",
				    &e, &cg);
	if (r < 0)
		return bus_fail(s, "ControlGroup", &e, r);
	u->main_pid = pid;
	u->control_group = cg;
	return 0;
}

int fp_shape_read_unit(struct fp_shape *s, const char *unit)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	sd_bus *bus = NULL;
	const char *path;
	char why[256];
	int r;

	s->has_unit = true;
	if (!unit[0] || strlen(unit) > UNIT_NAME_MAX || strchr(unit, '/'))
		return -EINVAL;
	if (asprintf(&s->unit.name, "%s%s", unit,
		     strchr(unit, '.') ? "" : ".service") < 0)
		return -ENOMEM;
	sd = fp_sdbus_load(why, sizeof(why));
	if (!sd) {
		fp_shape_note(s, "the system bus: %s", why);
		return -ENOENT;
	}
	r = sd->open_system(&bus);
	if (r < 0)
		return bus_fail(s, "the system bus", NULL, r);
	r = sd->call_method(bus, DEST, "/org/freedesktop/systemd1",
			    "org.freedesktop.systemd1.Manager", "LoadUnit", &e,
			    &reply, "s", s->unit.name);
	if (r >= 0)
		r = sd->message_read(reply, "o", &path);
	if (r < 0)
		r = bus_fail(s, s->unit.name, &e, r);
	else
		r = read_props(s, bus, path);
	sd->message_unref(reply);
	sd->flush_close_unref(bus);
	return r;
}
