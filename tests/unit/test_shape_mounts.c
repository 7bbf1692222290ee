// SPDX-License-Identifier: GPL-2.0
/* shape: a mountinfo read whole: escapes, ro/rw, propagation, order */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shape.h"

static struct fp_shape S;
static struct fp_shape_proc P;
static char dir[] = "/tmp/fp-shape-mnt-XXXXXX";

static void teardown(void)
{
	char path[64];

	fp_shape_proc_free(&P);
	fp_shape_free(&S);
	snprintf(path, sizeof(path), "%s/mountinfo", dir);
	unlink(path);
	rmdir(dir);
}

TestSuite(shape_mounts, .fini = teardown, .timeout = 10);

/* fp_shape_read_mounts on a directory holding text as its mountinfo */
static void read_mounts(const char *text)
{
	char path[64];
	FILE *f;
	int dfd;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/mountinfo", dir);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	P.pid = 42;
	cr_assert_eq(fp_shape_read_mounts(&S, &P, dfd), 0);
	close(dfd);
}

Test(shape_mounts, fields_escapes_and_order)
{
	read_mounts(
		"36 1 0:32 / /var/tmp/a\\040b rw,nosuid shared:7 master:3 - tmpfs tmpfs rw\n"
		"22 1 8:1 / / ro,relatime - ext4 /dev/vda1 rw\n"
		"40 22 8:1 /priv/tmp /tmp rw - ext4 /dev/vda1 rw\n"
		"41 22 0:5 / /mnt rw unbindable - proc proc rw\n");
	cr_assert_eq(P.nmounts, 4);
	cr_assert_eq(S.nnotes, 0);
	cr_assert_str_eq(P.mounts[0].point.data, "/");
	cr_assert_not(P.mounts[0].rw);
	cr_assert_str_eq(P.mounts[0].source.data, "/dev/vda1");
	cr_assert_str_eq(P.mounts[0].propagation, "private");
	cr_assert_str_eq(P.mounts[1].point.data, "/mnt");
	cr_assert_str_eq(P.mounts[1].propagation, "unbindable");
	cr_assert_str_eq(P.mounts[2].point.data, "/tmp");
	cr_assert_str_eq(P.mounts[2].root.data, "/priv/tmp");
	cr_assert(P.mounts[2].rw);
	cr_assert_str_eq(P.mounts[3].point.data, "/var/tmp/a b");
	cr_assert_eq(P.mounts[3].point.len, 12);
	cr_assert_str_eq(P.mounts[3].fstype.data, "tmpfs");
	/* peer group numbers change with each start: only the kinds stay */
	cr_assert_str_eq(P.mounts[3].propagation, "shared,slave");
}

Test(shape_mounts, malformed_line_makes_the_shape_incomplete)
{
	read_mounts("22 1 8:1 / / rw - ext4 /dev/vda1 rw\n"
		    "garbage without a separator\n");
	cr_assert_eq(P.nmounts, 1);
	cr_assert_eq(S.nnotes, 1);
	cr_assert(strstr(S.notes[0], "pid 42: a mountinfo line is malformed"),
		  "%s", S.notes[0]);
}
