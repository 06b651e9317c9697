/* delaybench's simulated ranks: one launch of `smpirun` runs every block of one process count
 * P in SimGrid's simulated time (SMPI), the way a measurement run times them.
 *
 * Built by `delaybench simulate` with `smpicc` at first use (src/simulate/smpi/toolchain.rs); see
 * docs/simulate.md for why a C program rather than the Rust kernels.
 *
 * Usage: delaybench_smpi PLAN DELAYS OUT [PROGRESS]
 *   PLAN    text, written by src/simulate/smpi/plan_file.rs:
 *             delaybench-smpi-plan 2
 *             warmup extrapolate|every
 *             blocks N
 *             block OP BYTES NREP WARMUP WINDOW_S DELAY_OFFSET MAX_DELAY_S   (N lines)
 *           OP is a delaybench kernel name (SIMULATED_FAMILIES in src/simulate/smpi/plan_file.rs); WINDOW_S 0 = automatic (the measurement's rule);
 *           DELAY_OFFSET indexes DELAYS in f64 elements.
 *   DELAYS  native-endian f64, per block [P][NREP] (rank-major): the delay, seconds, of every
 *           rank in every repetition, computed by delaybench from the run seed.
 *   OUT     created empty by delaybench; native-endian f64, per block: the window (s), then
 *           per rank [P][2 * NREP]: NREP start times, then NREP end times on MPI_Wtime
 *           (seconds of simulated time, one clock for every rank), and NREP scheduled start
 *           instants. Each rank writes its own part with pwrite (no gather), rank 0 the rest.
 *   PROGRESS  rank 0 appends a line per simulated call, `BLOCK BLOCKS warmup|rep DONE TOTAL`
 *           (BLOCK from 1), which delaybench reads while a long launch runs
 *           (src/simulate/smpi/watch.rs). With simulate-computation off the writes cost no
 *           simulated time.
 *
 * The program's own agreement (the slowest warm-up time, the start instant) goes over a
 * binomial tree of point-to-point messages, not over MPI collectives: SMPI's default barrier,
 * reduce and gather are linear, and at 16,384 ranks their root's matching of P messages cost
 * more wall time than the measured repetitions. Files are opened and closed per block, so
 * 16,384 ranks never hold 16,384 descriptors.
 *
 * Waits are nanosleep(), which smpicc maps to an exact sleep in simulated time; MPI_Wtime is
 * never polled in a loop (that costs a simulated action per call). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

enum op_kind {
    BARRIER, BCAST, REDUCE, ALLREDUCE, ALLTOALL,
    ALLGATHER, GATHER, SCATTER, REDUCE_SCATTER_BLOCK, SCAN, EXSCAN
};

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
    else if (strcmp(base, "allgather") == 0) *kind = ALLGATHER;
    else if (strcmp(base, "gather") == 0) *kind = GATHER;
    else if (strcmp(base, "scatter") == 0) *kind = SCATTER;
    else if (strcmp(base, "reduce_scatter_block") == 0) *kind = REDUCE_SCATTER_BLOCK;
    else if (strcmp(base, "scan") == 0) *kind = SCAN;
    else if (strcmp(base, "exscan") == 0) *kind = EXSCAN;
    else return 0;
    return 1;
}

/* One call of the kernel, as src/run/kernels/ makes it (sizes as src/plan/kernel.rs defines
 * them): roots are rank 0, reductions and scans sum bytes/8 doubles per rank,
 * reduce_scatter_block gives each rank bytes/8 doubles, alltoall, allgather, gather and
 * scatter move `bytes` per rank pair; nonblocking forms post then wait. */
static void run_op(enum op_kind kind, int nb, long long bytes, char *sbuf, char *rbuf) {
    MPI_Request req = MPI_REQUEST_NULL;
    int n = (int)(bytes / 8), c = (int)bytes;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (kind) {
    case BARRIER:
        if (nb) MPI_Ibarrier(w, &req);
        else MPI_Barrier(w);
        break;
    case BCAST:
        if (nb) MPI_Ibcast(sbuf, c, MPI_BYTE, 0, w, &req);
        else MPI_Bcast(sbuf, c, MPI_BYTE, 0, w);
        break;
    case REDUCE:
        if (nb) MPI_Ireduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, 0, w, &req);
        else MPI_Reduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, 0, w);
        break;
    case ALLREDUCE:
        if (nb) MPI_Iallreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w, &req);
        else MPI_Allreduce(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w);
        break;
    case ALLTOALL:
        if (nb) MPI_Ialltoall(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, w, &req);
        else MPI_Alltoall(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, w);
        break;
    case ALLGATHER:
        if (nb) MPI_Iallgather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, w, &req);
        else MPI_Allgather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, w);
        break;
    case GATHER:
        if (nb) MPI_Igather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, w, &req);
        else MPI_Gather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, w);
        break;
    case SCATTER:
        if (nb) MPI_Iscatter(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, w, &req);
        else MPI_Scatter(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, w);
        break;
    case REDUCE_SCATTER_BLOCK:
        if (nb) MPI_Ireduce_scatter_block(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w, &req);
        else MPI_Reduce_scatter_block(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w);
        break;
    case SCAN:
        if (nb) MPI_Iscan(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w, &req);
        else MPI_Scan(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w);
        break;
    case EXSCAN:
        if (nb) MPI_Iexscan(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w, &req);
        else MPI_Exscan(sbuf, rbuf, n, MPI_DOUBLE, MPI_SUM, w);
        break;
    }
    /* A nonblocking form is waited on at once, as the measurement's kernels do. */
    if (req != MPI_REQUEST_NULL) MPI_Wait(&req, MPI_STATUS_IGNORE);
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

