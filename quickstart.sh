#!/bin/sh
# cm5fab quickstart: installs what it needs (Debian 12, as root), builds,
# then runs the demo or the test suite.
#
#   sh quickstart.sh demo    # 32-node active-message and scheduling demo
#   sh quickstart.sh check   # the whole test suite (what CI runs), both
#                            # the 64-bit and the 32-bit legacy build
#
# Build directory: _build (override with BUILD=dir).
set -eu

top=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$top/_build}
what=${1:-demo}

packages="build-essential autoconf automake libtool pkg-config \
libfabric-dev libfabric-bin libcriterion-dev lowdown python3 \
libpmix-dev openmpi-bin libmetis-dev libmetis-doc gnuplot-nox"
# Legacy mode (the 32-bit libcm5fab of cm5cc --legacy): the i386 toolchain
# and the multi-arch dependencies of Debian's i386 libfabric, which
# configure itself downloads and unpacks into the build tree.
legacy_packages="gcc-multilib libibverbs1:i386 librdmacm1:i386 libuuid1:i386"

need_install() {
    for p in $packages; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
            grep -q 'install ok installed' || return 0
    done
    return 1
}

install_packages() {
    need_install || return 0
    if [ "$(id -u)" != 0 ]; then
        echo "quickstart: run as root (or install: $packages)" >&2
        exit 1
    fi
    echo "quickstart: installing Debian packages: $packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages >/dev/null
}

# Legacy mode is optional: where the i386 pieces cannot be installed,
# configure says so in one line and the legacy tests skip.
install_legacy() {
    missing=no
    for p in $legacy_packages; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
            grep -q 'install ok installed' || missing=yes
    done
    [ $missing = yes ] || return 0
    if [ "$(id -u)" != 0 ]; then
        echo "quickstart: legacy mode needs (as root): dpkg" \
            "--add-architecture i386; apt-get install $legacy_packages" >&2
        return 0
    fi
    echo "quickstart: installing Debian packages: $legacy_packages"
    dpkg --add-architecture i386
    apt-get update -qq || true # a mirror mid-sync fails one index
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $legacy_packages \
        >/dev/null || echo "quickstart: legacy mode packages not installed" >&2
}

build() {
    cd "$top"
    [ -x configure ] || ./autogen.sh
    mkdir -p "$build"
    cd "$build"
    [ -f Makefile ] || "$top/configure" -q
    make -j"$(nproc)" >/dev/null
}

demo() {
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    cd "$scratch"
    cat <<'TXT'
== cm5fab demo: 32 CM-5 nodes on this machine ==

1. Active messages.  Each node is a process started by cm5run.  Every node
   sends 1000 active messages (a handler and four 32-bit words, 16 bytes,
   as on the CM-5) to the other nodes in turn; each request handler checks
   its message and answers with a reply active message.  Sequence numbers
   catch any message lost, duplicated or reordered.

TXT
    "$build/tools/cm5run" -n 32 --timeout 300 "$build/examples/am_flood" \
        -m 1000
    cat <<'TXT'

2. Scheduling irregular communication (Wang, Lin and Ranka 1993; Ranka,
   Shankar and Alsabti 1995).  Every node sends a message to 8 others
   (test set 1 of the 1993 paper: a random pattern with exactly 8 messages
   into and out of each node), once with 256-byte and once with 4096-byte
   messages, scheduled by five algorithms written on CMMD/CMAML:
     drsn       distributed random scheduling: a test-and-set active
                message asks the receiver before each transfer
     lp         linear permutation: 31 pairwise XOR exchange steps
     rsn        random scheduling: every node computes the same
                contention-free phases from the whole matrix ("comp")
     ac         asynchronous: everything at once, in random order
     two-stage  bounded traffic: every message split over all nodes
   Every byte received is checked.  Times in ms (max over nodes); perm is
   the number of phases.  This machine has 2 cores for 32 nodes, so the
   order is not the CM-5's: see doc/reproduction.md.

TXT
    "$build/tools/cm5run" -n 32 --timeout 600 "$build/tools/cm5sched" \
        --alg drsn,lp,rsn,ac,two-stage --workload density:d=8 \
        --sizes 256,4096 --reps 2
    echo
    echo "Try: $build/tools/cm5run -n 2 $build/examples/am_pingpong"
    echo "     $build/tools/cm5run -n 16 $build/tools/cm5sched --help"
    echo "     $build/tools/cm5info     (providers usable here)"
}

case "$what" in
demo)
    install_packages
    build
    demo
    ;;
check)
    # clang brings libFuzzer: the suite's short fuzz run (tests/fuzz) then
    # replays the corpus and fuzzes for a few seconds instead of skipping,
    # as CI should; the demo does not need it.
    packages="$packages clang"
    install_packages
    install_legacy
    build
    cd "$build"
    make -j"$(nproc)" check
    ;;
*)
    echo "usage: sh quickstart.sh demo|check" >&2
    exit 2
    ;;
esac
