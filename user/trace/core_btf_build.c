// SPDX-License-Identifier: GPL-2.0
/* The small BTF of core_btf.h: which kernel types, and their records. */
#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "core_btf.h"

#define TYPE_RELOS                                                    \
	(1u << BPF_CORE_TYPE_ID_TARGET | 1u << BPF_CORE_TYPE_EXISTS | \
	 1u << BPF_CORE_TYPE_SIZE | 1u << BPF_CORE_TYPE_MATCHES)
#define NBUCKETS 256

struct buf {
	unsigned char *p;
	size_t len, cap;
};

/* a relocated local type, as libbpf will look for it */
struct want {
	const char *name;
	size_t len; /* the essential part, flavour (___x) cut off */
	unsigned int kind;
	bool own_id; /* a relocation asks for the kernel's id of it */
	bool found;
	struct want *next; /* in its hash bucket */
};

struct build {
	const struct fp_btf_raw *kern;
	uint32_t *newid; /* kernel id to small id; 0: not in it */
	uint32_t *order; /* kernel ids of the small ids after top */
	uint32_t norder;
	uint32_t top; /* the highest id kept as the kernel's */
	struct buf types, strs;
};

size_t fp_core_essential_len(const char *s)
{
	size_t n = strlen(s), i;

	for (i = n < 5 ? 0 : n - 4; i-- > 0;)
		if (s[i] != '_' && !strncmp(s + i + 1, "___", 3) &&
		    s[i + 4] != '_')
			return i + 1;
	return n;
}

static unsigned int bucket(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h % NBUCKETS;
}

bool fp_core_kinds_compat(unsigned int a, unsigned int b)
{
	bool ea = a == BTF_KIND_ENUM || a == BTF_KIND_ENUM64;
	bool eb = b == BTF_KIND_ENUM || b == BTF_KIND_ENUM64;

	return a == b || (ea && eb);
}

/*
 * What libbpf will look for. -ENOENT for a relocation the small BTF
 * cannot answer as the kernel's would.
 */
static int wants_of(const struct fp_btf_raw *local,
		    const struct fp_core_relos *r, struct want *w, size_t *nw,
		    struct want **heads)
{
	size_t i;

	*nw = 0;
	for (i = 0; i < r->n; i++) {
		const struct btf_type *t =
			fp_btf_raw_type(local, r->roots[i].local_id);
		unsigned int kind, kinds = r->roots[i].kinds;
		const char *name;

		if (kinds == 1u << BPF_CORE_TYPE_ID_LOCAL)
			continue; /* answered from the object alone */
		if (!t)
			return -EINVAL;
		name = fp_btf_raw_str(local, t->name_off);
		kind = BTF_INFO_KIND(t->info);
		if (!name || !*name)
			return -ENOENT;
		if (kinds & 1u << BPF_CORE_TYPE_MATCHES)
			return -ENOENT;
		if ((kinds & TYPE_RELOS) && kind != BTF_KIND_STRUCT &&
		    kind != BTF_KIND_UNION && kind != BTF_KIND_ENUM &&
		    kind != BTF_KIND_ENUM64)
			return -ENOENT;
		w[*nw] = (struct want){
			.name = name,
			.len = fp_core_essential_len(name),
			.kind = kind,
			.own_id = kinds & 1u << BPF_CORE_TYPE_ID_TARGET,
		};
		w[*nw].next = heads[bucket(name, w[*nw].len)];
		heads[bucket(name, w[*nw].len)] = &w[*nw];
		(*nw)++;
	}
	return 0;
}

/* the kinds some want may match, as bits */
static uint32_t kinds_wanted(const struct want *w, size_t nw)
{
	uint32_t kinds = 0;
	size_t i;

	for (i = 0; i < nw; i++)
		kinds |= 1u << w[i].kind;
	if (kinds & (1u << BTF_KIND_ENUM | 1u << BTF_KIND_ENUM64))
		kinds |= 1u << BTF_KIND_ENUM | 1u << BTF_KIND_ENUM64;
	return kinds;
}

/*
 * Every kernel type some want names is kept: at its own id when a
 * relocation asks for that id (bpf_core_type_id_kernel()), top the
 * highest such, else after top, in the order found.
 */
