# shellcheck shell=bash
# Sourced by the benches: the CPU a single-threaded loop is pinned to, in
# every variant of one round alike (untraced, bare, footprint, peers).
# On a VM one vCPU may be slower than another for a while (seen: 2.6 s
# and 3.8 s for the same untraced UDP flood, by the vCPU it ran on),
# which swamps a 5% target; and a loopback datagram is received on its
# sender's CPU. BENCH_CPU: a CPU number, "none" (not pinned), or unset
# (the last online CPU).

# bench_pin NAME: sets the array pin to the command prefix (empty: not
# pinned) and pinned to a note for the output; exits 2 on a bad BENCH_CPU
bench_pin() {
	local cpu=${BENCH_CPU:-$(($(getconf _NPROCESSORS_ONLN) - 1))}

	pin=()
	pinned="not pinned"
	[ "$cpu" != none ] || return 0
	case $cpu in
	'' | *[!0-9]*)
		echo "$1: BENCH_CPU must be a CPU number or none, got '$cpu'" >&2
		exit 2
		;;
	esac
	if ! command -v taskset >/dev/null; then
		echo "$1: taskset is missing (util-linux): the loop runs unpinned" >&2
	elif ! taskset -c "$cpu" true 2>/dev/null; then
		echo "$1: cannot pin to CPU $cpu; set BENCH_CPU to an online CPU or none" >&2
		exit 2
	else
		pin=(taskset -c "$cpu")
		pinned="pinned to CPU $cpu (taskset -c $cpu)"
	fi
}
