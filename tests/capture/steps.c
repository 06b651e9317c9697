/* The application of tests/capture_failure.rs: ITER steps (argv[1], default 6000), each an
 * MPI_Allreduce on MPI_COMM_WORLD and one on the rank's own communicator (split by rank: one
 * member, so its calls match whole whatever the other ranks' captures hold), so each rank
 * makes more calls than the shim's 4096-event buffer holds and writes several chunks. It
 * checks every sum; rank 0 prints "steps: N steps correct" and every rank exits 0 when all are
 * right, else 1: the exit status is the application's own. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm own;
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &own);
    long iter = argc > 1 ? atol(argv[1]) : 6000;
    long wrong = 0;
    for (long i = 0; i < iter; i++) {
        long x = rank + i, sum = 0, own_sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&x, &own_sum, 1, MPI_LONG, MPI_SUM, own);
        if (sum != (long)size * (size - 1) / 2 + size * i || own_sum != x) wrong++;
    }
    MPI_Comm_free(&own);
    if (rank == 0 && wrong == 0) printf("steps: %ld steps correct\n", iter);
    if (wrong) fprintf(stderr, "rank %d: %ld wrong sums\n", rank, wrong);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
