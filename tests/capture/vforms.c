/* Count vectors for the capture: every rank calls the nonblocking v-forms and
 * MPI_Ireduce_scatter with counts that depend on the ranks, so the captured vectors (bytes =
 * count x 4 for MPI_INT) are known. Rank r sends (r + 1) x (j + 1) ints to rank j in
 * MPI_Ialltoallv, 10 times at one site; MPI_Alltoallv at another site alternates two
 * vectors (the second doubles every count); MPI_Iallgatherv, MPI_Igatherv and MPI_Iscatterv
 * (root 0) use j + 1 ints for rank j; MPI_Ireduce_scatter gives rank j j + 1 ints. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *sc = malloc(sizeof(int) * p), *sd = malloc(sizeof(int) * p);
    int *rc = malloc(sizeof(int) * p), *rd = malloc(sizeof(int) * p);
    int *buf = calloc(4096, sizeof(int)), *out = calloc(4096, sizeof(int));
    MPI_Request q;
    for (int round = 0; round < 10; round++) {
        int s = 0, t = 0;
        for (int j = 0; j < p; j++) {
            sc[j] = (rank + 1) * (j + 1);
            sd[j] = s;
            s += sc[j];
            rc[j] = (j + 1) * (rank + 1);
            rd[j] = t;
            t += rc[j];
        }
        MPI_Ialltoallv(buf, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        int k = 1 + round % 2;
        s = t = 0;
        for (int j = 0; j < p; j++) {
            sc[j] = k * (rank + 1) * (j + 1);
            sd[j] = s;
            s += sc[j];
            rc[j] = k * (j + 1) * (rank + 1);
            rd[j] = t;
            t += rc[j];
        }
        MPI_Alltoallv(buf, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
    }
    int n = 0;
    for (int j = 0; j < p; j++) {
        rc[j] = j + 1;
        rd[j] = n;
        n += rc[j];
    }
    MPI_Iallgatherv(buf, rank + 1, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Igatherv(buf, rank + 1, MPI_INT, out, rc, rd, MPI_INT, 0, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Iscatterv(buf, rc, rd, MPI_INT, out, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Ireduce_scatter(buf, out, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(buf);
    free(out);
    MPI_Finalize();
    return 0;
}
