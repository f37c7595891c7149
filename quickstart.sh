#!/bin/sh
# cm5fab quickstart: installs what it needs (Debian 12, as root), builds,
# then runs the demo or the test suite.
#
#   sh quickstart.sh demo    # 32-node active-message and scheduling demo
#   sh quickstart.sh check   # the whole test suite (what CI runs), both
#                            # the 64-bit and the 32-bit legacy build
#   sh quickstart.sh bench   # the benchmarks against MPI (doc/bench.md)
#   sh quickstart.sh fresh   # "check" on a fresh minimal Debian 12 root
#                            # (mmdebstrap), from a clone of the last commit
#
# Build directory: _build (override with BUILD=dir).
set -eu

top=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$top/_build}
what=${1:-demo}

# What each use needs (tests/prereqs.sh checks that every program the test
# scripts, the benchmarks and the demo call comes from these, or from the
# minimal Debian root: sh quickstart.sh packages check|bench|demo).
# demo: the build, the demo, cm5run's PMIx launcher and the man pages.
packages_demo="build-essential autoconf automake libtool pkg-config \
libfabric-dev libfabric-bin libcriterion-dev lowdown python3 \
libpmix-dev openmpi-bin libmetis-dev libmetis-doc gnuplot-nox"
# check: the suite compiles MPI programs (mpicc: libopenmpi-dev), parses
# its own scripts (shfmt), makes network namespaces (iproute2), mounts a
# private /dev/shm (mount), fuzzes (clang brings libFuzzer), checks the
# sources' format (clang-format, 14 in Debian 12), runs Slurm; and it checks
# the benchmarks' scripts against what they call, so it has their
# packages too: the peers measured against (Open MPI, MPICH), the
# profiler, network namespaces (bench/twohost.sh).
packages_bench="$packages_demo libopenmpi-dev mpich libmpich-dev linux-perf \
procps iproute2"
# Slurm (slurmctld, slurmd, srun with its PMIx plugin) and munge: the
# cluster test runs a Slurm cluster across namespace hosts.
packages_check="$packages_bench clang clang-format shfmt iproute2 mount \
slurm-wlm munge"
# fresh: the fresh-machine check (tests/fresh/debian12.sh) builds a
# minimal Debian 12 root and clones the tree into it.
packages_fresh="$packages_check mmdebstrap git"
packages=$packages_demo
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

# The best amortised algorithm per size of a cm5sched table:
# "16 B: lp, 4096 B: lp".
demo_best() {
    awk '/best amortised/ { on = 1; next }
         on && $2 == "|" { printf "%s%s B: %s", sep, $1, $4; sep = ", " }
         END { print "" }' "$1"
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
   order is not the CM-5's: step 3 runs a modelled CM-5.

TXT
    "$build/tools/cm5run" -n 32 --timeout 600 "$build/tools/cm5sched" \
        --alg drsn,lp,rsn,ac,two-stage --workload density:d=8 \
        --sizes 256,4096 --reps 2
    cat <<'TXT'

3. The same on a modelled CM-5 (virtual time).  Each node keeps a clock
   that advances by the CM-5's costs, not this machine's: 16-byte
   packets, 1.6 us to send one and 1.7 us to take one, 6 us of latency,
   20/10/8 MB/s by fat-tree level, CMMD's cost per message (more where
   a node sends and receives at once); one processor moves a node's data
   both ways and a busy receiver holds its senders.  The nodes are
   synchronised, so every run gives the same times whatever this machine
   does (doc/model.md).  The dense pattern of wang1993 Table 4 (d = 31:
   every node sends to all 31 others), 16 and 4096 bytes, first on the
   real clock, then in virtual time as the paper ran it: handlers by
   interrupt (23 us each on the CM-5), DRS_N's data as CMMD messages.

TXT
    "$build/tools/cm5run" -n 32 --timeout 600 "$build/tools/cm5sched" \
        --alg drsn,lp,rsn,ac --workload density:d=31 --sizes 16,4096 \
        --reps 1 --warmup 0 | tee real.txt
    echo
    CM5_MODEL_SYNC=on CM5_MODEL_CPU_SCALE=0 "$build/tools/cm5run" -n 32 \
        --timeout 600 --model cm5 "$build/tools/cm5sched" \
        --alg drsn,lp,rsn,ac --workload density:d=31 --sizes 16,4096 \
        --reps 1 --warmup 0 --interrupts -o drs_data=cmmd | tee virtual.txt
    echo
    echo "The CM-5 (wang1993 Table 4, d = 31): lp is best at every size."
    for f in real virtual; do
        best=$(demo_best "$f.txt")
        case $best in
        "16 B: lp, 4096 B: lp") verdict="the paper's ordering" ;;
        *) verdict="not the paper's ordering" ;;
        esac
        printf '%-28s %s -- %s\n' "Best here, $([ "$f" = real ] &&
            echo "real clock:" || echo "virtual time:")" "$best" "$verdict"
    done
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
    packages=$packages_check
    install_packages
    install_legacy
    build
    cd "$build"
    # VERBOSE: a failing test's whole log (its diagnostics) is printed
    make -j"$(nproc)" check VERBOSE=yes
    ;;
bench)
    # The benchmarks against Open MPI, MPICH and fi_pingpong (doc/bench.md).
    packages=$packages_bench
    install_packages
    build
    cd "$build"
    make bench
    ;;
fresh)
    # The README's test command on a fresh minimal Debian 12 root, from a
    # clone of this tree's last commit (tests/fresh/debian12.sh).
    packages=$packages_fresh
    install_packages
    exec sh "$top/tests/fresh/debian12.sh" --src "$top"
    ;;
packages)
    # The packages a use needs, one a line (tests/prereqs.py reads them).
    case ${2:-demo} in
    demo) list=$packages_demo ;;
    check) list="$packages_check $legacy_packages" ;;
    bench) list=$packages_bench ;;
    fresh) list="$packages_fresh $legacy_packages" ;;
    *)
        echo "usage: sh quickstart.sh packages demo|check|bench|fresh" >&2
        exit 2
        ;;
    esac
    printf '%s\n' $list
    ;;
*)
    echo "usage: sh quickstart.sh demo|check|bench|fresh|packages [MODE]" >&2
    exit 2
    ;;
esac
