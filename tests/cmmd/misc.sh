#!/bin/sh
# The rest of CMMD (prog_misc): version, timers, polling, safety, I/O
# modes, partition resize, and the output of independent and sync_seq
# streams through cm5run.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/misc.sh

PLAN=37
. "$(dirname "$0")/lib.sh"

# libfabric's version as "major.minor", from fi_info if it is installed.
fabver=$(fi_info --version 2>/dev/null | sed -n 's/^libfabric: \([0-9]*\.[0-9]*\).*/\1/p')

for run in shm:1 shm:3 tcp:3 udp:2; do
    prov=${run%:*} nodes=${run#*:}
    job "misc $prov n=$nodes" 60 $nodes $prov prog_misc misc
    expect_ok "misc $prov n=$nodes: version, 64 timers (idle = elapsed - busy), CMMD_poll, reply, rpc, safety, I/O mode getters"
    left_behind
    if [ $run = shm:3 ]; then
        check "CMMD_version() is \"CMMD 3.3 (cm5fab VERSION on libfabric ${fabver:-X.Y})\"" \
            'grep -Eqx "version: CMMD 3\.3 \(cm5fab [0-9][0-9a-z.~-]* on libfabric [0-9]+\.[0-9]+\)" out &&
             { [ -z "$fabver" ] || grep -q " on libfabric $fabver)\$" out; }'
    fi
done

# The nodes at and above ceil(N/2) leave by themselves.
for run in shm:1 shm:2 shm:5 tcp:5; do
    prov=${run%:*} nodes=${run#*:}
    size=$((nodes - nodes / 2))
    job "resize $prov n=$nodes" 60 $nodes $prov prog_misc resize
    check "resize $prov n=$nodes: CMMD_reset_partition_size($size): $((nodes - size)) nodes leave, $size go on working ($ms ms)" \
        '[ "$rc" -eq 0 ] &&
         [ "$(grep -c "^prog_misc: node [0-9]* of $size ok$" out)" -eq $size ] &&
         [ "$(grep -c "^prog_misc: node [0-9]* left the partition$" out)" -eq $((nodes - size)) ]'
    left_behind
done

# The same with stdout in sync_seq mode: every node's lines appear.
job "resize_seq shm n=4" 60 4 shm prog_misc resize_seq
check "resize_seq shm n=4: with stdout in sync_seq mode, the lines of the 2 nodes that leave the partition are not lost ($ms ms)" \
    '[ "$rc" -eq 0 ] &&
     [ "$(grep -c "^prog_misc: node [0-3] before the resize$" out)" -eq 4 ] &&
     [ "$(grep -c "^prog_misc: node [0-9]* of 2 ok$" out)" -eq 2 ] &&
     [ "$(grep -c "^prog_misc: node [23] left the partition$" out)" -eq 2 ]'
left_behind

# sync_bc: node 0 writes for all; one copy of the lines every node wrote.
job "io_bc shm n=3" 60 3 shm prog_misc io_bc
printf 'bc line 0 of 3 nodes\nbc line 1 of 3 nodes\nbc line 2 of 3 nodes\n' >bc.expect
check "io_bc shm n=3: stdout in sync_bc mode: the 3 lines every node wrote appear once ($ms ms)" \
    '[ "$rc" -eq 0 ] && cmp -s out bc.expect'
left_behind

# The expected sync_seq lines: batches 1..3, nodes in order, 3 lines each.
seq_expect() {
    for b in 1 2 3; do
        i=0
        while [ $i -lt "$1" ]; do
            for k in 0 1 2; do echo "seq $b node $i line $k"; done
            i=$((i + 1))
        done
    done
}

# Lines "ind NODE K X...X" with 10000 times the node's letter, 100 a node.
ind_whole() {
    awk -v nodes="$1" '
        BEGIN { letters = "abcdefghijklmnopqrstuvwxyz" }
        /^ind / {
            want = substr(letters, $2 % 26 + 1, 1)
            if (NF != 4 || length($4) != 10000 || $4 !~ ("^" want "+$"))
                bad++
            else
                seen[$2 " " $3]++
            next
        }
        /^seq / { next }
        { other++ }
        END {
            for (i = 0; i < nodes; i++)
                for (k = 0; k < 100; k++)
                    if (seen[i " " k] != 1) bad++
            exit (bad || other) ? 1 : 0
        }' out
}

for run in shm:1 shm:4 shm:8 tcp:4; do
    prov=${run%:*} nodes=${run#*:}
    job "io $prov n=$nodes" 60 $nodes $prov prog_misc io
    check "io $prov n=$nodes: exit 0 ($ms ms)" '[ "$rc" -eq 0 ] && [ ! -s err ]'
    check "io $prov n=$nodes: independent lines of 10000 bytes arrive whole, each once" \
        'ind_whole $nodes'
    seq_expect $nodes >seq.expect
    check "io $prov n=$nodes: sync_seq output in node order at CMMD_sync_with_nodes and at exit, higher nodes printing first" \
        'grep "^seq " out | cmp -s - seq.expect'
    left_behind
done
finish