static void keep_wanted(struct build *b, struct want **heads, uint32_t kinds)
{
	const struct fp_btf_raw *k = b->kern;
	uint32_t id, i, n = 0;

	for (id = 1; id <= k->n; id++) {
		const struct btf_type *t = fp_btf_raw_type(k, id);
		const char *name;
		struct want *w;
		size_t len;

		if (!(kinds & 1u << BTF_INFO_KIND(t->info)))
			continue;
		name = fp_btf_raw_str(k, t->name_off);
		if (!name || !*name)
			continue;
		len = fp_core_essential_len(name);
		for (w = heads[bucket(name, len)]; w; w = w->next) {
			if (w->len != len || strncmp(w->name, name, len) ||
			    !fp_core_kinds_compat(w->kind,
						  BTF_INFO_KIND(t->info)))
				continue;
			w->found = true;
			if (w->own_id) {
				b->newid[id] = id;
				b->top = id;
			} else if (!b->newid[id]) {
				b->newid[id] = UINT32_MAX; /* listed */
				b->order[n++] = id;
			}
		}
	}
	/* the listed ones follow top, now that it is known */
	for (i = 0; i < n; i++) {
		id = b->order[i];
		if (b->newid[id] == id)
			continue; /* another want keeps its id */
		b->newid[id] = b->top + 1 + b->norder;
		b->order[b->norder++] = id;
	}
}

/* id, held by value: a new id after top, unless it has one */
static int reach(struct build *b, uint32_t id)
{
	if (id > b->kern->n)
		return -EINVAL;
	if (!id || b->newid[id])
		return 0;
	b->newid[id] = b->top + 1 + b->norder;
	b->order[b->norder++] = id;
	return 0;
}

/* what t holds by value; -ENOENT for a kind no type holds */
static int reach_from(struct build *b, const struct btf_type *t)
{
	unsigned int i, vlen = BTF_INFO_VLEN(t->info);
	const struct btf_member *m = (const void *)(t + 1);
	const struct btf_param *p = (const void *)(t + 1);
	const struct btf_array *a = (const void *)(t + 1);
	int ret = 0;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < vlen && !ret; i++)
			ret = reach(b, m[i].type);
		return ret;
	case BTF_KIND_ARRAY:
		return reach(b, a->type) ?: reach(b, a->index_type);
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return reach(b, t->type);
	case BTF_KIND_FUNC_PROTO:
		for (i = 0; i < vlen && !ret; i++)
			ret = reach(b, p[i].type);
		return ret ?: reach(b, t->type);
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
		return -ENOENT;
	}
	return 0; /* a pointer, or a type that holds none */
}

/* the kept types, then what they hold, breadth first */
static int close_over(struct build *b)
{
	uint32_t id, i;
	int ret;

	for (id = 1; id <= b->top; id++) {
		if (b->newid[id] != id)
			continue;
		ret = reach_from(b, fp_btf_raw_type(b->kern, id));
		if (ret)
			return ret;
	}
	for (i = 0; i < b->norder; i++) {
		ret = reach_from(b, fp_btf_raw_type(b->kern, b->order[i]));
		if (ret)
			return ret;
	}
	return 0;
}

static void *grow(struct buf *s, size_t n)
{
	unsigned char *p;
	size_t cap;

	if (s->cap - s->len < n) {
		cap = s->cap ? s->cap : 1 << 18;
		while (cap - s->len < n)
			cap *= 2;
		p = realloc(s->p, cap);
		if (!p)
			return NULL;
		s->p = p;
		s->cap = cap;
	}
	p = s->p + s->len;
	s->len += n;
	return p;
}

/* the kernel's string at off, added to the small BTF's; 0 if empty */
static int64_t add_str(struct build *b, uint32_t off)
{
	const char *s = fp_btf_raw_str(b->kern, off);
	size_t n, at = b->strs.len;
	void *p;

	if (!s)
		return -EINVAL;
	if (!*s)
		return 0;
	n = strnlen(s, b->kern->str_len - off) + 1;
	/* names are not shared: many references to one could grow it far */
	if (b->strs.len + n > UINT32_MAX / 2)
		return -EINVAL;
	p = grow(&b->strs, n);
	if (!p)
		return -ENOMEM;
	memcpy(p, s, n);
	return at;
}

/* *name_off renamed into the small BTF's strings */
static int rename_str(struct build *b, uint32_t *name_off)
{
	int64_t off = add_str(b, *name_off);

	if (off < 0)
		return off;
	*name_off = off;
	return 0;
}

/* the ids and names of t's trailing records (in the copy at d) renamed */
static int rename_tail(struct build *b, struct btf_type *t)
{
	unsigned int i, vlen = BTF_INFO_VLEN(t->info);
	struct btf_member *m = (void *)(t + 1);
	struct btf_param *p = (void *)(t + 1);
	struct btf_array *a = (void *)(t + 1);
	struct btf_enum *e = (void *)(t + 1);
	uint32_t *e64 = (void *)(t + 1);
	int ret = 0;

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < vlen && !ret; i++) {
			m[i].type = b->newid[m[i].type];
			ret = rename_str(b, &m[i].name_off);
		}
		return ret;
	case BTF_KIND_FUNC_PROTO:
		for (i = 0; i < vlen && !ret; i++) {
			p[i].type = b->newid[p[i].type];
			ret = rename_str(b, &p[i].name_off);
		}
		return ret;
	case BTF_KIND_ARRAY:
		a->type = b->newid[a->type];
		a->index_type = b->newid[a->index_type];
		return 0;
	case BTF_KIND_ENUM:
		for (i = 0; i < vlen && !ret; i++)
			ret = rename_str(b, &e[i].name_off);
		return ret;
	case BTF_KIND_ENUM64: /* name_off, val_lo32, val_hi32 */
		for (i = 0; i < vlen && !ret; i++)
			ret = rename_str(b, &e64[3 * i]);
		return ret;
	}
	return 0;
}

