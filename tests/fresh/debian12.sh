#!/bin/sh
# The README's test command on a fresh Debian 12 (issue 23): builds a
# minimal root with mmdebstrap (--variant=apt: Essential packages and apt,
# nothing else), clones the committed tree into it, and runs
# "sh quickstart.sh check" there as root, as a new user on a new machine
# would.  Not part of "make check": run it by hand or with
# "make check-fresh" before a change to packages, configure.ac or what the
# tests need.  Needs root, mmdebstrap, git, unshare and Debian's mirror.
#
#   sh tests/fresh/debian12.sh [--src DIR] [--rev REV] [--keep]
#                              [--log FILE] [--timeout MIN]
#
# The root lives in a private mount namespace: /proc, /sys and /dev are
# mounted in it, /dev/shm, /run and /tmp are its own (tmpfs), and nothing
# is left mounted on the host when it ends.  Prints the suite's totals and
# exits with the suite's status (2 for bad usage or a missing tool).

set -u
me=tests/fresh/debian12.sh
src=$(cd "$(dirname "$0")/../.." && pwd)
rev=HEAD
keep=no
log=
minutes=120

usage() {
    sed -n '/^#   sh /,/^#$/p' "$0" | sed 's/^# \{0,3\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --src) src=$2; shift 2 ;;
    --rev) rev=$2; shift 2 ;;
    --keep) keep=yes; shift ;;
    --log) log=$2; shift 2 ;;
    --timeout) minutes=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "$me: unknown argument '$1'" >&2; usage ;;
    esac
done
case $minutes in '' | *[!0-9]*)
    echo "$me: --timeout wants minutes, not '$minutes'" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then
    echo "$me: run as root (mmdebstrap, chroot and mounts need it)" >&2
    exit 2
fi
for t in mmdebstrap git unshare chroot; do
    command -v $t >/dev/null 2>&1 || {
        echo "$me: $t not found (sh quickstart.sh fresh installs what it needs)" >&2
        exit 2
    }
done
commit=$(git -C "$src" rev-parse --verify -q "$rev^{commit}") || {
    echo "$me: $src has no commit '$rev'" >&2
    exit 2
}

work=$(mktemp -d "${TMPDIR:-/var/tmp}/cm5-fresh.XXXXXX") || exit 2
[ -n "$log" ] || log=$(pwd)/fresh-check.log
cleanup() {
    if [ $keep = yes ]; then
        echo "$me: kept $work (the root is $work/root)"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT HUP TERM

t0=$(date +%s)
sources=/etc/apt/sources.list.d/debian.sources
[ -f $sources ] || sources=http://deb.debian.org/debian
echo "$me: making a minimal Debian 12 root in $work/root"
if ! mmdebstrap --quiet --variant=apt bookworm "$work/root" "$sources" \
    >"$work/mmdebstrap.log" 2>&1; then
    echo "$me: mmdebstrap failed:" >&2
    tail -n 20 "$work/mmdebstrap.log" >&2
    exit 2
fi
echo "$me: cloning $src at ${commit%"${commit#????????????}"} into /src/cm5fab"
git clone --quiet --no-hardlinks "$src" "$work/root/src/cm5fab" &&
    git -C "$work/root/src/cm5fab" checkout --quiet "$commit" || exit 2
cp -L /etc/resolv.conf "$work/root/etc/resolv.conf" 2>/dev/null || true
t1=$(date +%s)

# Inside a private mount namespace: the root's mounts go when it ends.
echo "$me: sh quickstart.sh check in the root (log: $log)"
timeout -k 30 "${minutes}m" unshare --mount --propagation private \
    /bin/sh -s "$work/root" >"$log" 2>&1 <<'IN'
set -e
r=$1
# The root a mount point of its own, as on a real machine: unshare
# --mount and ip netns (which the suite uses) remount / and fail in a
# chroot whose root is only a directory.
mount --bind "$r" "$r"
mount -t proc proc "$r/proc"
mount --rbind /sys "$r/sys"
mount --make-rslave "$r/sys"
mount --rbind /dev "$r/dev"
mount --make-rslave "$r/dev"
mount -t tmpfs -o mode=1777,size=50% tmpfs "$r/dev/shm"
mount -t tmpfs -o mode=755 tmpfs "$r/run"
mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
set +e
exec chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/sh -c 'cd /src/cm5fab && sh quickstart.sh check'
IN
rc=$?
t2=$(date +%s)

summary=$(sed -n 's/^# \(TOTAL\|PASS\|SKIP\|XFAIL\|FAIL\|XPASS\|ERROR\): *\([0-9]*\)$/\1 \2/p' \
    "$log" | tail -n 7 | tr '\n' ' ')
echo "$me: root $((t1 - t0)) s, quickstart.sh check $((t2 - t1)) s, exit $rc"
if [ -n "$summary" ]; then
    echo "$me: totals: $summary"
else
    echo "$me: no test-suite summary in the log; its end:"
    tail -n 30 "$log"
fi
if [ $rc != 0 ]; then
    grep -E '^(FAIL|ERROR|XPASS):' "$log" | head -n 40
    [ $rc = 124 ] && echo "$me: stopped after $minutes minutes"
fi
exit $rc
