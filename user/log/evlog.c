// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "evlog.h"

#define FRAME_TARGET (64 * 1024)
/*
 * zlib's fastest level: on the logs of an exec loop and an open loop it
 * takes a third to two fifths of level 6's CPU for 7-10% more bytes (still
 * about 3 bytes per event for opens), and compression was half of the
 * collector's time when recording.
 */
#define FRAME_ZLEVEL 1

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

/* A plain log has no segment header; its version is that of its records. */
static int write_file_header(struct fp_evlog_writer *w)
{
	unsigned char hdr[FP_LOG_SEG_HDR] = { 0 };
	size_t len = FP_LOG_FILE_HDR;

	memcpy(hdr, FP_LOG_MAGIC, 8);
	put_le16(hdr + 8, FP_LOG_VERSION_PLAIN);
	if (w->max) {
		put_le16(hdr + 8, FP_LOG_VERSION);
		put_le16(hdr + 10, FP_LOG_SEGMENTED);
		put_le32(hdr + 12, w->seg);
		memcpy(hdr + FP_LOG_FILE_HDR, w->run_id, FP_LOG_RUN_ID);
		len = FP_LOG_SEG_HDR;
	}
	return write_all(w, hdr, len);
}

int fp_evlog_open_segments(struct fp_evlog_writer *w, int fd, const char *path,
			   uint64_t max, fp_evlog_segment_fn next, void *ctx,
			   char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->fd = w->fd0 = fd;
	w->last_flush_ms = mono_ms();
	if (max) {
		if (max < FP_LOG_SEG_MIN || !next) {
			w->err = -EINVAL;
			snprintf(err, errlen,
				 "footprint: a log segment is at least 1M");
			return w->err;
		}
		/* not a secret, only unique: no two runs share one */
		if (getrandom(w->run_id, sizeof(w->run_id), 0) !=
		    sizeof(w->run_id)) {
			w->err = -errno;
			snprintf(err, errlen,
				 "footprint: cannot make the log's run id: %s",
				 strerror(errno));
			return w->err;
		}
		w->max = max;
		w->next = next;
		w->next_ctx = ctx;
	}
	if (write_file_header(w)) {
		snprintf(err, errlen, "footprint: cannot write the log %s: %s",
			 path, strerror(-w->err));
		return w->err;
	}
	return 0;
}

int fp_evlog_open(struct fp_evlog_writer *w, int fd, const char *path,
		  char *err, size_t errlen)
{
	return fp_evlog_open_segments(w, fd, path, 0, NULL, NULL, err, errlen);
}

static int fail(struct fp_evlog_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

/*
 * The segment is full: the next frame goes to a new one. The old one is
 * on disk before the new one exists, so a reader never finds a segment
 * after one that is still short of its frames.
 */
static int next_segment(struct fp_evlog_writer *w)
{
	int fd;

	if (fsync(w->fd) && errno != EINVAL)
		return fail(w, -errno);
	fd = w->next(w->next_ctx, w->seg + 1, w->msg, sizeof(w->msg));
	if (fd < 0)
		return fail(w, fd);
	if (w->fd != w->fd0)
		close(w->fd);
	w->fd = fd;
	w->seg++;
	w->offset = 0;
	w->seg_frames = 0;
	return write_file_header(w);
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
	/* after a failed write nothing more: a later frame would hide a gap */
	if (!w->raw_len || w->fd < 0 || w->err)
		return w->err;
	zlen = compressBound(w->raw_len);
	if (zlen > w->zcap) {
		unsigned char *n = realloc(w->zbuf, zlen);

		if (!n)
			return -ENOMEM;
		w->zbuf = n;
		w->zcap = zlen;
	}
	ret = compress2(w->zbuf, &zlen, w->raw, w->raw_len, FRAME_ZLEVEL);
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
	/* only between frames; a frame larger than max gets one of its own */
	if (w->max && w->seg_frames &&
	    w->offset + sizeof(hdr) + zlen > w->max && next_segment(w))
		return w->err;
	/* one write per part; a reader sees a whole frame or a cut one */
	if (write_all(w, hdr, sizeof(hdr)) || write_all(w, w->zbuf, zlen))
		return w->err;
	w->seg_frames++;
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
		if (w->fd0 >= 0 && w->fd0 != w->fd)
			close(w->fd0);
	}
	w->fd = w->fd0 = -1;
	free(w->raw);
	free(w->zbuf);
	w->raw = w->zbuf = NULL;
	return ret ? ret : w->err;
}

