// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <stdio.h>

#include "curl_dl.h"
#include "dl_table.h"

#define CURL_LIB "libcurl.so.4"

static struct fp_curl curl;
static char load_err[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	static const struct fp_dl_sym syms[] = {
		FP_DL_SYM(struct fp_curl, global_init, curl_global_init),
		FP_DL_SYM(struct fp_curl, easy_init, curl_easy_init),
		FP_DL_SYM(struct fp_curl, easy_setopt, curl_easy_setopt),
		FP_DL_SYM(struct fp_curl, easy_perform, curl_easy_perform),
		FP_DL_SYM(struct fp_curl, easy_getinfo, curl_easy_getinfo),
		FP_DL_SYM(struct fp_curl, easy_strerror, curl_easy_strerror),
		FP_DL_SYM(struct fp_curl, easy_escape, curl_easy_escape),
		FP_DL_SYM(struct fp_curl, easy_cleanup, curl_easy_cleanup),
		FP_DL_SYM(struct fp_curl, free, curl_free),
		FP_DL_SYM(struct fp_curl, url, curl_url),
		FP_DL_SYM(struct fp_curl, url_set, curl_url_set),
		FP_DL_SYM(struct fp_curl, url_get, curl_url_get),
		FP_DL_SYM(struct fp_curl, url_cleanup, curl_url_cleanup),
	};

	fp_dl_table(CURL_LIB, "libcurl4", syms, sizeof(syms) / sizeof(syms[0]),
		    &curl, sizeof(curl), load_err, sizeof(load_err));
}

const struct fp_curl *fp_curl_load(char *err, size_t errlen)
{
	pthread_once(&once, load);
	if (!load_err[0])
		return &curl;
	snprintf(err, errlen, "%s", load_err);
	return NULL;
}
