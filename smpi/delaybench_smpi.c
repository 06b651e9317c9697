/* delaybench's simulated ranks: one launch of `smpirun` runs every block of one process count
 * P in SimGrid's simulated time (SMPI), the way a measurement run times them.
 *
 * Built by `delaybench simulate` with `smpicc` at first use (src/smpi/build.rs); see
 * docs/simulate.md for why a C program rather than the Rust kernels.
 *
 * Usage: delaybench_smpi PLAN DELAYS OUT HOSTS
 *   PLAN    text, written by src/smpi/plan_file.rs:
 *             delaybench-smpi-plan 1
 *             blocks N
 *             block OP BYTES NREP WARMUP WINDOW_S DELAY_OFFSET MAX_DELAY_S   (N lines)
 *           OP is a delaybench kernel name; WINDOW_S 0 = automatic (the measurement's rule);
 *           DELAY_OFFSET indexes DELAYS in f64 elements.
 *   DELAYS  native-endian f64, per block [P][NREP] (rank-major): the delay, seconds, of every
 *           rank in every repetition, computed by delaybench from the run seed.
 *   OUT     written by rank 0, native-endian f64, per block: the window (s), then per rank
 *           [P][2 * NREP]: NREP start times, then NREP end times on MPI_Wtime (seconds of
 *           simulated time, one clock for every rank), and NREP scheduled start instants.
 *   HOSTS   written by rank 0: the SimGrid host of every rank, one per line.
 *
 * Waits are nanosleep(), which smpicc maps to an exact sleep in simulated time; MPI_Wtime is
 * never polled in a loop (that costs a simulated action per call). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum op_kind { BARRIER, BCAST, REDUCE, ALLREDUCE, ALLTOALL };

struct block {
    char op[32];
    long long bytes;
    int nrep, warmup;
    double window, max_delay;
    long long delay_offset;
};

static void die(const char *what) {
    fprintf(stderr, "delaybench_smpi: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static int parse_op(const char *name, enum op_kind *kind, int *nonblocking) {
    const char *base = name;
    *nonblocking = 0;
    if (name[0] == 'i') {
        base = name + 1;
        *nonblocking = 1;
    }
    if (strcmp(base, "barrier") == 0) *kind = BARRIER;
    else if (strcmp(base, "bcast") == 0) *kind = BCAST;
    else if (strcmp(base, "reduce") == 0) *kind = REDUCE;
    else if (strcmp(base, "allreduce") == 0) *kind = ALLREDUCE;
    else if (strcmp(base, "alltoall") == 0) *kind = ALLTOALL;
    else return 0;
    return 1;
}

/* One call of the kernel, as src/run/kernels/ makes it: roots are rank 0, reductions sum
 * bytes/8 doubles, alltoall sends `bytes` to each peer; nonblocking forms post then wait. */
static void run_op(enum op_kind kind, int nb, long long bytes, char *sbuf, char *rbuf) {
    MPI_Request req;
    int n = (int)(bytes / 8);
    switch (kind) {
    case BARRIER:
        if (nb) { MPI_Ibarrier(MPI_COMM_WORLD, &req); MPI_Wait(&req, MPI_STATUS_IGNORE); }
        else MPI_Barrier(MPI_COMM_WORLD);
        break;
    case BCAST:
        if (nb) { MPI_Ibcast(sbuf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &req); MPI_Wait(&req, MPI_STATUS_IGNORE); }
        else MPI_Bcast(sbuf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case REDUCE:
        if (nb) { MPI_Ireduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &req); MPI_Wait(&req, MPI_STATUS_IGNORE); }
        else MPI_Reduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case ALLREDUCE:
        if (nb) { MPI_Iallreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req); MPI_Wait(&req, MPI_STATUS_IGNORE); }
        else MPI_Allreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case ALLTOALL:
        if (nb) { MPI_Ialltoall(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD, &req); MPI_Wait(&req, MPI_STATUS_IGNORE); }
        else MPI_Alltoall(sbuf, (int)bytes, MPI_BYTE, rbuf, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        break;
    }
}

