/* Known causes of waiting for tests/capture_causes.rs. Usage: causes MODE ITERATIONS DELAY_US
 * [TRUTH_FILE]. Every rank computes (busy-waits) 50 us before each collective; the slow
 * rank adds DELAY_US in the region named below:
 *   direct  the last rank (rank 3 of 4, rank 1 of 2) before each MPI_Allreduce but the
 *           first (whose region starts at the barrier: one region is slow; DELAY_US 0: no
 *           imbalance);
 *   random  a rank drawn per iteration (the same generator on every rank) before each
 *           MPI_Allreduce; rank 0 writes the drawn rank, one line per iteration, to TRUTH_FILE;
 *   chain   rank 2 before an MPI_Reduce to root 0, followed by an MPI_Allreduce: the root is
 *           held in the reduce and arrives last at the allreduce;
 *   two     rank 1 before the first MPI_Allreduce of an iteration, rank 2 (DELAY_US / 2)
 *           before the second;
 *   tree    every rank computes 200 us, a non-root rank drawn per iteration DELAY_US longer,
 *           then MPI_Reduce (8 B, root 0), 200 us, MPI_Allreduce (8 B): a late rank whose
 *           parent in the reduce tree is not the root holds that parent inside the reduce,
 *           and the parent then enters the allreduce late; rank 0 writes the drawn rank to
 *           TRUTH_FILE as in random;
 *   bcast   as tree with MPI_Bcast (8 B, root 0) in place of the reduce: a late rank with
 *           children in the bcast tree holds them inside the bcast;
 *   ring    every rank computes 200 us, a rank drawn per iteration over all ranks DELAY_US
 *           longer, then MPI_Allreduce of 1024 doubles (8 KiB: as many elements as ranks at
 *           least, which Open MPI's ring needs, else it runs recursive doubling; the test
 *           forces the ring through the library's variables), 200 us, MPI_Allreduce (8 B).
 * One MPI_Barrier comes first (call 0 on MPI_COMM_WORLD). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void compute(double us) {
    double until = now() + us * 1e-6;
    while (now() < until) {
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: causes direct|random|chain|two|tree|bcast|ring ITERATIONS DELAY_US [TRUTH]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1];
    int n = atoi(argv[2]);
    double delay = atof(argv[3]);
    FILE *truth = NULL;
    if (rank == 0 && argc > 4)
        truth = fopen(argv[4], "w");
    unsigned seed = 12345;
    double x = 1.0, y = 0.0;
    static double xs[1024], ys[1024];
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        if (strcmp(mode, "direct") == 0) {
            compute(50 + (rank == size - 1 && i > 0 ? delay : 0));
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else if (strcmp(mode, "random") == 0) {
            int slow = rand_r(&seed) % size;
            if (truth)
                fprintf(truth, "%d\n", slow);
            compute(50 + (rank == slow ? delay : 0));
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else if (strcmp(mode, "chain") == 0) {
            compute(50 + (rank == 2 ? delay : 0));
            MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            compute(50);
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else if (strcmp(mode, "tree") == 0 || strcmp(mode, "bcast") == 0) {
            int slow = 1 + rand_r(&seed) % (size - 1);
            if (truth)
                fprintf(truth, "%d\n", slow);
            compute(200 + (rank == slow ? delay : 0));
            if (mode[0] == 't')
                MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            else
                MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            compute(200);
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else if (strcmp(mode, "ring") == 0) {
            int slow = rand_r(&seed) % size;
            if (truth)
                fprintf(truth, "%d\n", slow);
            compute(200 + (rank == slow ? delay : 0));
            MPI_Allreduce(xs, ys, 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            compute(200);
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else {
            compute(50 + (rank == 1 ? delay : 0));
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            compute(50 + (rank == 2 ? delay / 2 : 0));
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
    }
    if (truth)
        fclose(truth);
    MPI_Finalize();
    return 0;
}
