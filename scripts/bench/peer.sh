# shellcheck shell=bash
# The peer, for scripts/bench/overhead: bpftrace running peer.bt (every
# open and exec of one cgroup printed, as opensnoop.bt and execsnoop.bt
# do), attached before a workload that runs in that cgroup and detached
# after it. Sourced, not run, so that peer_stop can wait for bpftrace, a
# child of the bench's own shell. Each function takes the bench's name,
# for its messages, and its scratch directory; bpftrace's pid is in
# peer_pid while it runs and the cgroup's directory in peer_cg, for the
# bench's EXIT trap: a tracer left attached would tax every open and
# exec of the machine.
#
# Nothing here makes up a figure: when bpftrace is missing or cannot
# attach, peer_check says why in peer_note and the bench prints that.

peer_pid=""
peer_cg=""
peer_note=""

# peer_check NAME DIR: 0 once bpftrace has attached and seen one open and
# one exec in a cgroup made for it (peer_cg); 1 with peer_note set if not
peer_check() {
	local root

	if ! command -v bpftrace >/dev/null 2>&1; then
		peer_note="bpftrace is not installed (scripts/install-deps installs it)"
		return 1
	fi
	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	if [ -z "$root" ]; then
		peer_note="no cgroup v2 mount to keep bpftrace to the workload"
		return 1
	fi
	peer_cg=$root/footprint-bench-peer.$$
	if ! mkdir "$peer_cg" 2>"$2/peer.stderr"; then
		peer_note="cannot make the cgroup $peer_cg: $(head -n 1 "$2/peer.stderr")"
		peer_cg=""
		return 1
	fi
	if ! peer_start "$1" "$2" 2>/dev/null; then
		# shellcheck disable=SC2034 # read by the bench that sources this
		peer_note="bpftrace $(bpftrace --version 2>/dev/null | awk '{ print $2 }') did not attach on this kernel ($(uname -r)): $(peer_why "$2")"
		return 1
	fi
	peer_stop "$1" "$2" >/dev/null
	return 0
}

# peer_why DIR: bpftrace's first error line, or what became of it
peer_why() {
	local why
	why=$(grep -v -e RLIMIT_MEMLOCK -e '^Attaching' "$1/peer.stderr" "$1/peer.out" \
		2>/dev/null | sed 's/^[^:]*://' | grep . | head -n 1)
	echo "${why:-no open or exec seen within 60 s}"
}

# peer_start NAME DIR: returns 0 once bpftrace prints an open and an exec
# of a process in peer_cg; 1, with a note, if bpftrace ends or 60 s pass
peer_start() {
	local tries=0 id

	id=$(stat -c %i "$peer_cg")
	rm -f "$2/peer.out"
	: >"$2/peer.ready"
	bpftrace "$(dirname "${BASH_SOURCE[0]}")/peer.bt" "$id" \
		</dev/null >"$2/peer.out" 2>"$2/peer.stderr" &
	peer_pid=$!
	# opens and execs are separate probes: wait for a line of each
	until grep -q ' open .*peer\.ready' "$2/peer.out" 2>/dev/null &&
		grep -q ' exec .*peer\.ready' "$2/peer.out" 2>/dev/null; do
		if ! kill -0 "$peer_pid" 2>/dev/null || [ "$tries" -ge 1200 ]; then
			echo "$1: bpftrace did not attach: $(peer_why "$2")" >&2
			peer_stop "$1" "$2" >/dev/null
			return 1
		fi
		# shellcheck disable=SC2016 # expanded by the inner sh
		peer_in_cgroup cat "$2/peer.ready" >/dev/null 2>&1 || true
		tries=$((tries + 1))
		sleep 0.05
	done
	return 0
}

# peer_in_cgroup CMD...: CMD moved into peer_cg first
peer_in_cgroup() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$peer_cg" "$@"
}

# peer_stop NAME DIR: bpftrace detached, its output flushed and waited
# for; prints "OPENS EXECS LOST": the lines of the workload (the start's
# probes left out) and the events bpftrace said it lost
peer_stop() {
	[ -n "$peer_pid" ] || return 0
	kill -INT "$peer_pid" 2>/dev/null || true
	wait "$peer_pid" || true
	peer_pid=""
	awk '/peer\.ready/ { next }
		$3 == "open" { o++ } $3 == "exec" { e++ }
		/^Lost [0-9]+ events/ { l += $2 }
		END { printf "%d %d %d\n", o, e, l }' "$2/peer.out" "$2/peer.stderr"
}

# peer_cleanup: for the bench's EXIT trap
peer_cleanup() {
	[ -z "$peer_pid" ] || kill -INT "$peer_pid" 2>/dev/null || true
	[ -z "$peer_cg" ] || rmdir "$peer_cg" 2>/dev/null || true
}