/* Sleeps until `target` on MPI_Wtime (simulated seconds); returns at once when it has passed. */
static void sleep_until(double target) {
    double left = target - MPI_Wtime();
    if (left <= 0.0) return;
    struct timespec ts;
    ts.tv_sec = (time_t)left;
    ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9 + 0.5);
    if (ts.tv_nsec >= 1000000000L) { ts.tv_sec += 1; ts.tv_nsec -= 1000000000L; }
    nanosleep(&ts, NULL);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc != 5) die("usage: delaybench_smpi PLAN DELAYS OUT HOSTS");

    /* Every rank reads the small plan; each reads only its own delays (one pread per block). */
    FILE *pf = fopen(argv[1], "r");
    if (!pf) die("cannot open the plan file");
    int version = 0, nblocks = 0;
    if (fscanf(pf, "delaybench-smpi-plan %d blocks %d", &version, &nblocks) != 2 || version != 1)
        die("not a delaybench-smpi-plan 1 file");
    struct block *blocks = calloc((size_t)nblocks, sizeof *blocks);
    for (int b = 0; b < nblocks; b++) {
        struct block *k = &blocks[b];
        if (fscanf(pf, " block %31s %lld %d %d %lf %lld %lf", k->op, &k->bytes, &k->nrep, &k->warmup,
                   &k->window, &k->delay_offset, &k->max_delay) != 7)
            die("bad block line in the plan file");
    }
    fclose(pf);
    FILE *df = fopen(argv[2], "rb");
    if (!df) die("cannot open the delays file");

    FILE *out = NULL;
    if (rank == 0) {
        out = fopen(argv[3], "wb");
        if (!out) die("cannot create the output file");
        char name[MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_Get_processor_name(name, &len);
        FILE *hf = fopen(argv[4], "w");
        if (!hf) die("cannot create the hosts file");
        fprintf(hf, "%s\n", name);
        for (int r = 1; r < p; r++) {
            MPI_Recv(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            fprintf(hf, "%s\n", name);
        }
        fclose(hf);
    } else {
        char name[MPI_MAX_PROCESSOR_NAME];
        int len;
        memset(name, 0, sizeof name);
        MPI_Get_processor_name(name, &len);
        MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
    }

    for (int b = 0; b < nblocks; b++) {
        struct block *k = &blocks[b];
        enum op_kind kind;
        int nb;
        if (!parse_op(k->op, &kind, &nb)) die("unknown kernel in the plan file");
        long long per_buf = k->bytes;
        if (kind == ALLTOALL) per_buf = k->bytes * p;
        if (per_buf < 8) per_buf = 8;
        char *sbuf = malloc((size_t)per_buf), *rbuf = malloc((size_t)per_buf);
        memset(sbuf, 1, (size_t)per_buf);
        int nrep = k->nrep;
        double *delay = malloc(sizeof(double) * (size_t)(nrep > 0 ? nrep : 1));
        if (fseek(df, (long)((k->delay_offset + (long long)rank * nrep) * 8), SEEK_SET) != 0 ||
            fread(delay, sizeof(double), (size_t)nrep, df) != (size_t)nrep)
            die("delays file too short");

        /* Warm-up, barrier before each call: the first calls of some selectors build
         * communicators; the slowest rank's time per call sizes an automatic window. */
        int warm = k->warmup < 2 ? 2 : k->warmup;
        double *slowest = malloc(sizeof(double) * (size_t)warm);
        for (int w = 0; w < warm; w++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            run_op(kind, nb, k->bytes, sbuf, rbuf);
            double dt = MPI_Wtime() - t0;
            MPI_Allreduce(&dt, &slowest[w], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
        double window = k->window;
        if (window <= 0.0) {
            /* The measurement's rule with no waiting margin: 2 x p90 of the slowest rank's
             * warm-up time + 1.1 x the largest delay + 20 us. */
            qsort(slowest, (size_t)warm, sizeof(double), cmp_double);
            int i90 = (int)(0.9 * (warm - 1) + 0.5);
            window = 2.0 * slowest[i90] + 1.1 * k->max_delay + 20e-6;
        }
        free(slowest);

        /* Rank 0 names the start: two windows from now, so every rank has the broadcast
         * before the first instant. */
        double start = 0.0;
        if (rank == 0) start = MPI_Wtime() + 2.0 * window;
        MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

        double *times = malloc(sizeof(double) * 2 * (size_t)(nrep > 0 ? nrep : 1));
        for (int i = 0; i < nrep; i++) {
            sleep_until(start + i * window + delay[i]);
            double ts = MPI_Wtime();
            run_op(kind, nb, k->bytes, sbuf, rbuf);
            double te = MPI_Wtime();
            times[i] = ts;
            times[nrep + i] = te;
        }
        double *all = NULL;
        if (rank == 0) all = malloc(sizeof(double) * 2 * (size_t)nrep * (size_t)p);
        MPI_Gather(times, 2 * nrep, MPI_DOUBLE, all, 2 * nrep, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            fwrite(&window, sizeof(double), 1, out);
            fwrite(all, sizeof(double), 2 * (size_t)nrep * (size_t)p, out);
            for (int i = 0; i < nrep; i++) {
                double s = start + i * window;
                fwrite(&s, sizeof(double), 1, out);
            }
            free(all);
        }
        free(times);
        free(delay);
        free(sbuf);
        free(rbuf);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        if (fclose(out) != 0) die("cannot write the output file");
    }
    fclose(df);
    free(blocks);
    MPI_Finalize();
    return 0;
}
