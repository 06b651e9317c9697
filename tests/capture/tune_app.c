/* An application with an imbalanced MPI_Allreduce loop, for tests/tune_application.rs and
 * the "Before and after: your application" walk-through of docs/algorithms.md. Usage:
 * tune_app [ITERATIONS [EXTRA_US]] (300 and 200 by default). Every rank computes
 * (busy-waits) 20 us before each of ITERATIONS MPI_Allreduce calls of 8192 doubles (64 KiB);
 * the last rank computes EXTRA_US more, so it arrives late at every call, as a rank with more
 * work than the others does. One warm-up MPI_Allreduce at its own site comes first. Each
 * call's sum is checked, so a tuning file that broke the reduction would fail the program
 * (exit 1), not just slow it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define COUNT 8192

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
    int iterations = argc > 1 ? atoi(argv[1]) : 300;
    double extra_us = argc > 2 ? atof(argv[2]) : 200.0;
    double *x = malloc(COUNT * sizeof(double));
    double *y = malloc(COUNT * sizeof(double));
    if (x == NULL || y == NULL) {
        fprintf(stderr, "tune_app: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Small integers: every algorithm sums them exactly, whatever its order. */
    for (int i = 0; i < COUNT; i++)
        x[i] = (double)(rank + i % 7);
    MPI_Allreduce(x, y, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* warm-up, site 1 */
    int wrong = 0;
    for (int it = 0; it < iterations; it++) {
        compute(20.0 + (rank == size - 1 ? extra_us : 0.0));
        MPI_Allreduce(x, y, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* site 2 */
        for (int i = 0; i < COUNT; i += 1021) {
            double want = (double)size * (size - 1) / 2.0 + (double)size * (i % 7);
            if (y[i] != want)
                wrong++;
        }
    }
    if (wrong > 0)
        fprintf(stderr, "tune_app: rank %d: %d wrong sums\n", rank, wrong);
    free(x);
    free(y);
    MPI_Finalize();
    return wrong > 0 ? 1 : 0;
}
