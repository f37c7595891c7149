#!/bin/sh
# Faults in a multi-node job (tests/integration/progs/errprog.c): the node
# at fault reports the call, the node and the fault once, and the whole
# job stops promptly with a non-zero status, leaving nothing behind.
# The nodes that are not at fault wait in a loop of CMAML_poll (even
# nodes) or in a barrier (odd nodes) until cm5run stops them.  "Promptly"
# is 15 s from the fault (the program prints when it faults): a bound
# that only catches hangs, as how fast a job stops depends on the load of
# the machine (a network failure waits 3 s for the launcher by design);
# starting the job is not counted, it takes seconds on a loaded machine.

. "${abs_top_srcdir:-.}/tests/integration/lib.sh"

ERRPROG=$PROGS/errprog
FOREIGN=$PROGS/.libs/foreign.so

plan 36

# pid_of NODE: the pid cm5run reports for a failed NODE
pid_of() {
    sed -n "s/^cm5run: node $1 (pid \([0-9]*\)).*/\1/p" err | head -n 1
}

# (a) a node outside the partition
for bad in 4 -1 1000; do
    job 20 "-n 4" "$ERRPROG" range "$bad"
    pid=$(pid_of 2)
    check "request to node $bad: job exits 1 within 15 s of the fault" \
        '[ "$rc" -eq 1 ] && [ "$(after_fault)" -lt 15000 ]'
    check "request to node $bad: exactly one error line, from node 2" \
        '[ "$(count_lines "error CMAML_request: node $bad is outside the partition" err)" -eq 1 ] &&
         [ -n "$pid" ] &&
         grep -Eqx "cm5\[2:$pid\] error CMAML_request: node $bad is outside the partition \(0\.\.3\)" err &&
         ! grep -q "returned from the faulty call" out'
    check_clean "request to node $bad"
done

# (b) a handler that is not a function
job 20 "-n 4" "$ERRPROG" handler
pid=$(pid_of 2)
check "data pointer as handler: job exits 1 within 15 s of the fault" \
    '[ "$rc" -eq 1 ] && [ "$(after_fault)" -lt 15000 ]'
check "data pointer as handler: one line naming CMAML_request, not a function" \
    '[ "$(count_lines "error CMAML_request" err)" -eq 1 ] &&
     grep -Eqx "cm5\[2:$pid\] error CMAML_request: handler 0x[0-9a-f]+ is not a function.*" err &&
     ! grep -q "returned from the faulty call" out'
check_clean "data pointer as handler"

# (c) a node aborts after a barrier.  Debian's libfabric loads
# libinfinipath (psm provider), whose SIGABRT/SIGSEGV handler prints a
# backtrace and calls exit(1); the library puts the default action back,
# so the real signal must be seen (and no *.btr file left).
job 20 "-n 4" "$ERRPROG" abort
check "abort on node 1: cm5run exits 134 within 15 s of the fault" \
    '[ "$rc" -eq 134 ] && [ "$(after_fault)" -lt 15000 ]'
check "abort on node 1: one line naming node 1 and signal 6" \
    '[ "$(count_lines "^cm5run: node" err)" -eq 1 ] &&
     grep -Eq "^cm5run: node 1 \(pid [0-9]+\) killed by signal 6" err &&
     ! grep -q "Backtrace:" err'
check_clean "abort on node 1"

IPATH_NO_BACKTRACE=1
export IPATH_NO_BACKTRACE
job 20 "-n 4" "$ERRPROG" abort
unset IPATH_NO_BACKTRACE
check "abort on node 1 (IPATH_NO_BACKTRACE=1): exits 134 within 15 s" \
    '[ "$rc" -eq 134 ] && [ "$(after_fault)" -lt 15000 ]'
check "abort on node 1 (IPATH_NO_BACKTRACE=1): one line, node 1, signal 6" \
    '[ "$(count_lines "^cm5run: node" err)" -eq 1 ] &&
     grep -Eq "^cm5run: node 1 \(pid [0-9]+\) killed by signal 6" err'
check_clean "abort on node 1 (others polling or in a barrier)"

