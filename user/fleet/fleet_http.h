/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One ClickHouse server, over its HTTP interface (libcurl): a query is
 * POSTed as the body, an INSERT's SQL goes in the URL and its rows
 * (RowBinary) in the body. Only http and https, no redirect; the
 * credentials go in an Authorization header, never in a URL that a
 * message could show. One connection, kept alive between requests.
 */
#ifndef FP_FLEET_HTTP_H
#define FP_FLEET_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* the largest answer kept: a query that returns more fails */
#define FP_CH_ANSWER_MAX (64u << 20)

enum fp_ch_status {
	FP_CH_OK = 0,
	FP_CH_DOWN = -1, /* not reached: refused, timed out, no route, TLS */
	FP_CH_REFUSED = -2, /* it answered with an error */
	FP_CH_NOMEM = -3,
};

struct fp_ch {
	void *curl; /* CURL * */
	char *url; /* without credentials */
	char *shown; /* scheme://host:port/, for messages */
	char *user, *password; /* NULL: the server's default user */
	char *answer; /* the last answer, NUL-terminated */
	size_t answer_len, answer_cap;
	bool answer_big; /* it was larger than FP_CH_ANSWER_MAX */
	long http; /* the last status */
	char err[1024]; /* the last failure, one line */
};

/*
 * Set up c for url (no credentials in it; the caller took them out).
 * 0, or -1 with c->err filled.
 */
int fp_ch_open(struct fp_ch *c, const char *url, const char *user,
	       const char *password);
void fp_ch_close(struct fp_ch *c);
/* sql as the body; the answer in c->answer */
enum fp_ch_status fp_ch_query(struct fp_ch *c, const char *sql);
/* "INSERT INTO t (cols) FORMAT RowBinary" and its rows */
enum fp_ch_status fp_ch_insert(struct fp_ch *c, const char *sql,
			       const void *rows, size_t len);
/*
 * An INSERT whose rows fill() makes as the server reads them: one
 * request, streamed (chunked), so that footprint encodes while the server
 * parses, in a buffer of a few hundred KiB. fill returns how many bytes
 * it put in buf (at most len), 0 at the end, or FP_CH_FILL_ABORT.
 */
#define FP_CH_FILL_ABORT ((size_t)-1)
typedef size_t (*fp_ch_fill_fn)(void *ctx, char *buf, size_t len);
enum fp_ch_status fp_ch_insert_stream(struct fp_ch *c, const char *sql,
				      fp_ch_fill_fn fill, void *ctx);
/* a string literal for SQL: quoted, every byte that is not plain ASCII
 * printable as \xHH; malloc'd, NULL on ENOMEM */
char *fp_ch_quote(const char *s, size_t len);

#endif
