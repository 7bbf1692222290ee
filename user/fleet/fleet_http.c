// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curl_dl.h"
#include "fleet_http.h"
#include "version.h"

/* libcurl, once fp_ch_open loaded it: every other call has an open c */
static const struct fp_curl *cu;

static size_t on_answer(char *data, size_t size, size_t n, void *ctx)
{
	struct fp_ch *c = ctx;
	size_t len = size * n, cap;
	char *p;

	if (c->answer_len + len + 1 > FP_CH_ANSWER_MAX) {
		c->answer_big = true;
		return 0; /* curl stops: CURLE_WRITE_ERROR */
	}
	if (c->answer_len + len + 1 > c->answer_cap) {
		cap = c->answer_cap ? c->answer_cap : 4096;
		while (cap < c->answer_len + len + 1)
			cap *= 2;
		p = realloc(c->answer, cap);
		if (!p)
			return 0;
		c->answer = p;
		c->answer_cap = cap;
	}
	memcpy(c->answer + c->answer_len, data, len);
	c->answer_len += len;
	c->answer[c->answer_len] = '\0';
	return len;
}

/* scheme://host:port/ of url, for messages: never its query or userinfo */
static char *shown_url(const char *url)
{
	CURLU *u = cu->url();
	char *scheme = NULL, *host = NULL, *port = NULL, *s = NULL;

	if (u && !cu->url_set(u, CURLUPART_URL, url, 0) &&
	    !cu->url_get(u, CURLUPART_SCHEME, &scheme, 0) &&
	    !cu->url_get(u, CURLUPART_HOST, &host, 0)) {
		cu->url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
		if (asprintf(&s, "%s://%s%s%s/", scheme, host, port ? ":" : "",
			     port ? port : "") < 0)
			s = NULL;
	}
	cu->free(scheme);
	cu->free(host);
	cu->free(port);
	cu->url_cleanup(u);
	return s;
}

int fp_ch_open(struct fp_ch *c, const char *url, const char *user,
	       const char *password)
{
	static char agent[96];
	CURL *h;

	memset(c, 0, sizeof(*c));
	cu = fp_curl_load(c->err, sizeof(c->err));
	if (!cu)
		return -1;
	if (cu->global_init(CURL_GLOBAL_DEFAULT) || !(h = cu->easy_init())) {
		snprintf(c->err, sizeof(c->err),
			 "cannot set up libcurl (out of memory?)");
		return -1;
	}
	c->curl = h;
	c->url = strdup(url);
	c->shown = shown_url(url);
	c->user = user ? strdup(user) : NULL;
	c->password = password ? strdup(password) : NULL;
	if (!c->url || !c->shown || (user && !c->user) ||
	    (password && !c->password)) {
		snprintf(c->err, sizeof(c->err), "%s is not a URL",
			 c->shown ? c->shown : url);
		fp_ch_close(c);
		return -1;
	}
	snprintf(agent, sizeof(agent), "footprint/%s", fp_version());
	cu->easy_setopt(h, CURLOPT_USERAGENT, agent);
	cu->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	cu->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	cu->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	cu->easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	cu->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	/* a server that stops answering for a minute is gone */
	cu->easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	cu->easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
	cu->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_answer);
	cu->easy_setopt(h, CURLOPT_WRITEDATA, c);
	cu->easy_setopt(h, CURLOPT_POST, 1L);
	if (c->user || c->password) {
		cu->easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		cu->easy_setopt(h, CURLOPT_USERNAME,
				c->user ? c->user : "default");
		cu->easy_setopt(h, CURLOPT_PASSWORD,
				c->password ? c->password : "");
	}
	return 0;
}

static void wipe(char *s)
{
	if (s)
		explicit_bzero(s, strlen(s));
	free(s);
}

void fp_ch_close(struct fp_ch *c)
{
	if (c->curl)
		cu->easy_cleanup(c->curl);
	free(c->url);
	free(c->shown);
	wipe(c->user);
	wipe(c->password);
	free(c->answer);
	memset(c, 0, sizeof(*c));
}

/* the first line of the server's error, at most 400 bytes, printable */
static void server_error(struct fp_ch *c)
{
	char line[401];
	size_t i, n = 0;

	for (i = 0; c->answer && i < c->answer_len && n < sizeof(line) - 1;
	     i++) {
		unsigned char ch = c->answer[i];

		if (ch == '\n' && n)
			break;
		line[n++] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
	}
	line[n] = '\0';
	snprintf(c->err, sizeof(c->err), "%s answered HTTP %ld: %s", c->shown,
		 c->http, n ? line : "(no message)");
}

