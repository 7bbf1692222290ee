// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_btf.h"
#include "core_btf_mods.h"

static int write_all(int fd, const unsigned char *p, size_t len)
{
	ssize_t w;

	while (len) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		len -= w;
	}
	return 0;
}

/* the small BTF in a memfd, named by a path libbpf can open */
static int to_memfd(struct fp_core_btf *c, const void *btf, size_t len)
{
	int fd = memfd_create("footprint-core-btf", MFD_CLOEXEC), check, ret;

	if (fd < 0)
		return -errno;
	ret = write_all(fd, btf, len);
	snprintf(c->path, sizeof(c->path), "/proc/self/fd/%d", fd);
	/* libbpf opens the path; a /proc it cannot reach costs the load */
	check = ret ? -1 : open(c->path, O_RDONLY | O_CLOEXEC);
	if (check < 0) {
		ret = ret ?: -errno;
		close(fd);
		c->path[0] = '\0';
		return ret;
	}
	close(check);
	c->fd = fd;
	return 0;
}

/* the small BTF read back as libbpf will read it, and its size noted */
static int count(struct fp_core_btf *c, const struct fp_btf_raw *kern,
		 const void *btf, size_t len)
{
	struct fp_btf_raw small;
	int ret = fp_btf_raw_parse(&small, btf, len, false);

	if (ret)
		return ret;
	c->types = small.n;
	c->kernel_types = kern->n;
	return 0;
}

int fp_core_btf_make(struct fp_core_btf *c, const struct fp_btf_raw *kern,
		     const void *obj, size_t obj_len)
{
	struct fp_btf_raw local = { 0 };
	struct fp_core_relos r = { 0 };
	void *btf = NULL, *copy = NULL;
	struct fp_core_mods mods;
	size_t len = 0;
	bool any_mods;
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (getenv("FOOTPRINT_DEBUG_FULL_BTF"))
		return -ENOENT;
	if (!kern || !kern->off)
		return -EINVAL;
	/* the skeleton's bytes are a string: aligned as the compiler chose */
	if ((uintptr_t)obj % 8) {
		copy = malloc(obj_len);
		if (!copy)
			return -ENOMEM;
		obj = memcpy(copy, obj, obj_len);
	}
	ret = fp_core_relos_read(&r, obj, obj_len);
	ret = ret ?: fp_btf_raw_parse(&local, r.btf, r.btf_len, true);
	if (!ret) {
		any_mods = fp_core_mods_init(&mods, kern);
		ret = fp_core_btf_build(kern, &local, &r,
					any_mods ? &mods.iface : NULL, &btf,
					&len);
		fp_core_mods_free(&mods);
	}
	ret = ret ?: count(c, kern, btf, len);
	ret = ret ?: to_memfd(c, btf, len);
	free(copy);
	free(btf);
	fp_btf_raw_free(&local);
	fp_core_relos_free(&r);
	return ret;
}

void fp_core_btf_close(struct fp_core_btf *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->path[0] = '\0';
}