/* The maximum of `v` over all ranks, known to every rank: up a binomial tree to rank 0, then
 * down the same tree. Point-to-point only (see the header comment). */
static double tree_max(double v, int rank, int p) {
    int mask = 1;
    while (mask < p) {
        if (rank & mask) {
            MPI_Send(&v, 1, MPI_DOUBLE, rank - mask, 11, MPI_COMM_WORLD);
            break;
        }
        if (rank + mask < p) {
            double w;
            MPI_Recv(&w, 1, MPI_DOUBLE, rank + mask, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (w > v) v = w;
        }
        mask <<= 1;
    }
    /* Down: a rank receives from the parent it sent to, then forwards to its children. */
    if (rank != 0) MPI_Recv(&v, 1, MPI_DOUBLE, rank - mask, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rank + mask < p) MPI_Send(&v, 1, MPI_DOUBLE, rank + mask, 12, MPI_COMM_WORLD);
    return v;
}

/* Writes `n` doubles at element offset `at` of the file `path`. */
static void put(const char *path, long long at, const double *v, size_t n) {
    int fd = open(path, O_WRONLY);
    if (fd < 0) die("cannot open the output file");
    size_t bytes = n * sizeof(double);
    if (pwrite(fd, v, bytes, (off_t)(at * 8)) != (ssize_t)bytes) die("cannot write the output file");
    close(fd);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One line of rank 0's progress (`f` NULL on the other ranks), flushed so that delaybench
 * reads it while the launch runs. */
static void report(FILE *f, int block, int blocks, const char *phase, int done, int total) {
    if (!f) return;
    fprintf(f, "%d %d %s %d %d\n", block + 1, blocks, phase, done, total);
    fflush(f);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc != 4 && argc != 5) die("usage: delaybench_smpi PLAN DELAYS OUT [PROGRESS]");
    FILE *progress = rank == 0 && argc == 5 ? fopen(argv[4], "a") : NULL;

    /* Every rank reads the small plan; each reads only its own delays (one read per block). */
    FILE *pf = fopen(argv[1], "r");
    if (!pf) die("cannot open the plan file");
    int version = 0, nblocks = 0;
    char warm_rule[16] = "";
    if (fscanf(pf, "delaybench-smpi-plan %d warmup %15s blocks %d", &version, warm_rule, &nblocks) != 3 ||
        version != 2)
        die("not a delaybench-smpi-plan 2 file");
    int extrapolate = strcmp(warm_rule, "extrapolate") == 0;
    struct block *blocks = calloc((size_t)nblocks, sizeof *blocks);
    for (int b = 0; b < nblocks; b++) {
        struct block *k = &blocks[b];
        if (fscanf(pf, " block %31s %lld %d %d %lf %lld %lf", k->op, &k->bytes, &k->nrep, &k->warmup,
                   &k->window, &k->delay_offset, &k->max_delay) != 7)
            die("bad block line in the plan file");
    }
    fclose(pf);

    long long out_at = 0; /* element offset of the block in OUT */
    /* The steady warm-up time of the block before (-1: none), its kernel and size. */
    double steady = -1.0;
    char steady_op[32] = "";
    long long steady_bytes = -1;
    for (int b = 0; b < nblocks; b++) {
        struct block *k = &blocks[b];
        enum op_kind kind = BARRIER;
        int nb = 0;
        if (!parse_op(k->op, &kind, &nb)) die("unknown kernel in the plan file");
        long long per_buf = k->bytes;
        /* Buffers of P blocks for the kernels that move one block per rank pair. */
        if (kind == ALLTOALL || kind == ALLGATHER || kind == GATHER || kind == SCATTER ||
            kind == REDUCE_SCATTER_BLOCK)
            per_buf = k->bytes * p;
        if (per_buf < 8) per_buf = 8;
        char *sbuf = malloc((size_t)per_buf), *rbuf = malloc((size_t)per_buf);
        memset(sbuf, 1, (size_t)per_buf);
        int nrep = k->nrep;
        double *delay = malloc(sizeof(double) * (size_t)(nrep > 0 ? nrep : 1));
        FILE *df = fopen(argv[2], "rb");
        if (!df) die("cannot open the delays file");
        if (fseek(df, (long)((k->delay_offset + (long long)rank * nrep) * 8), SEEK_SET) != 0 ||
            fread(delay, sizeof(double), (size_t)nrep, df) != (size_t)nrep)
            die("delays file too short");
        fclose(df);

        /* Warm-up, back to back: the first calls of some selectors build communicators; the
         * slowest rank's time per call sizes an automatic window.
         *
         * With `warmup extrapolate`, once the second and third calls took the same simulated
         * time (within 1 ps) the simulation is in its steady state: without noise every later
         * call would repeat it on an idle network, so the remaining calls are not simulated.
         * Their slowest times are the third's, and rank 0 moves the start instant by their
         * simulated duration (its own last warm-up iteration, call and agreement, times the
         * calls left), so the repetitions run at the simulated instants a full warm-up gives.
         * At P = 4,096 the warm-up was most of a launch's wall time (docs/simulate.md). An
         * algorithm whose calls differ (SMPI's `automatic` times a different one per call)
         * never matches, and every call is simulated. A block of the kernel and size of the
         * block before, whose warm-up reached its steady state, is in it from its first call:
         * when that call takes the steady time, the rest are extrapolated at once. */
        int warm = k->warmup < 2 ? 2 : k->warmup;
        double *slowest = malloc(sizeof(double) * (size_t)warm);
        double iteration = 0.0, skipped = 0.0;
        int same = extrapolate && steady >= 0.0 && strcmp(steady_op, k->op) == 0 &&
                   steady_bytes == k->bytes;
        double reached = -1.0;
        for (int w = 0; w < warm; w++) {
            if (extrapolate && (w >= 3 || (same && w == 1))) {
                double ref = w == 1 ? steady : slowest[w - 2];
                if (slowest[w - 1] - ref <= 1e-12 && ref - slowest[w - 1] <= 1e-12) {
                    for (int r = w; r < warm; r++) slowest[r] = slowest[w - 1];
                    skipped = (warm - w) * iteration;
                    reached = slowest[w - 1];
                    break;
                }
            }
            double t0 = MPI_Wtime();
            run_op(kind, nb, k->bytes, sbuf, rbuf);
            slowest[w] = tree_max(MPI_Wtime() - t0, rank, p);
            iteration = MPI_Wtime() - t0;
            report(progress, b, nblocks, "warmup", w + 1, warm);
        }
        /* Agreed values (tree_max), so every rank makes the same choice in the next block. */
        steady = reached;
        strcpy(steady_op, k->op);
        steady_bytes = k->bytes;
        double window = k->window;
        if (window <= 0.0) {
            /* The measurement's rule with no waiting margin: 2 x p90 of the slowest rank's
             * warm-up time + 1.1 x the largest delay + 20 us. */
            qsort(slowest, (size_t)warm, sizeof(double), cmp_double);
            int i90 = (int)(0.9 * (warm - 1) + 0.5);
            window = 2.0 * slowest[i90] + 1.1 * k->max_delay + 20e-6;
        }
        free(slowest);

        /* Rank 0 names the start: two windows from now, so every rank has it (down the tree)
         * before the first instant. */
        double start = tree_max(rank == 0 ? MPI_Wtime() + skipped + 2.0 * window : -1.0, rank, p);

        double *times = malloc(sizeof(double) * 2 * (size_t)(nrep > 0 ? nrep : 1));
        for (int i = 0; i < nrep; i++) {
            sleep_until(start + i * window + delay[i]);
            double ts = MPI_Wtime();
            run_op(kind, nb, k->bytes, sbuf, rbuf);
            double te = MPI_Wtime();
            times[i] = ts;
            times[nrep + i] = te;
            report(progress, b, nblocks, "rep", i + 1, nrep);
        }
        /* The last repetition keeps its window to itself, as every other one does: without
         * this wait, ranks that finish early start what follows (the next block's warm-up,
         * MPI_Finalize) while the last ones still move the repetition's messages, share
         * their links and end them a few nanoseconds later (4 ns at P = 128, 17 ns on a
         * larger torus for mvapich2_rs), so the last repetition differed from the others
         * and the distinct-repetition check failed for that alone. The wait is simulated
         * time: it costs no wall time. */
        if (nrep > 0) sleep_until(start + nrep * window);
        put(argv[3], out_at + 1 + (long long)rank * 2 * nrep, times, 2 * (size_t)nrep);
        if (rank == 0) {
            put(argv[3], out_at, &window, 1);
            for (int i = 0; i < nrep; i++) times[i] = start + i * window;
            put(argv[3], out_at + 1 + 2LL * nrep * p, times, (size_t)nrep);
        }
        out_at += 1 + 2LL * nrep * p + nrep;
        free(times);
        free(delay);
        free(sbuf);
        free(rbuf);
    }
    free(blocks);
    if (progress) fclose(progress);
    MPI_Finalize();
    return 0;
}
