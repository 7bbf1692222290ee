// SPDX-License-Identifier: GPL-2.0
/*
 * Where and when a receipt was made: footprint's version, the host, the
 * invoking user and the start and end of the run in UTC. All of it comes
 * from the log's header and trailer, so a replay writes the same bytes.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "receipt.h"
#include "receipt_parts.h"

/* RFC 3339 in UTC to the millisecond: "2026-12-02T09:04:05.123Z" */
static void put_time(struct json_out *j, const char *key, int64_t ns)
{
	char buf[64];
	struct tm tm;
	time_t t;

	json_key(j, key);
	if (ns <= 0) {
		json_null(j);
		return;
	}
	t = (time_t)(ns / 1000000000);
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999) {
		json_null(j);
		return;
	}
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (int)(ns / 1000000 % 1000));
	fprintf(j->f, "\"%s\"", buf);
}

static void put_str(struct json_out *j, const char *key, const char *s)
{
	if (s)
		json_field_bytes(j, key, s, strlen(s));
	else
		json_field_str(j, key, "");
}

void fp_receipt_provenance(struct json_out *j, const struct fp_receipt_info *ri)
{
	json_key(j, "provenance");
	json_begin_object(j);
	put_str(j, "footprint", ri->version);
	put_str(j, "host", ri->host);
	put_str(j, "kernel", ri->kernel);
	put_str(j, "user", ri->user);
	json_field_u64(j, "uid", ri->uid);
	put_time(j, "started", ri->start_ns);
	put_time(j, "ended", ri->end_ns);
	json_end_object(j);
}
