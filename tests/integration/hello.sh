#!/bin/sh
# examples/hello on 4 nodes over every provider this machine has, with
# the default provider, and started alone (a 1-node partition).

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

plan 19

printf 'hello from node %d of 4\n' 0 1 2 3 >expect4

for p in shm tcp udp sockets; do
    job 30 "-n 4 --provider $p" "$EXAMPLES/hello"
    grep '^hello from' out | sort >got
    check "$p: 4 nodes exit 0, one 'hello from node I of 4' for I=0..3" \
        '[ "$rc" -eq 0 ] && cmp -s got expect4 && [ "$(wc -l <out)" -eq 5 ]'
    check "$p: node 0 names the provider" \
        'grep -Eq "^provider: $p(;[a-z_]+)? \(bootstrap: cm5run\)$" out'
    check_clean "$p"
done

job 30 "-n 4" "$EXAMPLES/hello"
grep '^hello from' out | sort >got
check "default provider: 4 nodes exit 0, 4 hello lines" \
    '[ "$rc" -eq 0 ] && cmp -s got expect4 && [ "$(wc -l <out)" -eq 5 ]'
check "default provider is shm on one host" \
    'grep -qx "provider: shm (bootstrap: cm5run)" out'
check_clean "default provider"

# libfabric's FI_PROVIDER filter keeps its meaning: when it rules out the
# default (shm), libfabric picks among the providers it lets through.
FI_PROVIDER=tcp
export FI_PROVIDER
job 30 "-n 2" "$EXAMPLES/hello"
unset FI_PROVIDER
check "FI_PROVIDER=tcp, no provider named: 2 nodes exit 0" \
    '[ "$rc" -eq 0 ] && [ "$(grep -c "^hello from node" out)" -eq 2 ]'
check "FI_PROVIDER=tcp, no provider named: the job runs on tcp" \
    'grep -Eqx "provider: tcp(;[a-z_]+)? \(bootstrap: cm5run\)" out'
check_clean "FI_PROVIDER=tcp"

# Alone: no launcher, node 0 of 1.
job_cmd="examples/hello (alone)"
t0=$(now_ms)
timeout -k 5 30 "$EXAMPLES/hello" >out 2>err </dev/null
rc=$?
ms=$(($(now_ms) - t0))
printf 'hello from node 0 of 1\nprovider: shm (bootstrap: single)\n' >expect1
check "alone: exit 0, 'hello from node 0 of 1', provider shm" \
    '[ "$rc" -eq 0 ] && cmp -s out expect1 && [ ! -s err ]'
