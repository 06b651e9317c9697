/* Ground truth for the capture: rank r computes (busy-waits) r x 100 us before each of 500
 * MPI_Allreduce calls, so at every call rank r enters r x 100 us after rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double x = 1.0, y = 0.0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* warm-up, site 1 */
    for (int i = 0; i < 500; i++) {
        double until = now() + rank * 100e-6;
        while (now() < until) {
        }
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* site 2 */
    }
    MPI_Finalize();
    return 0;
}
