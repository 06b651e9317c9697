/* This machine's ping-pong between ranks 0 and 1, for `delaybench simulate --calibrate`
 * (src/simulate/smpi/calibrate.rs): prints "latency_s L" (half the median round trip of 8 bytes) and
 * "bandwidth_Bps B" (4 MiB over half the median round trip of 4 MiB, less the latency).
 * Built with the machine's own mpicc and run with its mpirun on 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median round trip of `bytes`, seconds, over `n` exchanges after 10 unrecorded ones. */
static double round_trip(char *buf, int bytes, int n, int rank) {
    double *t = malloc(sizeof(double) * (size_t)n);
    for (int i = -10; i < n; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
        if (i >= 0) t[i] = MPI_Wtime() - t0;
    }
    qsort(t, (size_t)n, sizeof(double), cmp);
    double m = t[n / 2];
    free(t);
    return m;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int big = 4 << 20;
    char *buf = malloc((size_t)big);
    memset(buf, 1, (size_t)big);
    double lat = round_trip(buf, 8, 2000, rank) / 2.0;
    double rt_big = round_trip(buf, big, 50, rank) / 2.0;
    if (rank == 0) {
        double t = rt_big - lat;
        printf("latency_s %.9e\nbandwidth_Bps %.6e\n", lat, t > 0 ? big / t : big / rt_big);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
