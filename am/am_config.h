/*
 * The one table of CM5_* environment variables.
 */
#ifndef CM5_AM_CONFIG_H
#define CM5_AM_CONFIG_H

#include "boot/boot_env.h"
#include "cm5/cm5.h"

/* Value of a variable: the environment's, else the table's default. */
const char *cm5i_config_str(const char *name);
/* A bad number is a configuration error (below); the default is used
 * meanwhile. */
long cm5i_config_long(const char *name, long min, long max);
/* A variable's value is unusable: one error line (from node 0 alone under
 * cm5run, which gives every node the same environment), and
 * cm5i_config_status() fails from then on, so the node does not start. */
void cm5i_config_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
cm5_status_t cm5i_config_status(void);
/* Warn about unknown CM5_* variables; print them all if CM5_VERBOSE_ENV. */
void cm5i_config_check(int print);

#endif
