/* The floor of "start together" on this machine (docs/accuracy.md): every rank spins to one
 * common deadline on the time-stamp counter, which all CPUs of one machine share (and so do
 * the emulated hosts of scripts/cluster.sh), then calls MPI_Alltoall (8 B). No clock
 * synchronisation, no clock model, no delay: what is left of the true start spread is the
 * machine's (spin-loop exit, the path into MPI, preemption, steal). Run by rounds.sh as the
 * tool floor@WINDOW beside delaybench and ReproMPI, under the same truth log.
 *
 *   floor WINDOW_US NREP [WARMUP]     WARMUP (default 20) unmeasured calls after a barrier each
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double raw_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: floor WINDOW_US NREP [WARMUP]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double window_us = atof(argv[1]);
    long nrep = atol(argv[2]);
    int warmup = argc > 3 ? atoi(argv[3]) : 20;
    char *send = calloc(8 * size, 1), *recv = calloc(8 * size, 1);

    /* The counter's rate, on rank 0 over 100 ms: only the window's length depends on it. */
    double hz = 0;
    if (rank == 0) {
        double t0 = raw_s();
        uint64_t c0 = __rdtsc();
        while (raw_s() - t0 < 0.1) {
        }
        hz = (__rdtsc() - c0) / (raw_s() - t0);
    }
    MPI_Bcast(&hz, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < warmup; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Alltoall(send, 8, MPI_CHAR, recv, 8, MPI_CHAR, MPI_COMM_WORLD);
    }
    uint64_t window = (uint64_t)(window_us * 1e-6 * hz), start = 0;
    if (rank == 0)
        start = __rdtsc() + (uint64_t)(0.01 * hz);
    MPI_Bcast(&start, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    long late = 0;
    for (long i = 0; i < nrep; i++) {
        uint64_t deadline = start + (uint64_t)i * window;
        if (__rdtsc() > deadline)
            late++;
        while (__rdtsc() < deadline) {
        }
        MPI_Alltoall(send, 8, MPI_CHAR, recv, 8, MPI_CHAR, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("floor: %ld repetitions of %.1f us on a %.3f GHz counter; rank 0 was late for %ld\n",
               nrep, window_us, hz * 1e-9, late);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
