# Shared by the TAP scripts of tests/algos/ that run prog_a2av (sourced
# after they set PLAN, CM5RUN and PROG): a scratch directory, TAP output
# (ok, not_ok, check), run (one cm5run job: out, err, rc, ms), val (a
# value of node 0's stats line) and good (the job succeeded).

unset CM5_TIMEOUT CM5_PROVIDER CM5_LOG_LEVEL CM5_VERBOSE_ENV FI_PROVIDER
FI_TCP_IFACE=lo
FI_SOCKETS_IFACE=lo
export FI_TCP_IFACE FI_SOCKETS_IFACE

. "$(dirname "$0")/../tap.sh"
tap_begin cm5algos "$PLAN"

# run SECONDS NODES PROVIDER ALG [prog_a2av ARGS...]: out, err, rc, ms.
run() {
    secs=$1 nodes=$2 prov=$3
    shift 3
    what="prog_a2av $* on $nodes nodes, $prov"
    t0=$(now_ms)
    # shellcheck disable=SC2046 # provopt: none or two words
    timeout -k 2 $((secs + 10)) "$CM5RUN" -n "$nodes" $(provopt "$prov") \
        --timeout "$secs" "$PROG" "$@" >out 2>err
    rc=$?
    ms=$(($(now_ms) - t0))
}

# A value of node 0's "stats" line.
val() {
    sed -n "s/^stats .* $1=\([0-9.]*\).*/\1/p" out
}

# The job succeeded: exit 0, the stats line and "ok".
good() {
    [ "$rc" -eq 0 ] && grep -q '^stats alg=' out && grep -qx ok out
}
