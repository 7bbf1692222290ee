/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repeated read-only opens, collapsed in the kernel (file.bpf.c): the
 * layout of the table of records held back, which userspace drains when
 * tracing stops (user/trace/held.c).
 */
#ifndef FP_COLLAPSE_H
#define FP_COLLAPSE_H

/* A record held back is at most this long (larger ones are not held). */
#define FP_HELD_MAX 512
/* Tasks that can hold a record at once; past that, opens go out one by one. */
#define FP_HELD_TASKS 4096

/*
 * The last read-only open of a task, not yet emitted: struct fp_file with
 * its first timestamp and, in fp_file.count, how many identical opens of
 * the same struct file (inode and mount) it stands for.
 */
struct fp_held_open {
	__u64 inode; /* kernel addresses: identity only, never shown */
	__u64 mnt;
	/*
	 * The dentry the kernel opened, and path_gen when the record was
	 * held: an open of the same dentry under the same generation (no
	 * rename, rmdir, mount or chdir since) reached the same name in the
	 * tree, whatever bytes its caller passed (fp_open_again).
	 */
	__u64 dentry;
	__u64 file_gen;
	__u32 size; /* bytes of rec compared: hdr.size rounded up to 8 */
	__u32 _pad;
	/*
	 * For a relative name: the directory its walk started from, the
	 * task's root, and path_gen before that walk; dir_dentry is 0 when
	 * the name is absolute or its directory was not keyed. An open that
	 * repeats the held one is then told by these, not by building its
	 * record (fp_open_again).
	 */
	__u64 dir_dentry;
	__u64 dir_mnt;
	__u64 dir_inode;
	__u64 dir_ino;
	__u64 root_dentry;
	__u64 root_mnt;
	__u64 gen;
	/*
	 * The task's css_set when the record was held, if its cgroup was then
	 * the one the header names (else 0): a repeat compares the pointer,
	 * not the cgroup id behind it (same_hdr() in collapse.bpf.h says why
	 * that holds)
	 */
	__u64 css_set;
	char rec[FP_HELD_MAX];
};

#endif /* FP_COLLAPSE_H */
