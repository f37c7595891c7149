/*
 * The names of the CM5_* environment variables, in one place: the
 * configuration table (am_config.c), the library, cm5run, cm5pmix and
 * cm5info all use these, so a name cannot be spelled two ways.  It is
 * part of the contract between the library and its launchers (with
 * boot_proto.h and model_spec.h, the only am/ headers tools/ sees).
 * Each is declared, with its default and help, in the table of
 * am_config.c; a unit test (tests/unit/am/test_config.c) checks that
 * both lists agree.
 */
#ifndef CM5_BOOT_ENV_H
#define CM5_BOOT_ENV_H

/* X(macro, "name") for every variable, in the order of the table. */
#define CM5_ENV_VARS(X)                                                        \
    X(CM5_ENV_PROVIDER, "CM5_PROVIDER")                                        \
    X(CM5_ENV_LOG_LEVEL, "CM5_LOG_LEVEL")                                      \
    X(CM5_ENV_VERBOSE_ENV, "CM5_VERBOSE_ENV")                                  \
    X(CM5_ENV_AM_CREDITS, "CM5_AM_CREDITS")                                    \
    X(CM5_ENV_EAGER_MAX, "CM5_EAGER_MAX")                                      \
    X(CM5_ENV_ASYNC_MAX, "CM5_ASYNC_MAX")                                      \
    X(CM5_ENV_SPIN_US, "CM5_SPIN_US")                                          \
    X(CM5_ENV_YIELDS, "CM5_YIELDS")                                            \
    X(CM5_ENV_SLEEP_MS, "CM5_SLEEP_MS")                                        \
    X(CM5_ENV_INTERRUPT_SIGNAL, "CM5_INTERRUPT_SIGNAL")                        \
    X(CM5_ENV_INTERRUPT_TICK_US, "CM5_INTERRUPT_TICK_US")                      \
    X(CM5_ENV_INTERRUPTS, "CM5_INTERRUPTS")                                    \
    X(CM5_ENV_PEER_TIMEOUT, "CM5_PEER_TIMEOUT")                                \
    X(CM5_ENV_SHM, "CM5_SHM")                                                  \
    X(CM5_ENV_TRACE, "CM5_TRACE")                                              \
    X(CM5_ENV_MODEL, "CM5_MODEL")                                              \
    X(CM5_ENV_MODEL_CPU_SCALE, "CM5_MODEL_CPU_SCALE")                          \
    X(CM5_ENV_MODEL_CPU_FLOOR, "CM5_MODEL_CPU_FLOOR")                          \
    X(CM5_ENV_MODEL_SYNC, "CM5_MODEL_SYNC")                                    \
    X(CM5_ENV_MODEL_JITTER, "CM5_MODEL_JITTER")                                \
    X(CM5_ENV_CMA, "CM5_CMA")                                                  \
    X(CM5_ENV_BARRIER, "CM5_BARRIER")                                          \
    X(CM5_ENV_TIMEOUT, "CM5_TIMEOUT")                                          \
    X(CM5_ENV_DEADLOCK, "CM5_DEADLOCK")                                        \
    X(CM5_ENV_LAUNCHER, "CM5_LAUNCHER")                                        \
    X(CM5_ENV_RANK, "CM5_RANK")                                                \
    X(CM5_ENV_SIZE, "CM5_SIZE")                                                \
    X(CM5_ENV_HOST, "CM5_HOST")                                                \
    X(CM5_ENV_BOOT_FD, "CM5_BOOT_FD")                                          \
    X(CM5_ENV_JOB_KEY, "CM5_JOB_KEY")                                          \
    X(CM5_ENV_DOORBELL_FD, "CM5_DOORBELL_FD")

#define CM5_ENV_PROVIDER "CM5_PROVIDER"
#define CM5_ENV_LOG_LEVEL "CM5_LOG_LEVEL"
#define CM5_ENV_VERBOSE_ENV "CM5_VERBOSE_ENV"
#define CM5_ENV_AM_CREDITS "CM5_AM_CREDITS"
#define CM5_ENV_EAGER_MAX "CM5_EAGER_MAX"
#define CM5_ENV_ASYNC_MAX "CM5_ASYNC_MAX"
#define CM5_ENV_SPIN_US "CM5_SPIN_US"
#define CM5_ENV_YIELDS "CM5_YIELDS"
#define CM5_ENV_SLEEP_MS "CM5_SLEEP_MS"
#define CM5_ENV_INTERRUPT_SIGNAL "CM5_INTERRUPT_SIGNAL"
#define CM5_ENV_INTERRUPT_TICK_US "CM5_INTERRUPT_TICK_US"
#define CM5_ENV_INTERRUPTS "CM5_INTERRUPTS"
#define CM5_ENV_PEER_TIMEOUT "CM5_PEER_TIMEOUT"
#define CM5_ENV_SHM "CM5_SHM"
/* The event trace (am_trace.c). */
#define CM5_ENV_TRACE "CM5_TRACE"
#define CM5_ENV_MODEL "CM5_MODEL"
#define CM5_ENV_MODEL_CPU_SCALE "CM5_MODEL_CPU_SCALE"
#define CM5_ENV_MODEL_CPU_FLOOR "CM5_MODEL_CPU_FLOOR"
#define CM5_ENV_MODEL_SYNC "CM5_MODEL_SYNC"
/* Testing: random real-time delays in the synchronisation (am_model_sync.c). */
#define CM5_ENV_MODEL_JITTER "CM5_MODEL_JITTER"
#define CM5_ENV_CMA "CM5_CMA"
#define CM5_ENV_BARRIER "CM5_BARRIER"
/* cm5run's default --timeout. */
#define CM5_ENV_TIMEOUT "CM5_TIMEOUT"
/* cm5run's deadlock check (boot_proto.h's slot fields). */
#define CM5_ENV_DEADLOCK "CM5_DEADLOCK"
/* Set by cm5run for every node (the bootstrap, boot/boot_proto.h). */
#define CM5_ENV_LAUNCHER "CM5_LAUNCHER"
#define CM5_ENV_RANK "CM5_RANK"
#define CM5_ENV_SIZE "CM5_SIZE"
#define CM5_ENV_HOST "CM5_HOST"
#define CM5_ENV_BOOT_FD "CM5_BOOT_FD"
#define CM5_ENV_JOB_KEY "CM5_JOB_KEY"
#define CM5_ENV_DOORBELL_FD "CM5_DOORBELL_FD"

/* The prefix every variable has (unknown ones draw a warning). */
#define CM5_ENV_PREFIX "CM5_"

#endif
