// SPDX-License-Identifier: GPL-2.0
/* The sidecar's journal (sidecar_journal.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sidecar_journal.h"
#include "sidecar_peer.h"

/* what a start reads back of it */
#define READ_MAX (FP_SC_JOURNAL_ROTATE + 2 * FP_SC_JOURNAL_MAX)

int fp_sc_journal_open(struct fp_sc_journal *j, int statefd)
{
	struct stat st;

	memset(j, 0, sizeof(*j));
	j->fd = openat(statefd, FP_SC_JOURNAL,
		       O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		       0600);
	if (j->fd < 0)
		return -errno;
	if (fstat(j->fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 077)) {
		close(j->fd);
		j->fd = -1;
		return -EPERM;
	}
	return 0;
}

void fp_sc_journal_close(struct fp_sc_journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
}

void fp_sc_esc(char *out, size_t cap, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, o = 0;

	for (i = 0; i < len && o + 4 < cap; i++) {
		unsigned char c = s[i];

		if (c > ' ' && c < 0x7f && c != '%' && c != '=' && c != ',') {
			out[o++] = c;
			continue;
		}
		out[o++] = '%';
		out[o++] = hex[c >> 4];
		out[o++] = hex[c & 15];
	}
	if (cap)
		out[o < cap ? o : cap - 1] = '\0';
}

void fp_sc_journal_line(struct fp_sc_journal *j, bool must, const char *kind,
			const char *fmt, ...)
{
	char line[4096], when[32];
	struct tm tm;
	time_t now = time(NULL);
	va_list ap;
	int n, m;

	if (!j || j->fd < 0)
		return;
	if (!must && j->written >= FP_SC_JOURNAL_MAX) {
		j->dropped++;
		return;
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(line, sizeof(line), "%s time=%s ", kind, when);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m < (int)(sizeof(line) - n - 1) ? m : (int)(sizeof(line) - n - 2);
	line[n++] = '\n';
	/* one write on an O_APPEND file: a line is never torn */
	if (write(j->fd, line, n) == n)
		j->written += n;
}

/* the value of key= in the line (up to a space), into out */
static bool field(const char *line, const char *key, char *out, size_t cap)
{
	size_t k = strlen(key), n;
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[k] == '=') {
			p += k + 1;
			n = strcspn(p, " \n");
			snprintf(out, cap, "%.*s", (int)n, p);
			return true;
		}
		p += k;
	}
	return false;
}

static void take_scope(struct fp_sc_last *last, char *list)
{
	char *save = NULL, *tok;

	last->nscope = 0;
	for (tok = strtok_r(list, ",", &save);
	     tok && last->nscope < FP_SC_MAX_SCOPE;
	     tok = strtok_r(NULL, ",", &save))
		if (!fp_sc_id_parse(tok, &last->scope[last->nscope],
				    &last->scope_ticks[last->nscope]))
			last->nscope++;
}

static void take_line(struct fp_sc_last *last, const char *line)
{
	char v[1024], by[FP_SC_ID_LEN + 8], when[40];

	if (!strncmp(line, "start ", 6)) {
		memset(last, 0, sizeof(*last));
		last->any = true;
		if (field(line, "daemon", v, sizeof(v)))
			fp_sc_id_parse(v, &last->daemon, &last->ticks);
		if (field(line, "scope", v, sizeof(v)))
			take_scope(last, v);
		return;
	}
	if (!last->any ||
	    (strncmp(line, "stopped ", 8) && strncmp(line, "dead ", 5)))
		return;
	last->stopped = line[0] == 's';
	last->dead = line[0] == 'd';
	if (!field(line, "time", when, sizeof(when)))
		strcpy(when, "?");
	if (!field(line, "by", by, sizeof(by)))
		strcpy(by, "?");
	snprintf(last->end, sizeof(last->end), "at %s by pid %.*s", when,
		 (int)strcspn(by, ":"), by);
}

int fp_sc_journal_last(int statefd, struct fp_sc_last *last)
{
	int fd = openat(statefd, FP_SC_JOURNAL,
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *buf, *line, *nl;
	size_t have = 0;
	struct stat st;
	ssize_t n;

	memset(last, 0, sizeof(*last));
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0) {
		close(fd);
		return -EPERM;
	}
	/* only the end matters: the last start and what came after it */
	if (st.st_size > READ_MAX)
		lseek(fd, st.st_size - READ_MAX, SEEK_SET);
	buf = malloc(READ_MAX + 1);
	while (buf && have < READ_MAX &&
	       (n = read(fd, buf + have, READ_MAX - have)) > 0)
		have += n;
	close(fd);
	if (!buf)
		return -ENOMEM;
	buf[have] = '\0';
	for (line = buf; line < buf + have; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break; /* a torn last line is not a record */
		*nl = '\0';
		take_line(last, line);
	}
	free(buf);
	return 0;
}

void fp_sc_journal_rotate(int statefd)
{
	struct stat st;

	if (!fstatat(statefd, FP_SC_JOURNAL, &st, AT_SYMLINK_NOFOLLOW) &&
	    st.st_size > FP_SC_JOURNAL_ROTATE)
		renameat(statefd, FP_SC_JOURNAL, statefd, FP_SC_JOURNAL_OLD);
}
