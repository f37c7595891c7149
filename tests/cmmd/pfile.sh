#!/bin/sh
# Global files (prog_pfile): CMMD_global_open/creat/fopen in every I/O
# mode over shm and tcp on 1, 3 and 4 nodes; the files each mode wrote are
# checked here byte for byte (sync_seq: records in node order, of
# different lengths, some empty; sync_bc: one copy; independent: records
# at explicit offsets; local: one file a node; stdio: sync_seq lines and
# an appended sync_seq record each), and dseek/dtell/dlength/dftruncate
# leave a sparse file of 2^31+7 bytes with 'Z' at 2^31+3.  Then wrong
# calls: one line from the node that makes it, exit 1.  TAP output.
#
#   abs_top_builddir=BUILD sh tests/cmmd/pfile.sh

runs='shm:1 shm:3 shm:4 tcp:1 tcp:3 tcp:4'
# MODE|MESSAGE (an extended regular expression; node 1 of 3 reports it)
cases='bad_mode|CMMD_set_io_mode: unknown I/O mode 9
bad_system|CMMD_set_open_mode: CMMD_system is the I/O system.s own mode; a program cannot set it
bad_order|read: descriptor [0-9]+ is in CMMD_sync_seq mode, a collective call, and node 1 reads 4 bytes at offset 0 while node 0 writes 4 at 0 \(another call\): every node must make the same call
bad_bclen|write: descriptor [0-9]+ is in CMMD_sync_bc mode, a collective call, and node 1 writes 5 bytes at offset 0 while node 0 writes 4 at 0 \(another length\): every node must make the same call
bad_seek|write: descriptor [0-9]+ is in CMMD_sync_seq mode, a collective call, and node 1 writes 4 bytes at offset 4 while node 0 writes 4 at 0 \(another file pointer\): every node must make the same call
bad_setmode|CMMD_set_io_mode: node 1 sets global descriptor [0-9]+ to CMMD_sync_bc, node 0 to CMMD_sync_seq: every node sets the same mode'
tcp_cases='bad_order bad_seek'

PLAN=$((6 * 8 + $(echo "$cases" | wc -l) * 2 + 2 * 2))
. "$(dirname "$0")/lib.sh"

# The expected files for N nodes, written into the current directory.
expect_files() {
    awk -v n="$1" 'BEGIN {
        for (r = 0; r < 2; r++)
            for (i = 0; i < n; i++) {
                s = sprintf("r%d n%d ", r, i)
                c = substr("abcdefghijklmnopqrstuvwxyz", i % 26 + 1, 1)
                for (k = 0; k < (i * 3 + r * 5) % 11; k++)
                    s = s c
                printf "%s\n", s >"seq.expect"
            }
        for (i = 0; i < n; i += 2)
            printf "even %d\n", i >"seq.expect"
        for (k = 0; k < 3; k++)
            printf "bc line %d\n", k >"bc.expect"
        for (i = 0; i < n; i++)
            printf "ind node %6d\n", i >"ind.expect"
        for (i = 0; i < n; i++)
            printf "stdio node %d of %d\n", i, n >"stdio.expect"
        for (i = 0; i < n; i++)
            printf "app %d\n", i >"stdio.expect"
    }'
}

locals_ok() {
    i=0
    while [ $i -lt "$1" ]; do
        [ "$(cat "files/local.$i")" = "local node $i" ] || return 1
        i=$((i + 1))
    done
    [ "$(ls files | grep -c '^local\.')" -eq "$1" ]
}

for run in $runs; do
    prov=${run%:*} nodes=${run#*:}
    rm -rf files && mkdir files
    job "files $prov n=$nodes" 60 $nodes $prov prog_pfile files "$scratch/files"
    expect_ok "files $prov n=$nodes: every mode's reads return exactly the expected bytes, dseek/dtell/dlength/dftruncate exact past 2^31, missing files give -1/ENOENT"
    expect_files $nodes
    check "files $prov n=$nodes: sync_seq file: 3 rounds of records in node order, lengths differing, odd nodes' last empty" \
        'cmp -s files/seq.out seq.expect'
    check "files $prov n=$nodes: sync_bc file: one copy of the 3 lines every node wrote" \
        'cmp -s files/bc.out bc.expect'
    check "files $prov n=$nodes: independent file: each node's 16 bytes at offset 16 * node" \
        'cmp -s files/ind.out ind.expect'
    check "files $prov n=$nodes: local: one file a node, each its own line" \
        'locals_ok $nodes'
    check "files $prov n=$nodes: CMMD_global_fopen + fprintf in sync_seq, then \"a\": lines in node order" \
        'cmp -s files/stdio.out stdio.expect'
    check "files $prov n=$nodes: big.out is 2147483655 bytes, sparse, 'Z' at 2147483651" \
        '[ "$(stat -c %s files/big.out)" = 2147483655 ] &&
         [ "$(stat -c %b files/big.out)" -lt 4096 ] &&
         [ "$(od -An -c -j 2147483651 -N 1 files/big.out | tr -d " ")" = Z ]'
    rm -rf files
    left_behind
done

# pf_one_error MESSAGE: stderr is node 1's one error line and cm5run's line.
pf_one_error() {
    pid=$(sed -n "s/^cm5run: node 1 (pid \([0-9]*\)) exited with status 1; stopping the job\$/\1/p" err)
    [ -n "$pid" ] && [ "$(wc -l <err)" -eq 2 ] &&
        grep -Eqx "cm5\[1:$pid\] error $1" err
}

while IFS='|' read -r mode msg; do
    for prov in shm tcp; do
        case "$prov $tcp_cases " in
            shm*) ;;
            *" $mode "*) ;;
            *) continue ;;
        esac
        rm -rf files && mkdir files
        job "$mode $prov n=3" 20 3 $prov prog_pfile $mode "$scratch/files"
        check "$mode ($prov, 3 nodes): one line 'cm5[1:PID] error ...', exit 1 ($ms ms)" \
            '[ "$rc" -eq 1 ] && pf_one_error "$msg"'
        left_behind
    done
done <<EOF
$cases
EOF
finish
