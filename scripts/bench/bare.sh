# shellcheck shell=bash
# The bare program, for the benches that run a workload beside it (ab,
# overhead, udpflood): a program on the raw sys_exit tracepoint that does
# nothing (bareprog.bpf.c, loaded by bareprog.c), which is what any tracer
# attached there costs before it does any work. Sourced, not run, so that
# bare_stop can wait for the loader, a child of the bench's own shell.
# Each function takes the bench's name, for its messages, and its scratch
# directory; the loader's pid is in bare_pid while it runs, for the
# bench's EXIT trap: a program left attached would tax every syscall of
# the machine.

bare_pid=""

# bare_build NAME DIR: DIR/bareprog.bpf.o and DIR/bareprog; 1, with a note
# and the compiler's words, if they cannot be built
bare_build() {
	local here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	if clang -target bpf -g -O2 -I"$here/../../vmlinux" \
		-c "$here/bareprog.bpf.c" -o "$2/bareprog.bpf.o" \
		2>"$2/bare.stderr" &&
		cc -O2 -Wall -o "$2/bareprog" "$here/bareprog.c" -lbpf \
			2>>"$2/bare.stderr"; then
		return 0
	fi
	echo "$1: no bare runs (needs clang and libbpf-dev):" >&2
	sed 's/^/    /' "$2/bare.stderr" >&2
	return 1
}

# bare_start NAME DIR: returns once the program is attached; exits the
# bench if the loader ends first
bare_start() {
	rm -f "$2/bare.ready"
	"$2/bareprog" "$2/bareprog.bpf.o" "$2/bare.ready" \
		</dev/null >/dev/null 2>"$2/bare.stderr" &
	bare_pid=$!
	while [ ! -e "$2/bare.ready" ]; do
		if ! kill -0 "$bare_pid" 2>/dev/null; then
			echo "$1: the bare program did not attach:" >&2
			sed 's/^/    /' "$2/bare.stderr" >&2
			bare_pid=""
			exit 1
		fi
		sleep 0.05
	done
}

# bare_stop NAME DIR: detached and waited for; 1, with a note, if the
# loader had ended already: what ran beside it ran untraced
bare_stop() {
	local rc=0

	[ -n "$bare_pid" ] || return 0
	if ! kill "$bare_pid" 2>/dev/null; then
		echo "$1: the bare program ended before it was stopped:" >&2
		sed 's/^/    /' "$2/bare.stderr" >&2
		rc=1
	fi
	wait "$bare_pid" || true
	bare_pid=""
	return "$rc"
}
