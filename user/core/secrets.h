/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The built-in class of secret paths (docs/policy.md, "Sensitive reads"):
 * a pure function of the path and the home directories the run recorded,
 * so that replay classifies a read as the live run did.
 */
#ifndef FP_SECRETS_H
#define FP_SECRETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The class of path ("ssh_key", "aws_credentials", "shadow", ...), or
 * NULL. "~" is every directory of homes (absolute, no trailing slash),
 * /root and every /home/NAME. /proc/PID/... is not classed here.
 */
const char *fp_secret_class(const char *path, size_t len, char *const *homes,
			    size_t nhomes);
/*
 * /proc/PID/environ or /proc/PID/mem (also .../task/TID/...): the pid, and
 * *cls "proc_environ" or "proc_mem"; 0 for any other path. "self" and
 * "thread-self" are the reader's own and give 0.
 */
pid_t fp_secret_proc_pid(const char *path, size_t len, const char **cls);

/*
 * The classes by number, 1-based, as the kernel side marks an open of a
 * secret by device and inode (fp_file.arg[0]); numbers are in logs, so
 * new classes go at the end. An unknown number gives "secret".
 */
const char *fp_secret_class_name(uint64_t n);
uint32_t fp_secret_class_number(const char *cls);

#endif
