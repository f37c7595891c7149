/*
 * kr_decl: a CM-5 source file of 1993 that redeclares the CMMD and CMAML
 * calls it uses with empty parameter lists, as code of the time did
 * beside (or instead of) the header, and defines its functions K&R
 * style.  It must compile with cm5cc --legacy -std=gnu89
 * -pedantic-errors (tests/legacy/legacy.sh).
 */
#include <cm/cmmd.h>

extern int CMAML_scopy();
extern void CMAML_request();
extern void CMAML_reply();
extern void CMAML_rpc();
extern int CMAML_allocate_rport();
extern void CMAML_set_rport_addr();
extern void CMAML_set_rport_total_nbytes();
extern void CMAML_poll();
extern int CMMD_self_address();
extern int CMMD_partition_size();
extern int CMMD_send_block();
extern int CMMD_receive_block();
extern int CMMD_send_and_receive();
extern int CMMD_reduce_int();
extern double CMMD_reduce_double();
extern void CMMD_sync_with_nodes();
extern void CMMD_bc_to_nodes();
extern void CMMD_receive_bc_from_node();
extern void CMMD_error();
extern double CMMD_node_timer_elapsed();

int done;

void sent(arg)
int *arg;
{
    *arg = 1;
}

void ack(a, b)
int a, b;
{
    done += a + b;
}

int exchange(to, rport, buf, n)
int to, rport;
double *buf;
int n;
{
    int ok;

    ok = CMAML_scopy(to, rport, 0, 0, buf, n * sizeof(double), sent, &done);
    CMAML_request(to, ack, 1, 2);
    CMAML_rpc(to, ack, 3, 4);
    CMAML_poll();
    return ok && CMMD_reduce_int(1, CMMD_combiner_add) ==
                     CMMD_partition_size();
}

double average(x)
double x;
{
    return CMMD_reduce_double(x, CMMD_combiner_dadd) /
           CMMD_partition_size();
}
