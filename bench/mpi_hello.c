/*
 * mpi_hello: the trivial MPI program of bench/scale.sh, the peer of
 * bench/cm5_hello.c: MPI_Init, one barrier, every rank prints its wall
 * clock and resident memory (scale_rss.h), a second barrier, exit.
 *
 *   mpirun -np N mpi_hello
 */
#include <mpi.h>

#include "scale_rss.h"

int main(int argc, char **argv)
{
    int self;
    double t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    MPI_Barrier(MPI_COMM_WORLD);
    t = scale_now();
    scale_report(self, t);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
