/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libcurl, loaded when the fleet first needs it (curl_dl.c). Linking it
 * put its 28 libraries in every footprint start: about 4 ms of the
 * dynamic loader's work in each `footprint run`, for a push most runs
 * never make.
 */
#ifndef FP_CURL_DL_H
#define FP_CURL_DL_H

#include <curl/curl.h>
#include <stddef.h>

struct fp_curl {
	typeof(curl_global_init) *global_init;
	typeof(curl_easy_init) *easy_init;
	typeof(curl_easy_setopt) *easy_setopt;
	typeof(curl_easy_perform) *easy_perform;
	typeof(curl_easy_getinfo) *easy_getinfo;
	typeof(curl_easy_strerror) *easy_strerror;
	typeof(curl_easy_escape) *easy_escape;
	typeof(curl_easy_cleanup) *easy_cleanup;
	typeof(curl_free) *free;
	typeof(curl_url) *url;
	typeof(curl_url_set) *url_set;
	typeof(curl_url_get) *url_get;
	typeof(curl_url_cleanup) *url_cleanup;
};

/* NULL, with why in err, when libcurl.so.4 cannot be loaded */
const struct fp_curl *fp_curl_load(char *err, size_t errlen);

#endif
