# Shared by the cluster tests (TAP output).
ok() { echo "ok $1 - $2"; }
notok() {
    echo "not ok $1 - $2"
    [ -n "$3" ] && printf '%s\n' "$3" | sed 's/^/# /' | tail -40
}
cluster_skip() {
    echo "1..0 # SKIP $1"
    exit 0
}
cluster_require_pmix() {
    grep -q '^#define HAVE_PMIX 1' "$abs_top_builddir/config.h" ||
        cluster_skip "cm5fab was built without PMIx (install libpmix-dev)"
    MPIRUN=${MPIRUN:-$(command -v mpirun)}
    [ -n "$MPIRUN" ] || cluster_skip "mpirun (openmpi-bin) not installed"
}
