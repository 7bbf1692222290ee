// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

struct comp {
	const char *s;
	size_t len;
};

static int push(struct comp **v, size_t *n, size_t *cap, const char *s,
		size_t len)
{
	if (len == 0 || (len == 1 && s[0] == '.'))
		return 0;
	if (len == 2 && s[0] == '.' && s[1] == '.') {
		/* ".." above "/" is "/" */
		if (*n)
			(*n)--;
		return 0;
	}
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct comp *nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = (struct comp){ s, len };
	return 0;
}

static int push_split(struct comp **v, size_t *n, size_t *cap, const char *s,
		      size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i;

		while (j < len && s[j] != '/')
			j++;
		if (push(v, n, cap, s + i, j - i))
			return -ENOMEM;
		i = j + 1;
	}
	return 0;
}

int fp_path_join(struct fp_bytes *out, const char *raw, size_t raw_len,
		 const char *base, size_t base_len)
{
	struct comp *v = NULL;
	size_t n = 0, cap = 0, total = 0, i;
	int err = -ENOMEM;
	char *p;

	if (!(raw_len && raw[0] == '/') && base_len) {
		/* names come leaf first; walk them from the end */
		size_t end = base_len;

		while (end > 0) {
			size_t start = end - 1; /* index of this name's NUL */

			while (start > 0 && base[start - 1] != '\0')
				start--;
			if (push(&v, &n, &cap, base + start, end - 1 - start))
				goto cleanup;
			end = start;
		}
	}
	if (push_split(&v, &n, &cap, raw, raw_len))
		goto cleanup;

	for (i = 0; i < n; i++)
		total += 1 + v[i].len;
	p = malloc(total ? total + 1 : 2);
	if (!p)
		goto cleanup;
	out->data = p;
	if (!n)
		*p++ = '/';
	for (i = 0; i < n; i++) {
		*p++ = '/';
		memcpy(p, v[i].s, v[i].len);
		p += v[i].len;
	}
	*p = '\0';
	out->len = p - out->data;
	err = 0;
cleanup:
	free(v);
	return err;
}
