// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "evlog.h"

#define FRAME_TARGET (64 * 1024)

static void put_le16(unsigned char *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	put_le16(p, v);
	put_le16(p + 2, v >> 16);
}

static uint32_t get_le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int write_all(struct fp_evlog_writer *w, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (!w->err)
				w->err = -errno;
			return -errno;
		}
		p += n;
		len -= n;
		w->offset += n;
	}
	return 0;
}

int fp_evlog_open(struct fp_evlog_writer *w, int fd, const char *path,
		  char *err, size_t errlen)
{
	unsigned char hdr[FP_LOG_FILE_HDR] = { 0 };

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	memcpy(hdr, FP_LOG_MAGIC, 8);
	put_le16(hdr + 8, FP_LOG_VERSION);
	w->last_flush_ms = mono_ms();
	if (write_all(w, hdr, sizeof(hdr))) {
		snprintf(err, errlen, "footprint: cannot write the log %s: %s",
			 path, strerror(-w->err));
		return w->err;
	}
	return 0;
}

static int put_varint(struct fp_evlog_writer *w, uint64_t v)
{
	while (v >= 0x80) {
		w->raw[w->raw_len++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	w->raw[w->raw_len++] = v;
	return 0;
}

int fp_evlog_put(struct fp_evlog_writer *w, unsigned int type, const void *body,
		 size_t len)
{
	size_t need = w->raw_len + len + 16;

	if (w->fd < 0)
		return -EBADF;
	if (len > FP_FRAME_MAX / 2)
		return -E2BIG;
	if (need > FP_FRAME_MAX && fp_evlog_flush(w))
		return w->err;
	need = w->raw_len + len + 16;
	if (need > w->raw_cap) {
		size_t cap = w->raw_cap ? w->raw_cap : FRAME_TARGET * 2;
		unsigned char *n;

		while (cap < need)
			cap *= 2;
		n = realloc(w->raw, cap);
		if (!n)
			return -ENOMEM;
		w->raw = n;
		w->raw_cap = cap;
	}
	put_varint(w, type);
	put_varint(w, len);
	memcpy(w->raw + w->raw_len, body, len);
	w->raw_len += len;
	if (w->raw_len >= FRAME_TARGET)
		return fp_evlog_flush(w);
	return 0;
}

int fp_evlog_flush(struct fp_evlog_writer *w)
{
	unsigned char hdr[FP_FRAME_HDR];
	uLongf zlen;
	uint32_t crc;
	int ret;

	w->last_flush_ms = mono_ms();
	if (!w->raw_len || w->fd < 0)
		return w->err;
	zlen = compressBound(w->raw_len);
	if (zlen > w->zcap) {
		unsigned char *n = realloc(w->zbuf, zlen);

		if (!n)
			return -ENOMEM;
		w->zbuf = n;
		w->zcap = zlen;
	}
	ret = compress2(w->zbuf, &zlen, w->raw, w->raw_len, 6);
	if (ret != Z_OK)
		return -ENOMEM;
	put_le32(hdr, FP_FRAME_SYNC);
	hdr[4] = FP_FRAME_RECORDS;
	hdr[5] = 0;
	put_le16(hdr + 6, 0);
	put_le32(hdr + 8, zlen);
	put_le32(hdr + 12, w->raw_len);
	crc = crc32(0, hdr, 16);
	crc = crc32(crc, w->zbuf, zlen);
	put_le32(hdr + 16, crc);
	/* its own CRC tells a damaged length from a log cut short */
	put_le32(hdr + 20, crc32(0, hdr, 20));
	/* one write per part; a reader sees a whole frame or a cut one */
	if (write_all(w, hdr, sizeof(hdr)) || write_all(w, w->zbuf, zlen))
		return w->err;
	w->raw_len = 0;
	return 0;
}

int fp_evlog_tick(struct fp_evlog_writer *w)
{
	if (mono_ms() - w->last_flush_ms < 1000)
		return 0;
	return fp_evlog_flush(w);
}

int fp_evlog_close(struct fp_evlog_writer *w)
{
	int ret = 0;

	if (w->fd >= 0) {
		ret = fp_evlog_flush(w);
		if (!ret && fsync(w->fd) && errno != EINVAL)
			ret = -errno;
		if (close(w->fd) && !ret)
			ret = -errno;
	}
	w->fd = -1;
	free(w->raw);
	free(w->zbuf);
	w->raw = w->zbuf = NULL;
	return ret ? ret : w->err;
}

/* ---- reading ---- */

int fp_evlog_reader_open(struct fp_evlog_reader *r, const char *path)
{
	unsigned char hdr[FP_LOG_FILE_HDR];
	struct stat st;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		snprintf(r->err, sizeof(r->err), "cannot open %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	if (fstat(r->fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(r->err, sizeof(r->err), "%s is not a regular file",
			 path);
		return -EINVAL;
	}
	r->size = st.st_size;
	n = pread(r->fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr, FP_LOG_MAGIC, 8)) {
		snprintf(
			r->err, sizeof(r->err),
			"%s is not a footprint event log (no header at offset 0)",
			path);
		return -EBADMSG;
	}
	r->version = hdr[8] | hdr[9] << 8;
	if (r->version > FP_LOG_VERSION) {
		snprintf(
			r->err, sizeof(r->err),
			"%s has log format version %u; this footprint reads up to %u: upgrade footprint",
			path, r->version, FP_LOG_VERSION);
		return -EPROTO;
	}
	r->offset = FP_LOG_FILE_HDR;
	return 0;
}

