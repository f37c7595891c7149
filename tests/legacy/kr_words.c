/*
 * kr_words: CM-5 code as it was written in 1993 (cm5cc --legacy): K&R
 * definitions, implicit declarations, pointers cast to int and shipped in
 * active-message words, doubles passed to CMAML_rpc as two words, a float
 * promoted to double, mixed int/double words, and remote writes to the
 * address of a global and of a malloc'ed block, computed on the sender
 * (every node has them at the same address).  Each node prints one line
 * "node N: ok" or what went wrong; node 0 also prints "addresses ...".
 */
#include <stdio.h>
#include <cm/cmmd.h>

int target[64];         /* &target[i] is computed on the sender */
int *block;             /* malloc'ed first thing: same address everywhere */
double sum;
int hits, errors, acks;

void put_handler(addr, value)   /* a pointer in an int word */
int addr, value;
{
    *(int *)addr = value;
    hits++;
}

void dbl_handler(p, d)          /* a pointer and a double (words 1-2) */
double *p;
double d;
{
    *p += d;
    hits++;
}

void mixed_handler(from, d, k)  /* int, double, int: four words */
int from;
double d;
int k;
{
    if (d != from + 0.5 || k != -from)
        errors++;
    hits++;
}

void float_handler(f, from, k)  /* a float arrives promoted to double */
float f;
int from, k;
{
    if (f != 0.25 * from || k != 3 * from)
        errors++;
    hits++;
}

void ack_handler()
{
    acks++;
}

main(argc, argv)
int argc;
char **argv;
{
    int self, n, to, from, rounds, r;

    block = (int *)malloc(64 * sizeof(int));   /* implicitly declared */
    self = CMMD_self_address();
    n = CMMD_partition_size();
    rounds = argc > 1 ? atoi(argv[1]) : 10;
    to = (self + 1) % n;
    from = (self + n - 1) % n;
    CMMD_sync_with_nodes();
    for (r = 0; r < rounds; r++) {
        CMAML_request(to, put_handler, (int)&target[self], self * 10 + r);
        CMAML_request(to, put_handler, (int)&block[self], self * 100 + r);
        CMAML_rpc(to, dbl_handler, &sum, 2.5 + self);
        CMAML_rpc(to, mixed_handler, self, self + 0.5, -self);
        CMAML_request(to, float_handler, (float)(0.25 * self), self,
                      3 * self);
        CMAML_poll_while_lt(&hits, 5 * (r + 1));
    }
    CMMD_sync_with_nodes();
    report(self, from, rounds);
    return errors != 0;
}

report(self, from, rounds)
int self, from, rounds;
{
    if (self == 0)
        printf("addresses target %p block %p sum %p\n", (void *)target,
               (void *)block, (void *)&sum);
    if (target[from] != from * 10 + rounds - 1)
        errors++, printf("node %d: target[%d] = %d\n", self, from,
                         target[from]);
    if (block[from] != from * 100 + rounds - 1)
        errors++, printf("node %d: block[%d] = %d\n", self, from,
                         block[from]);
    if (sum != rounds * (2.5 + from))
        errors++, printf("node %d: sum = %g\n", self, sum);
    if (errors == 0)
        printf("node %d: ok\n", self);
    else
        printf("node %d: %d errors\n", self, errors);
}
