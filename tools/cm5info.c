/*
 * cm5info: what cm5fab sees on this host -- version, libfabric providers
 * usable for its endpoints (and why the others are not), and with -e every
 * CM5_* environment variable with its default, current value and help.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm5/cm5.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cm5info [-e] [-h] [-V]\n"
            "  (no option)  version, libfabric providers usable here and why "
            "others are not\n"
            "  -e, --env    every CM5_* variable: default, current value, "
            "help\n"
            "  -h, --help   this help\n"
            "  -V, --version\n");
}

static void print_env(void)
{
    for (int i = 0; i < cm5_config_count(); i++) {
        const cm5_config_var_t *v = cm5_config_var(i);
        const char *cur = getenv(v->name);

        printf("%s\n    default: %s\n    current: %s\n    %s\n\n", v->name,
               *v->default_value ? v->default_value : "(empty)",
               cur ? cur : "(not set)", v->help);
    }
}

static void print_provider(void *arg, const char *name, int usable,
                           const char *why)
{
    int *nusable = arg;

    if (usable)
        (*nusable)++;
    printf("  %-16s %s%s\n", name, usable ? "usable" : "not usable: ",
           usable ? "" : why);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"env", no_argument, 0, 'e'},
                                         {"help", no_argument, 0, 'h'},
                                         {"version", no_argument, 0, 'V'},
                                         {0, 0, 0, 0}};
    int opt, nusable = 0;

    while ((opt = getopt_long(argc, argv, "ehV", opts, NULL)) != -1) {
        switch (opt) {
        case 'e':
            print_env();
            return 0;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("cm5info (cm5fab) %s\n", PACKAGE_VERSION);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cm5info: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    printf("cm5fab %s on libfabric %s\n", PACKAGE_VERSION,
           cm5_fabric_version());
    printf("bootstrap: %s\n", getenv("CM5_BOOT_FD") ? "cm5run"
                                                    : "single (1-node "
                                                      "partition)");
    printf("providers (reliable datagram endpoints with multi-receive):\n");
    cm5_fabric_list(print_provider, &nusable);
    printf("default: %s\n", getenv("CM5_PROVIDER") && *getenv("CM5_PROVIDER")
                                ? getenv("CM5_PROVIDER")
                                : "shm for jobs on one host");
    return nusable > 0 ? 0 : 1;
}
