/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which sockets may be DNS sockets of the run (net.bpf.c's dns_socks): a
 * bit per hash of a socket's inode number, set by net.bpf.c's dns_mark()
 * before it makes the socket's entry, tested by dns.bpf.c's
 * sk_data_ready program before it looks the socket up. That program runs
 * for every datagram queued on the machine while a run that sent a DNS
 * query is active: a clear bit turns one away with a few plain loads
 * instead of a hash lookup. The inode number, not the struct sock's
 * address: the tracepoint's socket is a typed pointer, which the
 * verifier does not let a program hash, and a socket keeps its inode
 * (and its number, which no other live socket has) for its life, where
 * its port may change (a UDP disconnect gives it back).
 */
#ifndef FP_DNS_FILTER_BPF_H
#define FP_DNS_FILTER_BPF_H

/* 512 bits: a run's few DNS sockets leave nearly all clear */
#define FP_DNS_SOCK_WORDS 8

#ifdef DNS_FILTER_DEFINE
/*
 * Cleared only with the rest of the .bss (a warm set's reset), when
 * dns_socks is emptied too: no DNS socket is ever without its bit.
 * dns_sock_all: a DNS socket's inode could not be read, so every socket
 * is looked up.
 */
__u64 dns_sock_bits[FP_DNS_SOCK_WORDS] SEC(".bss");
__u32 dns_sock_all SEC(".bss");
#else
extern __u64 dns_sock_bits[FP_DNS_SOCK_WORDS];
extern __u32 dns_sock_all;
#endif

/* ino's bit: its word (*w) and its mask, by a multiplicative hash */
static __always_inline __u64 dns_sock_bit(__u64 ino, __u32 *w)
{
	__u32 h = (ino * 0x9E3779B97F4A7C15ULL) >> 55;

	*w = (h >> 6) & (FP_DNS_SOCK_WORDS - 1);
	return 1ULL << (h & 63);
}

/* before the socket's dns_socks entry is made */
static __always_inline void dns_sock_mark(__u64 ino)
{
	__u64 bit;
	__u32 w;

	if (!ino) {
		dns_sock_all = 1;
		return;
	}
	bit = dns_sock_bit(ino, &w);
	__sync_fetch_and_or(&dns_sock_bits[w], bit);
}

/* false: the socket of inode number ino never was a DNS socket of the run */
static __always_inline bool dns_sock_maybe(__u64 ino)
{
	__u64 bit;
	__u32 w;

	if (dns_sock_all)
		return true;
	bit = dns_sock_bit(ino, &w);
	return dns_sock_bits[w] & bit;
}

#endif /* FP_DNS_FILTER_BPF_H */
