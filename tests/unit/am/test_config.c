/*
 * The CM5_* configuration table (cm5_config_count, cm5_config_var): the one
 * place every variable is declared, printed by cm5info -e.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include <cm5/cm5.h>

#include "boot/boot_env.h"

TestSuite(config, .timeout = 10);

Test(config, entries_are_complete)
{
    int n = cm5_config_count();

    cr_assert_gt(n, 0, "the table is empty");
    for (int i = 0; i < n; i++) {
        const cm5_config_var_t *v = cm5_config_var(i);

        cr_assert_not_null(v, "entry %d of %d is NULL", i, n);
        cr_assert_not_null(v->name, "entry %d has no name", i);
        cr_expect(strncmp(v->name, "CM5_", 4) == 0 && v->name[4],
                  "entry %d: '%s' does not start with CM5_", i, v->name);
        cr_expect_eq(strspn(v->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
                     strlen(v->name), "'%s': not an environment name", v->name);
        cr_expect_not_null(v->default_value, "%s has no default", v->name);
        cr_expect_not_null(v->help, "%s has no help", v->name);
        if (v->help)
            cr_expect_gt(strlen(v->help), 10, "%s: help '%s' is too short",
                         v->name, v->help);
    }
}

Test(config, out_of_range_is_null)
{
    int n = cm5_config_count();

    cr_expect_null(cm5_config_var(-1));
    cr_expect_null(cm5_config_var(n));
    cr_expect_null(cm5_config_var(n + 1000));
    cr_expect_null(cm5_config_var(-1000000));
}

Test(config, names_are_unique)
{
    int n = cm5_config_count();

    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            cr_expect_str_neq(cm5_config_var(i)->name, cm5_config_var(j)->name,
                              "entries %d and %d have the same name", j, i);
}

static const cm5_config_var_t *find(const char *name)
{
    for (int i = 0; i < cm5_config_count(); i++)
        if (strcmp(cm5_config_var(i)->name, name) == 0)
            return cm5_config_var(i);
    return NULL;
}

Test(config, variables_the_library_reads_are_declared)
{
    static const char *names[] = {
        "CM5_PROVIDER",    "CM5_LOG_LEVEL", "CM5_VERBOSE_ENV", "CM5_AM_CREDITS",
        "CM5_SPIN_US",     "CM5_YIELDS",    "CM5_SLEEP_MS",    "CM5_TIMEOUT",
        "CM5_RANK",        "CM5_SIZE",      "CM5_BOOT_FD",     "CM5_JOB_KEY",
        "CM5_DOORBELL_FD", "CM5_LAUNCHER",
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        cr_expect_not_null(find(names[i]), "%s is not in the table", names[i]);
}

/* boot_env.h names every variable once (the library, cm5run and cm5info
 * use its macros): the table declares exactly those, in that order. */
Test(config, table_matches_the_names_of_boot_env_h)
{
#define NAME(macro, text) {macro, text},
    static const struct {
        const char *macro, *text;
    } names[] = {CM5_ENV_VARS(NAME)};
#undef NAME
    int n = (int)(sizeof(names) / sizeof(*names));

    cr_expect_eq(cm5_config_count(), n,
                 "the table has %d entries, boot_env.h "
                 "names %d",
                 cm5_config_count(), n);
    for (int i = 0; i < n; i++) {
        cr_expect_str_eq(names[i].macro, names[i].text,
                         "CM5_ENV_VARS: a macro and its name disagree");
        if (i < cm5_config_count())
            cr_expect_str_eq(cm5_config_var(i)->name, names[i].text, "entry %d",
                             i);
    }
}

Test(config, numeric_defaults_are_numbers)
{
    static const char *names[] = {"CM5_YIELDS", "CM5_SLEEP_MS", "CM5_TIMEOUT",
                                  "CM5_VERBOSE_ENV"};

    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
        const cm5_config_var_t *v = find(names[i]);
        char *end;

        cr_assert_not_null(v, "%s is not in the table", names[i]);
        (void)strtol(v->default_value, &end, 10);
        cr_expect(*v->default_value && !*end,
                  "%s: default '%s' is not a number", v->name,
                  v->default_value);
    }
    /* The flow-control window scales with the job unless set. */
    cr_expect_str_eq(find("CM5_AM_CREDITS")->default_value, "auto");
}
