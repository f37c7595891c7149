/*
 * The one table of CM5_* environment variables.
 */
#ifndef CM5_AM_CONFIG_H
#define CM5_AM_CONFIG_H

#include "am_env.h"

/* Value of a variable: the environment's, else the table's default. */
const char *cm5i_config_str(const char *name);
long cm5i_config_long(const char *name, long min, long max);
/* Warn about unknown CM5_* variables; print them all if CM5_VERBOSE_ENV. */
void cm5i_config_check(int print);

#endif