/* the kernel's type id, its ids and names those of the small BTF */
static int emit(struct build *b, uint32_t id)
{
	const struct btf_type *src = fp_btf_raw_type(b->kern, id);
	size_t n = sizeof(*src) + fp_btf_type_extra(src);
	unsigned int kind = BTF_INFO_KIND(src->info);
	struct btf_type *t;
	int ret;

	t = grow(&b->types, n);
	if (!t)
		return -ENOMEM;
	memcpy(t, src, n);
	if (kind == BTF_KIND_PTR)
		t->type = 0;
	else if (kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_VOLATILE ||
		 kind == BTF_KIND_CONST || kind == BTF_KIND_RESTRICT ||
		 kind == BTF_KIND_TYPE_TAG || kind == BTF_KIND_FUNC_PROTO)
		t->type = b->newid[t->type];
	ret = rename_str(b, &t->name_off);
	return ret ?: rename_tail(b, t);
}

static int emit_all(struct build *b)
{
	static const struct btf_type none = {
		.info = BTF_KIND_PTR << 24 /* no name, no vlen */
	};
	uint32_t id, i;
	void *p;
	int ret;

	/* the header goes first, the strings are added after the types */
	if (!grow(&b->types, sizeof(struct btf_header)) || !grow(&b->strs, 1))
		return -ENOMEM;
	b->strs.p[0] = '\0';
	for (id = 1; id <= b->top; id++) {
		if (b->newid[id] == id) {
			ret = emit(b, id);
			if (ret)
				return ret;
			continue;
		}
		p = grow(&b->types, sizeof(none));
		if (!p)
			return -ENOMEM;
		memcpy(p, &none, sizeof(none));
	}
	for (i = 0; i < b->norder; i++) {
		ret = emit(b, b->order[i]);
		if (ret)
			return ret;
	}
	/* what libbpf reads after the last type is a type, as in the kernel's */
	p = grow(&b->types, sizeof(none));
	if (!p)
		return -ENOMEM;
	memcpy(p, &none, sizeof(none));
	return 0;
}

/* header, types and strings in one buffer */
static int join(struct build *b, void **out, size_t *len)
{
	size_t type_len = b->types.len - sizeof(struct btf_header);
	struct btf_header h = {
		.magic = BTF_MAGIC,
		.version = BTF_VERSION,
		.hdr_len = sizeof(h),
		.type_len = type_len,
		.str_off = type_len,
		.str_len = b->strs.len,
	};
	void *p;

	if (type_len > UINT32_MAX / 2 || b->strs.len > UINT32_MAX / 2)
		return -EINVAL;
	p = grow(&b->types, b->strs.len);
	if (!p)
		return -ENOMEM;
	memcpy(p, b->strs.p, b->strs.len);
	memcpy(b->types.p, &h, sizeof(h));
	*out = b->types.p;
	*len = b->types.len;
	b->types.p = NULL;
	return 0;
}

int fp_core_btf_build(const struct fp_btf_raw *kern,
		      const struct fp_btf_raw *local,
		      const struct fp_core_relos *r,
		      const struct fp_core_modules *mods, void **out,
		      size_t *len)
{
	struct want *heads[NBUCKETS] = { 0 };
	struct build b = { .kern = kern };
	struct want *w = NULL;
	size_t nw, i;
	int ret;

	*out = NULL;
	w = calloc(r->n ? r->n : 1, sizeof(*w));
	b.newid = calloc(kern->n + 1, sizeof(*b.newid));
	b.order = malloc((kern->n + 1) * sizeof(*b.order));
	ret = -ENOMEM;
	if (!w || !b.newid || !b.order)
		goto cleanup;
	ret = wants_of(local, r, w, &nw, heads);
	if (ret)
		goto cleanup;
	keep_wanted(&b, heads, kinds_wanted(w, nw));
	/* libbpf would look in the modules for a type the kernel lacks */
	for (i = 0; i < nw && mods; i++)
		if (!w[i].found &&
		    mods->has(mods->ctx, w[i].name, w[i].len, w[i].kind)) {
			ret = -ENOENT;
			goto cleanup;
		}
	ret = close_over(&b);
	ret = ret ?: emit_all(&b);
	ret = ret ?: join(&b, out, len);
cleanup:
	free(b.types.p);
	free(b.strs.p);
	free(b.order);
	free(b.newid);
	free(w);
	return ret;
}
