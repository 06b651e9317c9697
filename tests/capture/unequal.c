/* Unequal counts for the replay of a v-form site: rank r contributes 10 x (r + 1)^2 ints to
 * MPI_Allgatherv (40, 160, 360 bytes on 3 ranks), 20 times at one site, and sends
 * 2 x (r + 1) x (j + 1) ints to rank j in MPI_Alltoallv, 20 times at another; rank r
 * computes r x 50 us before each call, so the sites have a lateness pattern too. */
#include <mpi.h>
#include <stdlib.h>

static void spin(double seconds) {
    double end = MPI_Wtime() + seconds;
    while (MPI_Wtime() < end) {
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *sc = malloc(sizeof(int) * p), *sd = malloc(sizeof(int) * p);
    int *rc = malloc(sizeof(int) * p), *rd = malloc(sizeof(int) * p);
    int *buf = calloc(1 << 16, sizeof(int)), *out = calloc(1 << 16, sizeof(int));
    int total = 0;
    for (int j = 0; j < p; j++) {
        rc[j] = 10 * (j + 1) * (j + 1);
        rd[j] = total;
        total += rc[j];
    }
    for (int i = 0; i < 20; i++) {
        spin(rank * 50e-6);
        MPI_Allgatherv(buf, 10 * (rank + 1) * (rank + 1), MPI_INT, out, rc, rd, MPI_INT,
                       MPI_COMM_WORLD);
    }
    int s = 0, t = 0;
    for (int j = 0; j < p; j++) {
        sc[j] = 2 * (rank + 1) * (j + 1);
        sd[j] = s;
        s += sc[j];
        rc[j] = 2 * (j + 1) * (rank + 1);
        rd[j] = t;
        t += rc[j];
    }
    for (int i = 0; i < 20; i++) {
        spin(rank * 50e-6);
        MPI_Alltoallv(buf, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(buf);
    free(out);
    MPI_Finalize();
    return 0;
}