# A node that exits with a non-zero status while the others still work:
# cm5run stops the job with that status (the library's exit handler skips
# the shut-down barrier when the status is not 0).
job 20 "-n 4" "$ERRPROG" exit
check "exit(3) on node 1 alone: job exits 3 within 15 s of the fault" \
    '[ "$rc" -eq 3 ] && [ "$(after_fault)" -lt 15000 ] &&
     grep -Eq "^cm5run: node 1 \(pid [0-9]+\) exited with status 3" err'
check_clean "exit(3) on node 1 alone"

# (d) CMMD_error
job 20 "-n 4" "$ERRPROG" error
pid=$(pid_of 3)
check "CMMD_error on node 3: job exits 1 within 15 s of the fault" \
    '[ "$rc" -eq 1 ] && [ "$(after_fault)" -lt 15000 ]'
check "CMMD_error on node 3: message printed once, trailing newline dropped" \
    '[ "$(count_lines "gives up" err)" -eq 1 ] &&
     grep -qx "cm5\[3:$pid\] error CMMD_error: node 3 gives up: code 42" err &&
     [ "$(count_lines "^cm5\[" err)" -eq 1 ] && ! grep -qx "" err'
check_clean "CMMD_error on node 3"

# (e) the receiver checks handler references: node 1 sends a function of
# a module that only node 1 loaded (a packet node 0 cannot resolve).
job 20 "-n 2" "$ERRPROG" foreign "$FOREIGN"
pid=$(pid_of 0)
check "handler unknown to the receiver: job exits 1 within 15 s" \
    '[ "$rc" -eq 1 ] && [ "$(after_fault)" -lt 15000 ]'
check "handler unknown to the receiver: node 0 reports it, does not call it" \
    '[ "$(count_lines "error CMAML_request" err)" -eq 1 ] &&
     grep -Eqx "cm5\[0:$pid\] error CMAML_request: handler \(object [0-9a-f]{8}, offset 0x[0-9a-f]+\) sent by node 1 is not executable code in this process; not called" err &&
     ! grep -q "foreign handler ran" out'
check_clean "handler unknown to the receiver"

# ... and when every node loaded the module, the same handler runs.
job 20 "-n 2" "$ERRPROG" foreign-all "$FOREIGN"
check "handler in a module every node loaded: runs once with its words" \
    '[ "$rc" -eq 0 ] && [ ! -s err ] &&
     [ "$(grep -cx "foreign handler ran: 1 2 3 4" out)" -eq 1 ] &&
     [ "$(grep -c "done$" out)" -eq 2 ]'
check_clean "handler in a module every node loaded"

# The same faults on tcp and udp: the error path does not depend on shm.
job 30 "-n 4 --provider tcp" "$ERRPROG" range 4
pid=$(pid_of 2)
check "tcp: request to node 4: exits 1 within 15 s, one line from node 2" \
    '[ "$rc" -eq 1 ] && [ "$(after_fault)" -lt 15000 ] &&
     [ "$(count_lines "error CMAML_request" err)" -eq 1 ] &&
     grep -Eq "^cm5\[2:$pid\] error CMAML_request: node 4 is outside" err'
check_clean "tcp: request to node 4"

IPATH_NO_BACKTRACE=1
export IPATH_NO_BACKTRACE
job 30 "-n 4 --provider tcp" "$ERRPROG" abort
unset IPATH_NO_BACKTRACE
check "tcp: abort on node 1: exits 134 within 15 s" \
    '[ "$rc" -eq 134 ] && [ "$(after_fault)" -lt 15000 ] &&
     grep -Eq "^cm5run: node 1 \(pid [0-9]+\) killed by signal 6" err'
check_clean "tcp: abort on node 1"

job 30 "-n 4 --provider udp" "$ERRPROG" error
check "udp: CMMD_error on node 3: exits 1 within 15 s, message once" \
    '[ "$rc" -eq 1 ] && [ "$(after_fault)" -lt 15000 ] &&
     [ "$(count_lines "gives up" err)" -eq 1 ]'
check_clean "udp: CMMD_error on node 3"

# Every node exits 2 (a usage error): the status is passed on.
job 20 "-n 2" "$ERRPROG" no-such-mode
check "every node exits 2: cm5run exits 2" \
    '[ "$rc" -eq 2 ] &&
     grep -q "^cm5run: node [01] (pid [0-9]*) exited with status 2" err'
check_clean "every node exits 2"
