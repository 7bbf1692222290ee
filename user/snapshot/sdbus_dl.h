/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FP_SDBUS_DL_H
#define FP_SDBUS_DL_H

#include <stddef.h>
#include <systemd/sd-bus.h>

/*
 * The part of libsystemd's sd-bus that --unit uses, loaded on first use:
 * linked, libsystemd and the five libraries it needs cost every start of
 * footprint about 1 ms (--version: 4.7 ms, 3.6 ms without them), and only
 * a shape of a unit asks systemd anything.
 */
struct fp_sdbus {
	typeof(sd_bus_open_system) *open_system;
	typeof(sd_bus_call_method) *call_method;
	typeof(sd_bus_get_property) *get_property;
	typeof(sd_bus_get_property_trivial) *get_property_trivial;
	typeof(sd_bus_get_property_string) *get_property_string;
	typeof(sd_bus_message_read) *message_read;
	typeof(sd_bus_message_read_strv) *message_read_strv;
	typeof(sd_bus_message_enter_container) *message_enter_container;
	typeof(sd_bus_message_unref) *message_unref;
	typeof(sd_bus_error_free) *error_free;
	typeof(sd_bus_flush_close_unref) *flush_close_unref;
};

/* NULL, with why in err, when libsystemd.so.0 cannot be loaded */
const struct fp_sdbus *fp_sdbus_load(char *err, size_t errlen);

#endif
