/*
 * A module that test programs dlopen: its function is a handler that only
 * the nodes which loaded the module can run.
 */
#include <stdint.h>
#include <stdio.h>

void foreign_handler(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3);

void foreign_handler(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    printf("foreign handler ran: %u %u %u %u\n", a0, a1, a2, a3);
    fflush(stdout);
}
