#!/bin/sh
# Install a footprint .deb in a clean Debian 12 root and use it there, for
# test_package.py. Run as root, as: deb_chroot.sh CACHE DEB WORK
#
# CACHE holds the clean root (bookworm/, from debootstrap --variant=minbase,
# with its package lists; made again when older than a week) and apt's
# downloads (archives/), kept between runs. Each run writes only to WORK:
# the root is an overlay of the clean one, with WORK/upper on top, so the
# clean root stays clean. Everything is mounted in a mount namespace of
# its own, gone when this script ends. Inside, with /proc, /sys (the cgroup
# filesystems under it), /dev and a bpf filesystem of its own mounted:
#   apt-get install ./footprint_*.deb    (its Depends: fetch the libraries)
#   footprint --version
#   footprint run -- true
#   footprint run --receipt ... -- ./job.sh    (a small traced script)
#   sudo footprint run ...     (by a user: sudo installed, then)
# and prints "== NAME rc=N" lines; the receipts stay in WORK/upper/root.
# FOOTPRINT_DEBIAN_MIRROR: the archive (default http://deb.debian.org/debian).
set -eu
cache=$1
deb=$2
work=$3
mirror=${FOOTPRINT_DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ -z "${FP_IN_NS:-}" ]; then
	mkdir -p "$cache/archives/partial"
	# one run at a time per cache: the clean root is made and used whole
	exec env FP_IN_NS=1 flock "$cache/lock" \
		unshare -m --propagation private "$0" "$@"
fi

base=$cache/bookworm
if [ -e "$base.stamp" ] && [ -n "$(find "$base.stamp" -mtime -7)" ]; then
	echo "== clean root: cached"
else
	echo "== clean root: debootstrap --variant=minbase bookworm $mirror"
	rm -rf "$base" "$base.new" "$base.stamp"
	debootstrap --variant=minbase bookworm "$base.new" "$mirror" \
		>"$cache/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$cache/debootstrap.log" >&2; exit 1; }
	mount -t proc proc "$base.new/proc"
	chroot "$base.new" apt-get -q update >/dev/null
	chroot "$base.new" apt-get clean
	umount "$base.new/proc"
	mv "$base.new" "$base"
	touch "$base.stamp"
fi

root=$work/root
mkdir -p "$work/upper" "$work/ovl" "$root"
mount -t overlay overlay \
	-o "lowerdir=$base,upperdir=$work/upper,workdir=$work/ovl" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
# a bpf filesystem of its own: the programs footprint keeps loaded between
# runs are pinned there, apart from the host's, and go with the namespace
mount -t bpf bpf "$root/sys/fs/bpf"
mount --rbind /dev "$root/dev"
mount --bind "$cache/archives" "$root/var/cache/apt/archives"
cp /etc/resolv.conf /etc/hosts "$root/etc/"
cp "$deb" "$root/tmp/"
name=$(basename "$deb")
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

rc=0
in_root sh -c "cd /tmp && apt-get install -y -q --no-install-recommends ./$name" \
	>"$work/apt.log" 2>&1 || rc=$?
echo "== apt-get install rc=$rc"
[ $rc = 0 ] || { tail -n 20 "$work/apt.log"; exit 0; }
# what apt brought in besides footprint: the declared dependencies at work
sed -n 's/^Setting up \([^ ]*\) .*/== set up \1/p' "$work/apt.log"
# nothing the build needs came along
in_root sh -c 'for c in cc gcc clang bpftool llc; do command -v $c; done' |
	sed 's/^/== compiler: /'

rc=0
in_root footprint --version >"$work/version.txt" 2>&1 || rc=$?
echo "== footprint --version rc=$rc"
sed 's/^/== version: /' "$work/version.txt"

in_root sh -c 'mkdir -p /root/job && cat >/root/job/job.sh' <<'JOB'
#!/bin/sh
# a small job: a build output, a log, a temp file made and removed
mkdir -p build
echo built >build/app
date >>job.log
tmp=$(mktemp /tmp/job.XXXXXX)
echo scratch >"$tmp"
rm "$tmp"
JOB
in_root chmod +x /root/job/job.sh

rc=0
in_root sh -c 'cd /root/job && footprint run -- true' >"$work/true.log" 2>&1 || rc=$?
echo "== footprint run -- true rc=$rc"
sed 's/^/== true: /' "$work/true.log"

rc=0
in_root sh -c 'cd /root/job && footprint run --allow build/ --allow job.log \
	--allow "/tmp/job.*" --receipt /root/ok.json -- ./job.sh' \
	>"$work/ok.log" 2>&1 || rc=$?
echo "== job allowed rc=$rc"
sed 's/^/== allowed: /' "$work/ok.log"

rc=0
in_root sh -c 'cd /root/job && footprint run --receipt /root/strict.json -- ./job.sh' \
	>"$work/strict.log" 2>&1 || rc=$?
echo "== job strict rc=$rc"
sed 's/^/== strict: /' "$work/strict.log"

# as footprint is meant to be used: sudo footprint run, by a user
rc=0
in_root sh -c 'apt-get install -y -q --no-install-recommends sudo &&
	useradd -m dev &&
	echo "dev ALL=(ALL) NOPASSWD: ALL" >/etc/sudoers.d/dev' \
	>"$work/sudo-apt.log" 2>&1 || rc=$?
echo "== sudo installed rc=$rc"
rc=0
in_root runuser -u dev -- sh -c 'mkdir ~/job && cd ~/job && echo in >input &&
	sudo -n footprint run --allow out --receipt ~/r.json -- sh -c "cat input >out"' \
	>"$work/user.log" 2>&1 || rc=$?
echo "== user run rc=$rc"
sed 's/^/== user: /' "$work/user.log"
in_root stat -c '== owner %n %U %a' /home/dev/job/out /home/dev/r.json
