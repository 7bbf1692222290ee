// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <stdio.h>

#include "dl_table.h"
#include "sdbus_dl.h"

#define SDBUS_LIB "libsystemd.so.0"

static struct fp_sdbus sdbus;
static char load_err[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	static const struct fp_dl_sym syms[] = {
		FP_DL_SYM(struct fp_sdbus, open_system, sd_bus_open_system),
		FP_DL_SYM(struct fp_sdbus, call_method, sd_bus_call_method),
		FP_DL_SYM(struct fp_sdbus, get_property, sd_bus_get_property),
		FP_DL_SYM(struct fp_sdbus, get_property_trivial,
			  sd_bus_get_property_trivial),
		FP_DL_SYM(struct fp_sdbus, get_property_string,
			  sd_bus_get_property_string),
		FP_DL_SYM(struct fp_sdbus, message_read, sd_bus_message_read),
		FP_DL_SYM(struct fp_sdbus, message_read_strv,
			  sd_bus_message_read_strv),
		FP_DL_SYM(struct fp_sdbus, message_enter_container,
			  sd_bus_message_enter_container),
		FP_DL_SYM(struct fp_sdbus, message_unref, sd_bus_message_unref),
		FP_DL_SYM(struct fp_sdbus, error_free, sd_bus_error_free),
		FP_DL_SYM(struct fp_sdbus, flush_close_unref,
			  sd_bus_flush_close_unref),
	};

	fp_dl_table(SDBUS_LIB, "libsystemd0", syms,
		    sizeof(syms) / sizeof(syms[0]), &sdbus, sizeof(sdbus),
		    load_err, sizeof(load_err));
}

const struct fp_sdbus *fp_sdbus_load(char *err, size_t errlen)
{
	pthread_once(&once, load);
	if (!load_err[0])
		return &sdbus;
	snprintf(err, errlen, "%s", load_err);
	return NULL;
}
