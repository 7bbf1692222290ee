// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "sdbus_dl.h"

#define SDBUS_LIB "libsystemd.so.0"

static struct fp_sdbus sdbus;
static char load_err[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(field, name) { #name, offsetof(struct fp_sdbus, field) }
		SYM(open_system, sd_bus_open_system),
		SYM(call_method, sd_bus_call_method),
		SYM(get_property, sd_bus_get_property),
		SYM(get_property_trivial, sd_bus_get_property_trivial),
		SYM(get_property_string, sd_bus_get_property_string),
		SYM(message_read, sd_bus_message_read),
		SYM(message_read_strv, sd_bus_message_read_strv),
		SYM(message_enter_container, sd_bus_message_enter_container),
		SYM(message_unref, sd_bus_message_unref),
		SYM(error_free, sd_bus_error_free),
		SYM(flush_close_unref, sd_bus_flush_close_unref),
#undef SYM
	};
	struct fp_sdbus got;
	void *lib, *fn;
	size_t i;

	/* once whole, open for good: the table points into it */
	lib = dlopen(SDBUS_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(load_err, sizeof(load_err), "%s; install libsystemd0",
			 dlerror());
		return;
	}
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		fn = dlsym(lib, syms[i].name);
		if (!fn) {
			snprintf(
				load_err, sizeof(load_err),
				"%s has no %s; it is older than footprint needs",
				SDBUS_LIB, syms[i].name);
			dlclose(lib);
			return;
		}
		*(void **)((char *)&got + syms[i].off) = fn;
	}
	sdbus = got;
}

const struct fp_sdbus *fp_sdbus_load(char *err, size_t errlen)
{
	pthread_once(&once, load);
	if (!load_err[0])
		return &sdbus;
	snprintf(err, errlen, "%s", load_err);
	return NULL;
}
