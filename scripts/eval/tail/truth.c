/* truth.c: a PMPI truth log for the accuracy evaluation (docs/accuracy.md).
 *
 * Preloaded (LD_PRELOAD) into every rank, it wraps the measured collective and records, per
 * call, the real clock on entry and on exit, read through libc's own clock_gettime (found
 * with dlopen("libc.so.6", RTLD_NOLOAD), so neither skew.c nor the benchmark's clock code is
 * in the path). The benchmark's clocks, clock synchronisation and records play no part: the
 * spread of the entry times of one call index over the ranks is the true start spread.
 *
 * The clock (TRUTH_CLOCK):
 *   monotonic (default)  CLOCK_MONOTONIC: one clock for all ranks of one host.
 *   realtime             CLOCK_REALTIME: shared by the emulated hosts of scripts/cluster.sh,
 *                        whose time namespaces offset only CLOCK_MONOTONIC and
 *                        CLOCK_BOOTTIME (time_namespaces(7)); use it there.
 * Calls are kept in memory and written at MPI_Finalize to TRUTH_DIR/truth.<rank>.txt:
 *   # truth rank=R clock=NAME host=H pid=N op=OP calls=C
 *   <op> <entry_ns> <exit_ns>        one line a call, in call order (calls on one-rank
 *                                    communicators left out)
 *
 * TRUTH_OPS: comma-separated collectives to log, of alltoall (default), allreduce, bcast,
 * barrier, reduce, allgather. Without TRUTH_DIR nothing is written.
 *
 * Build: mpicc -O2 -shared -fPIC -o libtruth.so truth.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
static clock_gettime_fn real_clock_gettime;
static clockid_t truth_clock = CLOCK_MONOTONIC;

enum { OP_ALLTOALL, OP_ALLREDUCE, OP_BCAST, OP_BARRIER, OP_REDUCE, OP_ALLGATHER, NOPS };
static const char *op_names[NOPS] = {"alltoall", "allreduce", "bcast", "barrier", "reduce",
                                     "allgather"};
static int op_on[NOPS];

typedef struct {
    uint8_t op;
    int64_t entry_ns, exit_ns;
} call_t;
static call_t *calls;
static size_t ncalls, cap;

__attribute__((constructor)) static void truth_init(void)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (libc)
        real_clock_gettime = (clock_gettime_fn)dlsym(libc, "clock_gettime");
    if (!real_clock_gettime)
        real_clock_gettime = clock_gettime; /* static fallback: libc's, linked directly */
    const char *c = getenv("TRUTH_CLOCK");
    if (c && strcmp(c, "realtime") == 0)
        truth_clock = CLOCK_REALTIME;
    const char *ops = getenv("TRUTH_OPS");
    if (!ops || !*ops)
        ops = "alltoall";
    char *copy = strdup(ops), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
        for (int i = 0; i < NOPS; i++)
            if (strcmp(t, op_names[i]) == 0 || (strncmp(t, "MPI_", 4) == 0 &&
                                                 strcasecmp(t + 4, op_names[i]) == 0))
                op_on[i] = 1;
    free(copy);
    cap = 1 << 16;
    calls = malloc(cap * sizeof *calls);
}

static inline int64_t now_ns(void)
{
    struct timespec ts;
    real_clock_gettime(truth_clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void record(int op, int64_t entry, int64_t exit)
{
    if (ncalls == cap) {
        call_t *grown = realloc(calls, 2 * cap * sizeof *calls);
        if (!grown)
            return;
        calls = grown;
        cap *= 2;
    }
    calls[ncalls++] = (call_t){(uint8_t)op, entry, exit};
}

/* A call on a one-rank communicator (delaybench's warm-up runs the operation once on
 * MPI_COMM_SELF before each release) synchronises nothing and is not logged; its size is
 * asked after the call, so that the entry stamp stays the first thing the wrapper does. */
static int alone(MPI_Comm comm)
{
    int n = 0;
    return PMPI_Comm_size(comm, &n) == MPI_SUCCESS && n == 1;
}

#define LOGGED(OP, CALL)                                                                   \
    do {                                                                                   \
        if (!op_on[OP])                                                                    \
            return CALL;                                                                   \
        int64_t entry = now_ns();                                                          \
        int r = CALL;                                                                      \
        int64_t leave = now_ns();                                                          \
        if (!alone(comm))                                                                  \
            record(OP, entry, leave);                                                      \
        return r;                                                                          \
    } while (0)

int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                 MPI_Comm comm)
{
    LOGGED(OP_ALLTOALL, PMPI_Alltoall(sb, sc, st, rb, rc, rt, comm));
}

int MPI_Allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm)
{
    LOGGED(OP_ALLREDUCE, PMPI_Allreduce(sb, rb, n, t, o, comm));
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
    LOGGED(OP_BCAST, PMPI_Bcast(b, n, t, root, comm));
}

int MPI_Barrier(MPI_Comm comm)
{
    LOGGED(OP_BARRIER, PMPI_Barrier(comm));
}

int MPI_Reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op o, int root,
               MPI_Comm comm)
{
    LOGGED(OP_REDUCE, PMPI_Reduce(sb, rb, n, t, o, root, comm));
}

int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                  MPI_Comm comm)
{
    LOGGED(OP_ALLGATHER, PMPI_Allgather(sb, sc, st, rb, rc, rt, comm));
}

static int written;

static void write_log(int rank)
{
    const char *dir = getenv("TRUTH_DIR");
    if (written || !dir || !*dir)
        return;
    written = 1;
    char path[4096], host[256] = "?";
    gethostname(host, sizeof host - 1);
    snprintf(path, sizeof path, "%s/truth.%d.txt", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "truth: cannot write %s\n", path);
        return;
    }
    char ops[128] = "";
    for (int i = 0; i < NOPS; i++)
        if (op_on[i]) {
            if (*ops)
                strcat(ops, ",");
            strcat(ops, op_names[i]);
        }
    fprintf(f, "# truth rank=%d clock=%s host=%s pid=%d op=%s calls=%zu\n", rank,
            truth_clock == CLOCK_REALTIME ? "realtime" : "monotonic", host, (int)getpid(), ops,
            ncalls);
    for (size_t i = 0; i < ncalls; i++)
        fprintf(f, "%s %lld %lld\n", op_names[calls[i].op], (long long)calls[i].entry_ns,
                (long long)calls[i].exit_ns);
    fclose(f);
}

int MPI_Finalize(void)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    write_log(rank);
    return PMPI_Finalize();
}

/* A program that exits without MPI_Finalize still leaves its log; the rank then comes from
 * the launcher's environment. */
__attribute__((destructor)) static void truth_fini(void)
{
    const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) {
            write_log(atoi(v));
            return;
        }
    }
}
