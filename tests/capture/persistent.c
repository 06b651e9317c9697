/* Ground truth for the capture of MPI-4 persistent collectives (MPI Forum 2021, section
 * 6.13): rank r busy-waits r x 100 us before each of 200 MPI_Start calls of one persistent
 * allreduce, completed by MPI_Wait, so at every call rank r enters r x 100 us after rank 0.
 * Then a persistent barrier and bcast started together by MPI_Startall and completed by
 * MPI_Waitall (10 times), and the allreduce completed by polling MPI_Test (10 times).
 * MPICH 4 names the functions MPI_<Coll>_init; Open MPI 4.1 MPIX_<Coll>_init (mpi-ext.h);
 * without either the program says "skipped" and exits 0. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define PINIT(C) MPI_##C##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define PINIT(C) MPIX_##C##_init
#endif

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#ifndef PINIT
    if (rank == 0) printf("skipped: this MPI has no persistent collectives\n");
#else
    double x = 1.0, y = 0.0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* warm-up, site 1 */
    MPI_Request ar, both[2];
    PINIT(Allreduce)(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    for (int i = 0; i < 200; i++) {
        double until = now() + rank * 100e-6;
        while (now() < until) {
        }
        MPI_Start(&ar); /* site 2 */
        MPI_Wait(&ar, MPI_STATUS_IGNORE);
    }
    int word = 7;
    PINIT(Barrier)(MPI_COMM_WORLD, MPI_INFO_NULL, &both[0]);
    PINIT(Bcast)(&word, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &both[1]);
    MPI_Status sts[2];
    for (int i = 0; i < 10; i++) {
        MPI_Startall(2, both); /* site 3 */
        MPI_Waitall(2, both, sts);
    }
    for (int i = 0; i < 10; i++) {
        int done = 0;
        MPI_Start(&ar); /* site 4 */
        while (!done) MPI_Test(&ar, &done, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&ar);
    MPI_Request_free(&both[0]);
    MPI_Request_free(&both[1]);
    MPI_Barrier(MPI_COMM_WORLD); /* site 5 */
#endif
    MPI_Finalize();
    return 0;
}
