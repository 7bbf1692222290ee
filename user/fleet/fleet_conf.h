/* SPDX-License-Identifier: GPL-2.0 */
/* The server's URL and footprint's credentials there (fleet_conf.c). */
#ifndef FP_FLEET_CONF_H
#define FP_FLEET_CONF_H

#include "creds.h"

struct fp_fleet_opts;

struct fp_fleet_conf {
	char *url; /* without credentials */
	char *user, *password; /* NULL: none */
};

/* 0, or FP_EXIT_USAGE after one line */
int fp_fleet_conf(const struct fp_fleet_opts *o, struct fp_fleet_conf *k);
void fp_fleet_conf_free(struct fp_fleet_conf *k);
/* the home directory of c (the invoking user), malloc'd; NULL if none */
char *fp_fleet_home(const struct fp_creds *c);

#endif
