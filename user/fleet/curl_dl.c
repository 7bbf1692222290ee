// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "curl_dl.h"

#define CURL_LIB "libcurl.so.4"

static struct fp_curl curl;
static char load_err[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(field, name) { #name, offsetof(struct fp_curl, field) }
		SYM(global_init, curl_global_init),
		SYM(easy_init, curl_easy_init),
		SYM(easy_setopt, curl_easy_setopt),
		SYM(easy_perform, curl_easy_perform),
		SYM(easy_getinfo, curl_easy_getinfo),
		SYM(easy_strerror, curl_easy_strerror),
		SYM(easy_escape, curl_easy_escape),
		SYM(easy_cleanup, curl_easy_cleanup),
		SYM(free, curl_free),
		SYM(url, curl_url),
		SYM(url_set, curl_url_set),
		SYM(url_get, curl_url_get),
		SYM(url_cleanup, curl_url_cleanup),
#undef SYM
	};
	struct fp_curl got;
	void *lib, *fn;
	size_t i;

	/* once whole, open for good: the table points into it */
	lib = dlopen(CURL_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(load_err, sizeof(load_err), "%s; install libcurl4",
			 dlerror());
		return;
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		fn = dlsym(lib, syms[i].name);
		if (!fn) {
			snprintf(
				load_err, sizeof(load_err),
				"%s has no %s; it is older than footprint needs",
				CURL_LIB, syms[i].name);
			dlclose(lib);
			return;
		}
		*(void **)((char *)&got + syms[i].off) = fn;
	}
	curl = got;
}

const struct fp_curl *fp_curl_load(char *err, size_t errlen)
{
	pthread_once(&once, load);
	if (!load_err[0])
		return &curl;
	snprintf(err, errlen, "%s", load_err);
	return NULL;
}