static enum fp_ch_status perform(struct fp_ch *c, const char *url,
				 const void *body, size_t len)
{
	CURL *h = c->curl;
	CURLcode rc;

	c->answer_len = 0;
	c->answer_big = false;
	c->http = 0;
	if (c->answer)
		c->answer[0] = '\0';
	cu->easy_setopt(h, CURLOPT_URL, url);
	cu->easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
	cu->easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	rc = cu->easy_perform(h);
	cu->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c->http);
	if (rc == CURLE_WRITE_ERROR && c->answer_big) {
		snprintf(c->err, sizeof(c->err),
			 "%s answered more than %u MiB; ask for less", c->shown,
			 FP_CH_ANSWER_MAX >> 20);
		return FP_CH_REFUSED;
	}
	if (rc == CURLE_WRITE_ERROR || rc == CURLE_OUT_OF_MEMORY) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return FP_CH_NOMEM;
	}
	if (rc != CURLE_OK) {
		snprintf(c->err, sizeof(c->err), "cannot reach %s: %s",
			 c->shown, cu->easy_strerror(rc));
		return FP_CH_DOWN;
	}
	if (c->http != 200) {
		server_error(c);
		return FP_CH_REFUSED;
	}
	return FP_CH_OK;
}

/* the URL with "query=" and any settings added to its own parameters */
static char *request_url(struct fp_ch *c, const char *sql, const char *more)
{
	char *q = sql ? cu->easy_escape(c->curl, sql, 0) : NULL, *u = NULL;
	const char *sep = strchr(c->url, '?') ? "&" : "?";

	if (sql && !q)
		return NULL;
	if (asprintf(&u, "%s%s%s%s%s", c->url, sep, q ? "query=" : "",
		     q ? q : "", more ? more : "") < 0)
		u = NULL;
	cu->free(q);
	return u;
}

enum fp_ch_status fp_ch_query(struct fp_ch *c, const char *sql)
{
	char *u = request_url(c, NULL, NULL);
	enum fp_ch_status st;

	if (!u)
		return FP_CH_NOMEM;
	st = perform(c, u, sql, strlen(sql));
	free(u);
	return st;
}

enum fp_ch_status fp_ch_insert(struct fp_ch *c, const char *sql,
			       const void *rows, size_t len)
{
	/* into a Distributed table: on every shard before the answer, so
	 * that the lookup of the next push sees it */
	char *u = request_url(c, sql, "&insert_distributed_sync=1");
	enum fp_ch_status st;

	if (!u)
		return FP_CH_NOMEM;
	st = perform(c, u, rows, len);
	free(u);
	return st;
}

struct stream {
	fp_ch_fill_fn fill;
	void *ctx;
	bool aborted;
};

static size_t on_read(char *buf, size_t size, size_t n, void *ctx)
{
	struct stream *st = ctx;
	size_t got = st->fill(st->ctx, buf, size * n);

	if (got == FP_CH_FILL_ABORT) {
		st->aborted = true;
		return CURL_READFUNC_ABORT;
	}
	return got;
}

enum fp_ch_status fp_ch_insert_stream(struct fp_ch *c, const char *sql,
				      fp_ch_fill_fn fill, void *ctx)
{
	char *u = request_url(c, sql, "&insert_distributed_sync=1");
	struct stream st = { fill, ctx, false };
	enum fp_ch_status ret;
	CURL *h = c->curl;
	CURLcode rc;

	if (!u)
		return FP_CH_NOMEM;
	c->answer_len = 0;
	c->answer_big = false;
	c->http = 0;
	cu->easy_setopt(h, CURLOPT_URL, u);
	cu->easy_setopt(h, CURLOPT_POSTFIELDS, NULL);
	cu->easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)-1);
	cu->easy_setopt(h, CURLOPT_READFUNCTION, on_read);
	cu->easy_setopt(h, CURLOPT_READDATA, &st);
	cu->easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, 512L * 1024);
	rc = cu->easy_perform(h);
	cu->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c->http);
	/* back to bodies from memory for the next request */
	cu->easy_setopt(h, CURLOPT_READFUNCTION, NULL);
	cu->easy_setopt(h, CURLOPT_READDATA, NULL);
	free(u);
	if (st.aborted) {
		/* the rows could not be made: the caller says why */
		snprintf(c->err, sizeof(c->err), "the rows could not be read");
		return FP_CH_REFUSED;
	}
	if (rc != CURLE_OK) {
		snprintf(c->err, sizeof(c->err), "cannot reach %s: %s",
			 c->shown, cu->easy_strerror(rc));
		return FP_CH_DOWN;
	}
	ret = FP_CH_OK;
	if (c->http != 200) {
		server_error(c);
		ret = FP_CH_REFUSED;
	}
	return ret;
}

char *fp_ch_quote(const char *s, size_t len)
{
	char *q = malloc(len * 4 + 3), *o = q;
	size_t i;

	if (!q)
		return NULL;
	*o++ = '\'';
	for (i = 0; i < len; i++) {
		unsigned char ch = s[i];

		if (ch == '\'' || ch == '\\' || ch < 0x20 || ch >= 0x7f)
			o += sprintf(o, "\\x%02X", ch);
		else
			*o++ = (char)ch;
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}
