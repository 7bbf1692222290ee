/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system's own authentication programs (sudo, su, pkexec,
 * unix_chkpwd...) read /etc/shadow and /etc/sudoers to do their job: such
 * a read is not a secret read. What is judged is the privilege it grants
 * (processes.privileged). A program is one of them by the file the kernel
 * ran, as its exec recorded it, never by its name alone: its path is one
 * of a fixed list of system paths, the file is owned by root and
 * writable by nobody else, and the exec was a secure one (AT_SECURE: the
 * loader ignored LD_PRELOAD and the like, so the code that ran is the
 * file's). Pure.
 */
#ifndef FP_AUTHPROG_H
#define FP_AUTHPROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* The program an exec ran, an index for fp_auth_own_config(), or -1 when
 * it is none of them. */
int fp_auth_program(const struct fp_event *exec);
/* Is path (of a secret read) part of program auth's own configuration?
 * auth -1: never. */
bool fp_auth_own_config(int auth, const char *path, size_t len);

#endif
