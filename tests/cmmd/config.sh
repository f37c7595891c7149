#!/bin/sh
# A CM5_* variable with a value it cannot take stops the job at start-up
# with one line that names the variable, the value and what it expects,
# from node 0 (cm5run gives every node the same environment), and exit 1;
# nothing is left behind.  A good value still runs.
#
#   abs_top_builddir=BUILD sh tests/cmmd/config.sh

# VAR=VALUE|what the line says after "VAR=VALUE" (an ERE)
cases='CM5_SHM=bogus|: expected off, auto or on
CM5_CMA=on|: expected off or auto
CM5_EAGER_MAX=9999999|: expected a number from 0 to [0-9]+
CM5_ASYNC_MAX=0|: expected a number from 1 to 65536
CM5_SLEEP_MS=abc|: expected a number from 1 to 1000
CM5_YIELDS=-1|: expected a number from 0 to 1000000
CM5_INTERRUPTS=2|: expected a number from 0 to 1
CM5_VERBOSE_ENV=yes|: expected a number from 0 to 1
CM5_AM_CREDITS=1|: expected auto or a number from 2 to 4096
CM5_SPIN_US=x|: expected auto or a number of microseconds from 0 to 10000000
CM5_LOG_LEVEL=loud|: expected none, error, warn, info or debug
CM5_INTERRUPT_SIGNAL=SIGFOO| is not a usable signal
CM5_INTERRUPT_TICK_US=5|: expected a number from 10 to 10000000
CM5_PEER_TIMEOUT=1s|: expected auto, off, 0 or a number of seconds from 0\.5 to 86400'
PLAN=$(($(echo "$cases" | wc -l) * 2 + 4 + 3))
. "$(dirname "$0")/lib.sh"

while IFS='|' read -r set msg; do
    var=${set%%=*}
    export "$set"
    bad_case "config $set" prog_misc shm 4 misc 0 config "$set$msg"
    unset "$var"
done <<EOF2
$cases
EOF2
# Over tcp too (the check comes before any endpoint opens).
CM5_SLEEP_MS=0
export CM5_SLEEP_MS
bad_case "config CM5_SLEEP_MS=0" prog_misc tcp 3 misc 0 config \
    "CM5_SLEEP_MS=0: expected a number from 1 to 1000"
unset CM5_SLEEP_MS
CM5_SHM=sometimes
export CM5_SHM
bad_case "config CM5_SHM=sometimes" prog_misc udp 2 misc 0 config \
    "CM5_SHM=sometimes: expected off, auto or on"
unset CM5_SHM
# Good values of the same variables run.
CM5_SHM=off CM5_SLEEP_MS=2 CM5_AM_CREDITS=auto CM5_SPIN_US=0 \
    CM5_INTERRUPT_TICK_US=500 CM5_PEER_TIMEOUT=off
export CM5_SHM CM5_SLEEP_MS CM5_AM_CREDITS CM5_SPIN_US \
    CM5_INTERRUPT_TICK_US CM5_PEER_TIMEOUT
job "config good" 60 4 shm prog_misc misc
expect_ok "config: good values of the same variables run"
check "config: no warning" '[ ! -s err ]'
left_behind
unset CM5_SHM CM5_SLEEP_MS CM5_AM_CREDITS CM5_SPIN_US \
    CM5_INTERRUPT_TICK_US CM5_PEER_TIMEOUT
finish