/* ---- reading ---- */

static void reader_init(struct fp_evlog_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->dirfd = -1;
}

static char *seg_name(const char *base, unsigned int n)
{
	char *s;

	if (!n)
		return strdup(base);
	return asprintf(&s, "%s.%u", base, n) < 0 ? NULL : s;
}

/* What a segment's file header says. */
struct seg_head {
	unsigned int version;
	bool segmented;
	unsigned char run_id[FP_LOG_RUN_ID];
	uint64_t size, data; /* the file's size, where its frames start */
};

/*
 * Check fd, opened as segment n (path names it), against the log read so
 * far: 0 with h filled; -EBADMSG, -EINVAL or -EPROTO; for n > 0, -ENODATA
 * when it is not segment n of this log (a gap). err says why.
 */
static int check_segment(const struct fp_evlog_reader *r, int fd,
			 const char *path, unsigned int n, struct seg_head *h,
			 char *err, size_t errlen)
{
	unsigned char hdr[FP_LOG_SEG_HDR];
	unsigned int flags, seg;
	struct stat st;
	ssize_t got;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file", path);
		return n ? -ENODATA : -EINVAL;
	}
	h->size = st.st_size;
	got = pread(fd, hdr, sizeof(hdr), 0);
	if (got < FP_LOG_FILE_HDR || memcmp(hdr, FP_LOG_MAGIC, 8)) {
		snprintf(
			err, errlen,
			"%s is not a footprint event log (no header at offset 0)",
			path);
		return n ? -ENODATA : -EBADMSG;
	}
	h->version = hdr[8] | hdr[9] << 8;
	flags = hdr[10] | hdr[11] << 8;
	seg = get_le32(hdr + 12);
	if (h->version > FP_LOG_VERSION) {
		snprintf(
			err, errlen,
			"%s has log format version %u; this footprint reads up to %u: upgrade footprint",
			path, h->version, FP_LOG_VERSION);
		return -EPROTO;
	}
	h->segmented = h->version >= 4 && (flags & FP_LOG_SEGMENTED);
	h->data = h->segmented ? FP_LOG_SEG_HDR : FP_LOG_FILE_HDR;
	if (h->segmented && got != FP_LOG_SEG_HDR) {
		snprintf(err, errlen, "%s is cut inside its segment header",
			 path);
		return n ? -ENODATA : -EBADMSG;
	}
	if (h->segmented)
		memcpy(h->run_id, hdr + FP_LOG_FILE_HDR, FP_LOG_RUN_ID);
	if (!n && h->segmented && seg) {
		snprintf(
			err, errlen,
			"%s is segment %u of a log in segments; read the log from its segment 0, the file without the .%u",
			path, seg, seg);
		return -EBADMSG;
	}
	if (n &&
	    (!h->segmented || memcmp(r->run_id, h->run_id, FP_LOG_RUN_ID))) {
		snprintf(
			err, errlen,
			"%s is not segment %u of this log: it belongs to another run",
			path, n);
		return -ENODATA;
	}
	if (n && seg != n) {
		snprintf(err, errlen,
			 "%s is segment %u of this log, not segment %u", path,
			 seg, n);
		return -ENODATA;
	}
	return 0;
}