/* Read the next frame; 1, 0 at a clean end, -ENODATA cut, -EBADMSG bad. */
static int read_frame(struct fp_evlog_reader *r)
{
	unsigned char hdr[FP_FRAME_HDR], *z = NULL;
	uint32_t zlen, rawlen, crc;
	uLongf outlen;
	ssize_t n;
	int ret = -EBADMSG;

	for (;;) {
		if (r->offset == r->size) {
			r->at_end = true;
			return 0;
		}
		if (r->size - r->offset < FP_FRAME_HDR) {
			snprintf(
				r->err, sizeof(r->err),
				"the log is cut inside a frame header at offset %llu",
				(unsigned long long)r->offset);
			return -ENODATA;
		}
		n = pread(r->fd, hdr, sizeof(hdr), r->offset);
		if (n != FP_FRAME_HDR) {
			snprintf(r->err, sizeof(r->err),
				 "read error at offset %llu",
				 (unsigned long long)r->offset);
			return -EBADMSG;
		}
		zlen = get_le32(hdr + 8);
		rawlen = get_le32(hdr + 12);
		if (get_le32(hdr) != FP_FRAME_SYNC || zlen > FP_FRAME_MAX ||
		    rawlen > FP_FRAME_MAX ||
		    crc32(0, hdr, 20) != get_le32(hdr + 20)) {
			snprintf(r->err, sizeof(r->err),
				 "damaged frame header at offset %llu",
				 (unsigned long long)r->offset);
			return -EBADMSG;
		}
		if (r->size - r->offset - FP_FRAME_HDR < zlen) {
			snprintf(
				r->err, sizeof(r->err),
				"the log is cut inside the frame at offset %llu",
				(unsigned long long)r->offset);
			return -ENODATA;
		}
		r->frame_offset = r->offset;
		z = malloc(zlen ? zlen : 1);
		free(r->frame);
		r->frame = malloc(rawlen ? rawlen : 1);
		if (!z || !r->frame) {
			ret = -ENOMEM;
			goto cleanup;
		}
		n = pread(r->fd, z, zlen, r->offset + FP_FRAME_HDR);
		crc = crc32(crc32(0, hdr, 16), z,
			    n == (ssize_t)zlen ? zlen : 0);
		if (n != (ssize_t)zlen || crc != get_le32(hdr + 16)) {
			snprintf(
				r->err, sizeof(r->err),
				"checksum mismatch in the frame at offset %llu: the log is damaged",
				(unsigned long long)r->offset);
			goto cleanup;
		}
		r->offset += FP_FRAME_HDR + zlen;
		if (hdr[4] != FP_FRAME_RECORDS) {
			/* a frame type from a later version: skip it */
			free(z);
			z = NULL;
			continue;
		}
		outlen = rawlen;
		if (uncompress(r->frame, &outlen, z, zlen) != Z_OK ||
		    outlen != rawlen) {
			snprintf(
				r->err, sizeof(r->err),
				"the frame at offset %llu does not decompress: the log is damaged",
				(unsigned long long)r->frame_offset);
			goto cleanup;
		}
		r->frame_len = rawlen;
		r->pos = 0;
		ret = 1;
		break;
	}
cleanup:
	free(z);
	return ret;
}

static int get_varint(const unsigned char *p, size_t len, size_t *pos,
		      uint64_t *out)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*pos < len && shift < 64) {
		unsigned char c = p[(*pos)++];

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return 0;
		}
		shift += 7;
	}
	return -EBADMSG;
}

int fp_evlog_next(struct fp_evlog_reader *r, unsigned int *type,
		  const unsigned char **body, size_t *len)
{
	uint64_t t, l;
	int ret;

	while (!r->frame || r->pos >= r->frame_len) {
		ret = read_frame(r);
		if (ret <= 0)
			return ret;
	}
	if (get_varint(r->frame, r->frame_len, &r->pos, &t) ||
	    get_varint(r->frame, r->frame_len, &r->pos, &l) ||
	    l > r->frame_len - r->pos) {
		snprintf(r->err, sizeof(r->err),
			 "a record in the frame at offset %llu is damaged",
			 (unsigned long long)r->frame_offset);
		return -EBADMSG;
	}
	*type = t;
	*body = r->frame + r->pos;
	*len = l;
	r->pos += l;
	return 1;
}

void fp_evlog_reader_close(struct fp_evlog_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->frame);
	r->frame = NULL;
}