/* fd (taken) is segment n, shown (taken) in messages: read on from it */
static int reader_start(struct fp_evlog_reader *r, int fd, unsigned int n,
			char *shown)
{
	struct seg_head h = { 0 };
	int ret = check_segment(r, fd, shown, n, &h, r->err, sizeof(r->err));

	if (ret) {
		close(fd);
		free(shown);
		return ret;
	}
	/* opened without blocking, so a FIFO could not hang us */
	fcntl(fd, F_SETFL, 0);
	if (r->fd >= 0)
		close(r->fd);
	free(r->seg_shown);
	r->fd = fd;
	r->seg_shown = shown;
	r->seg = n;
	r->size = h.size;
	r->offset = h.data;
	if (!n) {
		r->version = h.version;
		r->segmented = h.segmented;
		memcpy(r->run_id, h.run_id, FP_LOG_RUN_ID);
	}
	return 0;
}

int fp_evlog_reader_open_fd(struct fp_evlog_reader *r, int fd, int dirfd,
			    const char *name, const char *shown)
{
	char *s0;

	reader_init(r);
	r->dirfd = dirfd;
	r->name = strdup(name ? name : "");
	r->shown = strdup(shown);
	s0 = strdup(shown);
	if (!r->name || !r->shown || !s0) {
		close(fd);
		free(s0);
		snprintf(r->err, sizeof(r->err), "out of memory");
		return -ENOMEM;
	}
	return reader_start(r, fd, 0, s0);
}

int fp_evlog_reader_open(struct fp_evlog_reader *r, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		int e = errno;

		reader_init(r);
		snprintf(r->err, sizeof(r->err), "cannot open %s: %s", path,
			 strerror(e));
		return -e;
	}
	return fp_evlog_reader_open_fd(r, fd, AT_FDCWD, path, path);
}

static int open_segment(const struct fp_evlog_reader *r, unsigned int n)
{
	char *name = seg_name(r->name, n);
	int fd;

	if (!name)
		return -ENOMEM;
	fd = openat(r->dirfd, name,
		    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	fd = fd < 0 ? -errno : fd;
	free(name);
	return fd;
}

/*
 * The segment ended cleanly and the log goes on: the next segment, whose
 * absence is a gap (-ENODATA, r->err naming it).
 */
static int next_segment_in(struct fp_evlog_reader *r)
{
	unsigned int n = r->seg + 1;
	char *shown = seg_name(r->shown, n);
	int fd = r->dirfd == -1 ? -ENOENT : open_segment(r, n);

	if (!shown) {
		if (fd >= 0)
			close(fd);
		snprintf(r->err, sizeof(r->err), "out of memory");
		return -ENOMEM;
	}
	if (fd < 0) {
		snprintf(r->err, sizeof(r->err), "its next segment, %s, %s%s",
			 shown,
			 fd == -ENOENT ? "is missing" :
			 fd == -ELOOP  ? "is a symbolic link" :
					 "cannot be read: ",
			 fd == -ENOENT || fd == -ELOOP ? "" : strerror(-fd));
		free(shown);
		return fd == -ENOMEM ? fd : -ENODATA;
	}
	return reader_start(r, fd, n, shown);
}

/* A segment cut short is a gap in the log when another follows it. */
static int cut_short(struct fp_evlog_reader *r, const char *what)
{
	int fd = -1;
	size_t n;

	if (r->segmented && r->dirfd != -1)
		fd = open_segment(r, r->seg + 1);
	n = snprintf(r->err, sizeof(r->err), "%s at offset %llu", what,
		     (unsigned long long)r->offset);
	if (fd >= 0 && n < sizeof(r->err))
		snprintf(r->err + n, sizeof(r->err) - n,
			 ", and segment %u follows: a gap in the log",
			 r->seg + 1);
	if (fd >= 0)
		close(fd);
	return -ENODATA;
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
		if (r->offset == r->size && r->segmented && !r->last) {
			int gap = next_segment_in(r);

			if (gap)
				return gap;
			continue;
		}
		if (r->offset == r->size) {
			r->at_end = true;
			return 0;
		}
		if (r->size - r->offset < FP_FRAME_HDR)
			return cut_short(
				r, "the log is cut inside a frame header");
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
		if (r->size - r->offset - FP_FRAME_HDR < zlen)
			return cut_short(r, "the log is cut inside the frame");
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
	free(r->name);
	free(r->shown);
	free(r->seg_shown);
	r->frame = NULL;
	r->name = r->shown = r->seg_shown = NULL;
}
