/* The PMPI interposer of libdelaybench_capture.so: every wrapper reads the return address and
 * the clock, calls PMPI_*, reads the clock again and stores one fixed-size event in a
 * preallocated buffer. The buffer goes to the Rust side (capture/src/lib.rs), which resolves
 * the call sites and writes the rank's capture file, when it is full or a second has passed
 * since the last flush. Nothing here allocates on the hot path.
 *
 * Count vectors (the v-forms and the reduce-scatter): the vector this rank passes, in bytes,
 * goes into a second preallocated buffer (dbc_counts) and the event's `counts` field holds
 * its 63-bit FNV-1a hash with the top bit set; the Rust side writes each (site, vector) once
 * and the hash with every call. A vector longer than the whole buffer is hashed only (top
 * bit clear). The cost per call is one pass over the vector, as the byte sum already was.
 *
 * Persistent collectives (MPI-4, MPI Forum 2021, section 6.13): the MPI_<Coll>_init wrapper
 * (Open MPI 4.1: MPIX_<Coll>_init, its pcollreq extension) remembers the request with the
 * operation, communicator, bytes, root and count vector; each MPI_Start or MPI_Startall of a
 * remembered request stores an event as the blocking form would, entry at the Start and the
 * Start's return address as its site, and marks it pending; the MPI_Wait or MPI_Test (any of
 * the family) that sees it complete writes its exit time into the event. A pending event
 * holds back the once-a-second flush (not a full buffer's: then the pending events keep the
 * Start's return as their exit). MPI_Request_free forgets the request.
 *
 * Operation codes: the order of delaybench::capture::CaptureOp::ALL. */
#include <mpi.h>
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Which names the persistent collectives have in this library: MPI_<Coll>_init from MPI 4.0
 * on (MPICH 4; Open MPI 5 declares them while still saying MPI 3.1), Open MPI 4.1's
 * MPIX_<Coll>_init in its pcollreq extension, or none (then neither they nor MPI_Start and
 * the MPI_Wait family are wrapped). */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define DBC_PERSISTENT_PREFIX 1
#define DBC_PINIT_NAME(C) MPI_##C##_init
#define DBC_PINIT_PMPI(C) PMPI_##C##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define DBC_PERSISTENT_PREFIX 1
#define DBC_PINIT_NAME(C) MPIX_##C##_init
#define DBC_PINIT_PMPI(C) PMPIX_##C##_init
#endif

enum {
    DBC_OP_BARRIER, DBC_OP_BCAST, DBC_OP_REDUCE, DBC_OP_ALLREDUCE, DBC_OP_ALLTOALL,
    DBC_OP_ALLTOALLV, DBC_OP_ALLGATHER, DBC_OP_ALLGATHERV, DBC_OP_GATHER, DBC_OP_GATHERV,
    DBC_OP_SCATTER, DBC_OP_SCATTERV, DBC_OP_REDUCE_SCATTER, DBC_OP_REDUCE_SCATTER_BLOCK,
    DBC_OP_SCAN, DBC_OP_EXSCAN, DBC_OP_IBARRIER, DBC_OP_IBCAST, DBC_OP_IREDUCE,
    DBC_OP_IALLREDUCE, DBC_OP_IALLTOALL, DBC_OP_IALLGATHER, DBC_OP_IGATHER, DBC_OP_ISCATTER,
    DBC_OP_IREDUCE_SCATTER_BLOCK, DBC_OP_ISCAN, DBC_OP_IEXSCAN, DBC_OP_IALLGATHERV,
    DBC_OP_IGATHERV, DBC_OP_ISCATTERV, DBC_OP_IALLTOALLV, DBC_OP_IREDUCE_SCATTER,
    /* The persistent forms: DBC_OP_PERSISTENT + the blocking form's code. */
    DBC_OP_PERSISTENT
};

/* One call, as capture/src/lib.rs's `RawEvent` reads it (repr(C), 64 bytes). */
typedef struct {
    uint64_t ra;        /* return address */
    uint64_t comm_id;   /* FNV-1a of the members' world ranks */
    uint64_t bytes;     /* this rank's bytes */
    double t_enter;     /* CLOCK_MONOTONIC, seconds */
    double t_exit;
    int32_t root;       /* -1 without a root */
    uint32_t comm_size;
    uint32_t comm_rank;
    uint32_t op;
    uint64_t counts;    /* 0, or the count vector's hash; top bit: the vector is in dbc_counts */
} dbc_event;

#define DBC_BUF 4096
#define DBC_COMMS 64
#define DBC_FLUSH_S 1.0
#define DBC_COUNTS 65536
#define DBC_IN_BUFFER (1ULL << 63)

static dbc_event dbc_buf[DBC_BUF];
static int dbc_n;
static uint64_t dbc_counts[DBC_COUNTS];
static size_t dbc_ncounts;
static int dbc_active;
static double dbc_last_flush;
static uint64_t dbc_passed;
static MPI_Comm dbc_sync_comm = MPI_COMM_NULL; /* also: dbc_rust_start ran on every rank */
static int dbc_rank, dbc_size;

typedef struct {
    MPI_Comm comm;
    uint64_t id;
    uint32_t size, rank;
    int inter;
    int used;
} dbc_comm_entry;
static dbc_comm_entry dbc_comms[DBC_COMMS];
static int dbc_comm_next;

/* The Rust side. */
extern int dbc_rust_start(int rank, int size, int64_t stamp_s, int64_t pid0, const char *library);
extern int dbc_rust_flush(const dbc_event *events, size_t n, const uint64_t *counts,
                          size_t ncounts);
extern void dbc_rust_finish(uint64_t passed_through, int all_on, int rank, int size);

static inline double dbc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Point-to-point on the private duplicate of MPI_COMM_WORLD, for the clock synchronisation
 * (the Rust Transport). */
void dbc_c_send(int to, const double *msg, int n) {
    PMPI_Send(msg, n, MPI_DOUBLE, to, 4242, dbc_sync_comm);
}

void dbc_c_recv(int from, double *msg, int n) {
    MPI_Status st;
    PMPI_Recv(msg, n, MPI_DOUBLE, from, 4242, dbc_sync_comm, &st);
}

static void dbc_say(const char *what) {
    fprintf(stderr, "delaybench-capture: %s\n", what);
}

static dbc_comm_entry *dbc_comm_info(MPI_Comm comm) {
    for (int i = 0; i < DBC_COMMS; i++)
        if (dbc_comms[i].used && dbc_comms[i].comm == comm) return &dbc_comms[i];
    dbc_comm_entry *e = &dbc_comms[dbc_comm_next];
    dbc_comm_next = (dbc_comm_next + 1) % DBC_COMMS;
    memset(e, 0, sizeof *e);
    e->comm = comm;
    e->used = 1;
    int flag = 0;
    PMPI_Comm_test_inter(comm, &flag);
    if (flag) {
        static int said;
        if (!said) dbc_say("an intercommunicator: its collectives pass through unrecorded");
        said = 1;
        e->inter = 1;
        return e;
    }
    int size = 0, rank = 0;
    PMPI_Comm_size(comm, &size);
    PMPI_Comm_rank(comm, &rank);
    e->size = (uint32_t)size;
    e->rank = (uint32_t)rank;
    MPI_Group g, wg;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *in = malloc(sizeof(int) * (size_t)size), *out = malloc(sizeof(int) * (size_t)size);
    uint64_t h = 1469598103934665603ULL;
    if (in && out) {
        for (int i = 0; i < size; i++) in[i] = i;
        PMPI_Group_translate_ranks(g, size, in, wg, out);
        for (int i = 0; i < size; i++) {
            uint32_t v = (uint32_t)out[i];
            for (int b = 0; b < 4; b++) {
                h ^= (v >> (8 * b)) & 0xff;
                h *= 1099511628211ULL;
            }
        }
    }
    free(in);
    free(out);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    e->id = h;
    return e;
}

#ifdef DBC_PERSISTENT_PREFIX
static void dbc_preq_flushed(void);
static int dbc_npending; /* persistent calls' events in dbc_buf awaiting their completion */
#endif

/* A flush that fails (it said why) stops this rank's capture: the calls pass through. */
static void dbc_flush(void) {
    if (dbc_n > 0 && dbc_rust_flush(dbc_buf, (size_t)dbc_n, dbc_counts, dbc_ncounts) != 0)
        dbc_active = 0;
    dbc_n = 0;
    dbc_ncounts = 0;
#ifdef DBC_PERSISTENT_PREFIX
    dbc_preq_flushed();
#endif
}

static uint64_t dbc_type_size(MPI_Datatype t) {
    int s = 0;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS) return 0;
    return (uint64_t)s;
}

/* Hashes this call's count vector (counts[i] x the size of t, bytes; n = the communicator's
 * size) and, when it fits, appends it to dbc_counts: the value of the event's `counts`
 * (delaybench::capture::counts_hash, plus DBC_IN_BUFFER when appended). Flushes
 * first when the buffer lacks room, so the vector and its event travel in one flush. */
static uint64_t dbc_count_vector_sized(const int *counts, uint32_t n, uint64_t size) {
    if (!counts || n == 0) return 0;
    int store = n <= DBC_COUNTS;
    if (store && dbc_ncounts + n > DBC_COUNTS) dbc_flush();
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a's 64-bit offset basis */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = (uint64_t)counts[i] * size;
        if (store) dbc_counts[dbc_ncounts + i] = v;
        for (int b = 0; b < 8; b++) {
            h ^= (v >> (8 * b)) & 0xff;
            h *= 1099511628211ULL;
        }
    }
    h &= ~DBC_IN_BUFFER;
    if (h == 0) h = 1;
    if (store) {
        dbc_ncounts += n;
        h |= DBC_IN_BUFFER;
    }
    return h;
}

static uint64_t dbc_count_vector(const int *counts, uint32_t n, MPI_Datatype t) {
    if (!counts || n == 0) return 0;
    return dbc_count_vector_sized(counts, n, dbc_type_size(t));
}

/* Flushes the buffer when it is full, or when a second has passed and no persistent call's
 * event waits for its completion. */
static void dbc_maybe_flush(double t1) {
    int held = 0;
#ifdef DBC_PERSISTENT_PREFIX
    held = dbc_npending > 0;
#endif
    if (dbc_n == DBC_BUF || (!held && t1 - dbc_last_flush > DBC_FLUSH_S)) {
        dbc_flush();
        dbc_last_flush = t1;
    }
}

/* Stores one event of communicator c (not an intercommunicator) and returns its index in
 * dbc_buf; the caller then calls dbc_maybe_flush. */
static int dbc_store(uint32_t op, const dbc_comm_entry *c, uint64_t bytes, int root, void *ra,
                     double t0, double t1, uint64_t vector) {
    int i = dbc_n++;
    dbc_event *e = &dbc_buf[i];
    e->ra = (uint64_t)(uintptr_t)ra;
    e->comm_id = c->id;
    e->bytes = bytes;
    e->t_enter = t0;
    e->t_exit = t1;
    e->root = root;
    e->comm_size = c->size;
    e->comm_rank = c->rank;
    e->op = op;
    e->counts = vector;
    return i;
}

/* counts/t: the count vector to record (NULL for none). */
static void dbc_record_v(uint32_t op, MPI_Comm comm, uint64_t bytes, int root, void *ra,
                         double t0, double t1, const int *counts, MPI_Datatype t) {
    dbc_comm_entry *c = dbc_comm_info(comm);
    if (c->inter) {
        dbc_passed++;
        return;
    }
    uint64_t vector = dbc_count_vector(counts, c->size, t);
    dbc_store(op, c, bytes, root, ra, t0, t1, vector);
    dbc_maybe_flush(t1);
}
static void dbc_record(uint32_t op, MPI_Comm comm, uint64_t bytes, int root, void *ra, double t0,
                       double t1) {
    dbc_record_v(op, comm, bytes, root, ra, t0, t1, NULL, MPI_DATATYPE_NULL);
}

static uint64_t dbc_bytes(int count, MPI_Datatype t) {
    int s = 0;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS) return 0;
    return (uint64_t)count * (uint64_t)s;
}

static uint64_t dbc_sum_bytes(const int *counts, int n, MPI_Datatype t) {
    uint64_t sum = 0;
    if (!counts) return 0;
    for (int i = 0; i < n; i++) sum += (uint64_t)counts[i];
    return sum * dbc_bytes(1, t);
}

static int dbc_comm_size(MPI_Comm comm) {
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

static int dbc_comm_rank(MPI_Comm comm) {
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

static void dbc_start(void) {
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &dbc_sync_comm) != MPI_SUCCESS) {
        dbc_say("cannot duplicate MPI_COMM_WORLD: not capturing");
        return;
    }
    PMPI_Comm_rank(dbc_sync_comm, &dbc_rank);
    PMPI_Comm_size(dbc_sync_comm, &dbc_size);
    int64_t id[2] = {(int64_t)time(NULL), (int64_t)getpid()};
    PMPI_Bcast(id, 2, MPI_INT64_T, 0, dbc_sync_comm);
    /* The library's own words, for the header: which library, and so which collective
     * algorithms its defaults choose. MPICH's text (its configure line) can be kilobytes. */
    static char library[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int len = 0;
    if (PMPI_Get_library_version(library, &len) != MPI_SUCCESS || len < 0)
        len = 0;
    library[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING] = 0;
    /* Every rank synchronises in here before anything of its own can fail; a rank that then
     * fails (its directory) keeps dbc_sync_comm for the agreement at MPI_Finalize. */
    if (dbc_rust_start(dbc_rank, dbc_size, id[0], id[1], library) == 0) {
        dbc_active = 1;
        dbc_last_flush = dbc_now();
    }
}

int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) dbc_start();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc != MPI_SUCCESS) return rc;
    if (*provided == MPI_THREAD_MULTIPLE) {
        dbc_say("MPI_THREAD_MULTIPLE: the capture is single-threaded, so this run is not "
                "captured (every call passes through)");
        return rc;
    }
    dbc_start();
    return rc;
}

/* Every rank that started the capture agrees whether each still captures (MIN of an
 * on-flag) before the finalize synchronisation, which needs every rank: rank 0 ping-pongs
 * each peer in turn, so one rank whose capture stopped (its directory or a write failed)
 * would leave rank 0 waiting for it forever, or, being rank 0, leave every peer waiting. If
 * one stopped, no rank synchronises and the footers say so. */
int MPI_Finalize(void) {
    if (dbc_sync_comm != MPI_COMM_NULL) {
        if (dbc_active) dbc_flush();
        int on = dbc_active, all_on = 0;
        dbc_active = 0;
        if (PMPI_Allreduce(&on, &all_on, 1, MPI_INT, MPI_MIN, dbc_sync_comm) != MPI_SUCCESS)
            all_on = 0;
        dbc_rust_finish(dbc_passed, all_on, dbc_rank, dbc_size);
        PMPI_Comm_free(&dbc_sync_comm);
    }
    return PMPI_Finalize();
}

int MPI_Comm_free(MPI_Comm *comm) {
    for (int i = 0; i < DBC_COMMS; i++)
        if (dbc_comms[i].used && dbc_comms[i].comm == *comm) dbc_comms[i].used = 0;
    return PMPI_Comm_free(comm);
}

/* As DBC_WRAP, with the count vector COUNTS (NULL for none) of datatype TYPE, evaluated after
 * the call. */
#define DBC_WRAP_V(OP, CALL, COMM, BYTES, ROOT, COUNTS, TYPE)                  \
    do {                                                                        \
        void *ra = __builtin_return_address(0);                                 \
        if (!dbc_active) return CALL;                                           \
        double t0 = dbc_now();                                                  \
        int rc = CALL;                                                          \
        double t1 = dbc_now();                                                  \
        dbc_record_v(OP, COMM, BYTES, ROOT, ra, t0, t1, COUNTS, TYPE);          \
        return rc;                                                              \
    } while (0)

/* CALL is the PMPI call; BYTES and ROOT are evaluated after it. */
#define DBC_WRAP(OP, CALL, COMM, BYTES, ROOT)                                  \
    do {                                                                        \
        void *ra = __builtin_return_address(0);                                 \
        if (!dbc_active) return CALL;                                           \
        double t0 = dbc_now();                                                  \
        int rc = CALL;                                                          \
        double t1 = dbc_now();                                                  \
        dbc_record(OP, COMM, BYTES, ROOT, ra, t0, t1);                          \
        return rc;                                                              \
    } while (0)

int MPI_Barrier(MPI_Comm comm) {
    DBC_WRAP(DBC_OP_BARRIER, PMPI_Barrier(comm), comm, 0, -1);
}
int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
    DBC_WRAP(DBC_OP_BCAST, PMPI_Bcast(buf, count, t, root, comm), comm, dbc_bytes(count, t), root);
}
int MPI_Reduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, int root,
               MPI_Comm comm) {
    DBC_WRAP(DBC_OP_REDUCE, PMPI_Reduce(s, r, count, t, op, root, comm), comm, dbc_bytes(count, t),
             root);
}
int MPI_Allreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    DBC_WRAP(DBC_OP_ALLREDUCE, PMPI_Allreduce(s, r, count, t, op, comm), comm, dbc_bytes(count, t),
             -1);
}
int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                 MPI_Comm comm) {
    DBC_WRAP(DBC_OP_ALLTOALL, PMPI_Alltoall(s, sc, st, r, rc_, rt, comm), comm,
             dbc_bytes(rc_, rt), -1);
}
int MPI_Alltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r,
                  const int rc_[], const int rd[], MPI_Datatype rt, MPI_Comm comm) {
    DBC_WRAP_V(DBC_OP_ALLTOALLV, PMPI_Alltoallv(s, sc, sd, st, r, rc_, rd, rt, comm), comm,
               dbc_sum_bytes(rc_, dbc_comm_size(comm), rt), -1, sc, st);
}
int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                  MPI_Comm comm) {
    DBC_WRAP(DBC_OP_ALLGATHER, PMPI_Allgather(s, sc, st, r, rc_, rt, comm), comm,
             dbc_bytes(rc_, rt), -1);
}
int MPI_Allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc_[],
                   const int rd[], MPI_Datatype rt, MPI_Comm comm) {
    DBC_WRAP_V(DBC_OP_ALLGATHERV, PMPI_Allgatherv(s, sc, st, r, rc_, rd, rt, comm), comm,
               rc_ ? dbc_bytes(rc_[dbc_comm_rank(comm)], rt) : 0, -1, rc_, rt);
}
int MPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
               int root, MPI_Comm comm) {
    DBC_WRAP(DBC_OP_GATHER, PMPI_Gather(s, sc, st, r, rc_, rt, root, comm), comm,
             s == MPI_IN_PLACE ? dbc_bytes(rc_, rt) : dbc_bytes(sc, st), root);
}
int MPI_Gatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc_[], const int rd[],
                MPI_Datatype rt, int root, MPI_Comm comm) {
    DBC_WRAP_V(DBC_OP_GATHERV, PMPI_Gatherv(s, sc, st, r, rc_, rd, rt, root, comm), comm,
               s == MPI_IN_PLACE ? 0 : dbc_bytes(sc, st), root,
               dbc_comm_rank(comm) == root ? rc_ : NULL, rt);
}
int MPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                int root, MPI_Comm comm) {
    DBC_WRAP(DBC_OP_SCATTER, PMPI_Scatter(s, sc, st, r, rc_, rt, root, comm), comm,
             r == MPI_IN_PLACE ? dbc_bytes(sc, st) : dbc_bytes(rc_, rt), root);
}
int MPI_Scatterv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r,
                 int rc_, MPI_Datatype rt, int root, MPI_Comm comm) {
    DBC_WRAP_V(DBC_OP_SCATTERV, PMPI_Scatterv(s, sc, sd, st, r, rc_, rt, root, comm), comm,
               r == MPI_IN_PLACE ? 0 : dbc_bytes(rc_, rt), root,
               dbc_comm_rank(comm) == root ? sc : NULL, st);
}
int MPI_Reduce_scatter(const void *s, void *r, const int rc_[], MPI_Datatype t, MPI_Op op,
                       MPI_Comm comm) {
    DBC_WRAP_V(DBC_OP_REDUCE_SCATTER, PMPI_Reduce_scatter(s, r, rc_, t, op, comm), comm,
               rc_ ? dbc_bytes(rc_[dbc_comm_rank(comm)], t) : 0, -1, rc_, t);
}
int MPI_Reduce_scatter_block(const void *s, void *r, int rc_, MPI_Datatype t, MPI_Op op,
                             MPI_Comm comm) {
    DBC_WRAP(DBC_OP_REDUCE_SCATTER_BLOCK, PMPI_Reduce_scatter_block(s, r, rc_, t, op, comm), comm,
             dbc_bytes(rc_, t), -1);
}
int MPI_Scan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    DBC_WRAP(DBC_OP_SCAN, PMPI_Scan(s, r, count, t, op, comm), comm, dbc_bytes(count, t), -1);
}
int MPI_Exscan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
    DBC_WRAP(DBC_OP_EXSCAN, PMPI_Exscan(s, r, count, t, op, comm), comm, dbc_bytes(count, t), -1);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP(DBC_OP_IBARRIER, PMPI_Ibarrier(comm, q), comm, 0, -1);
}
int MPI_Ibcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP(DBC_OP_IBCAST, PMPI_Ibcast(buf, count, t, root, comm, q), comm, dbc_bytes(count, t),
             root);
}
int MPI_Ireduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP(DBC_OP_IREDUCE, PMPI_Ireduce(s, r, count, t, op, root, comm, q), comm,
             dbc_bytes(count, t), root);
}
int MPI_Iallreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                   MPI_Request *q) {
    DBC_WRAP(DBC_OP_IALLREDUCE, PMPI_Iallreduce(s, r, count, t, op, comm, q), comm,
             dbc_bytes(count, t), -1);
}
int MPI_Ialltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                  MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP(DBC_OP_IALLTOALL, PMPI_Ialltoall(s, sc, st, r, rc_, rt, comm, q), comm,
             dbc_bytes(rc_, rt), -1);
}
int MPI_Iallgather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                   MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP(DBC_OP_IALLGATHER, PMPI_Iallgather(s, sc, st, r, rc_, rt, comm, q), comm,
             dbc_bytes(rc_, rt), -1);
}
int MPI_Igather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                int root, MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP(DBC_OP_IGATHER, PMPI_Igather(s, sc, st, r, rc_, rt, root, comm, q), comm,
             s == MPI_IN_PLACE ? dbc_bytes(rc_, rt) : dbc_bytes(sc, st), root);
}
int MPI_Iscatter(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                 int root, MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP(DBC_OP_ISCATTER, PMPI_Iscatter(s, sc, st, r, rc_, rt, root, comm, q), comm,
             r == MPI_IN_PLACE ? dbc_bytes(sc, st) : dbc_bytes(rc_, rt), root);
}
int MPI_Ireduce_scatter_block(const void *s, void *r, int rc_, MPI_Datatype t, MPI_Op op,
                              MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP(DBC_OP_IREDUCE_SCATTER_BLOCK, PMPI_Ireduce_scatter_block(s, r, rc_, t, op, comm, q),
             comm, dbc_bytes(rc_, t), -1);
}
int MPI_Iscan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
              MPI_Request *q) {
    DBC_WRAP(DBC_OP_ISCAN, PMPI_Iscan(s, r, count, t, op, comm, q), comm, dbc_bytes(count, t), -1);
}
int MPI_Iexscan(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                MPI_Request *q) {
    DBC_WRAP(DBC_OP_IEXSCAN, PMPI_Iexscan(s, r, count, t, op, comm, q), comm, dbc_bytes(count, t),
             -1);
}
int MPI_Iallgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc_[],
                    const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP_V(DBC_OP_IALLGATHERV, PMPI_Iallgatherv(s, sc, st, r, rc_, rd, rt, comm, q), comm,
               rc_ ? dbc_bytes(rc_[dbc_comm_rank(comm)], rt) : 0, -1, rc_, rt);
}
int MPI_Igatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc_[],
                 const int rd[], MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP_V(DBC_OP_IGATHERV, PMPI_Igatherv(s, sc, st, r, rc_, rd, rt, root, comm, q), comm,
               s == MPI_IN_PLACE ? 0 : dbc_bytes(sc, st), root,
               dbc_comm_rank(comm) == root ? rc_ : NULL, rt);
}
int MPI_Iscatterv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r,
                  int rc_, MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP_V(DBC_OP_ISCATTERV, PMPI_Iscatterv(s, sc, sd, st, r, rc_, rt, root, comm, q), comm,
               r == MPI_IN_PLACE ? 0 : dbc_bytes(rc_, rt), root,
               dbc_comm_rank(comm) == root ? sc : NULL, st);
}
int MPI_Ialltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r,
                   const int rc_[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request *q) {
    DBC_WRAP_V(DBC_OP_IALLTOALLV, PMPI_Ialltoallv(s, sc, sd, st, r, rc_, rd, rt, comm, q), comm,
               dbc_sum_bytes(rc_, dbc_comm_size(comm), rt), -1, sc, st);
}
int MPI_Ireduce_scatter(const void *s, void *r, const int rc_[], MPI_Datatype t, MPI_Op op,
                        MPI_Comm comm, MPI_Request *q) {
    DBC_WRAP_V(DBC_OP_IREDUCE_SCATTER, PMPI_Ireduce_scatter(s, r, rc_, t, op, comm, q), comm,
               rc_ ? dbc_bytes(rc_[dbc_comm_rank(comm)], t) : 0, -1, rc_, t);
}

#ifdef DBC_PERSISTENT_PREFIX
/* ---- Persistent collectives ---------------------------------------------------------------
 * A request made by a wrapped _init, what its calls record, and whether one is under way. */
typedef struct {
    MPI_Request req;
    dbc_comm_entry comm; /* copied at the _init: the application may free the communicator */
    uint64_t bytes;
    uint64_t count_size; /* bytes per count of the count vector's datatype */
    const int *counts;   /* the caller's count vector, fixed until the request is freed */
    int root;
    uint32_t op;
    int used;
    int active; /* started, its completion not yet seen */
    int ev;     /* its event's index in dbc_buf while pending, else -1 */
} dbc_preq;

#define DBC_PREQS 256
static dbc_preq dbc_preqs[DBC_PREQS];
static int dbc_npreqs; /* requests remembered */
static int dbc_nactive; /* of them under way: 0 lets the MPI_Wait family pass straight through */

/* Called by dbc_flush: the flushed events keep the Start's return as their exit. */
static void dbc_preq_flushed(void) {
    if (dbc_npending == 0) return;
    for (int i = 0; i < DBC_PREQS; i++) dbc_preqs[i].ev = -1;
    dbc_npending = 0;
}

static dbc_preq *dbc_preq_find(MPI_Request r) {
    if (dbc_npreqs == 0 || r == MPI_REQUEST_NULL) return NULL;
    for (int i = 0; i < DBC_PREQS; i++)
        if (dbc_preqs[i].used && dbc_preqs[i].req == r) return &dbc_preqs[i];
    return NULL;
}

static void dbc_preq_add(MPI_Request r, uint32_t op, MPI_Comm comm, uint64_t bytes, int root,
                         const int *counts, MPI_Datatype t) {
    for (int i = 0; i < DBC_PREQS; i++) {
        dbc_preq *p = &dbc_preqs[i];
        if (p->used) continue;
        memset(p, 0, sizeof *p);
        p->req = r;
        p->comm = *dbc_comm_info(comm);
        p->bytes = bytes;
        p->counts = counts;
        p->count_size = counts ? dbc_type_size(t) : 0;
        p->root = root;
        p->op = DBC_OP_PERSISTENT + op;
        p->used = 1;
        p->ev = -1;
        dbc_npreqs++;
        return;
    }
    static int said;
    if (!said)
        dbc_say("more than 256 persistent collective requests at once: the further ones pass "
                "through unrecorded");
    said = 1;
}

static void dbc_preq_started(dbc_preq *p, void *ra, double t0, double t1) {
    if (p->comm.inter) {
        dbc_passed++;
        return;
    }
    if (p->active) return; /* starting an active request is erroneous: keep the first */
    uint64_t vector = dbc_count_vector_sized(p->counts, p->comm.size, p->count_size);
    p->ev = dbc_store(p->op, &p->comm, p->bytes, p->root, ra, t0, t1, vector);
    p->active = 1;
    dbc_nactive++;
    dbc_npending++;
    dbc_maybe_flush(t1);
}

/* Request r completed, seen at t1 (after the MPI_Wait or MPI_Test returned). */
static void dbc_preq_done(MPI_Request r, double t1) {
    dbc_preq *p = dbc_preq_find(r);
    if (!p || !p->active) return;
    p->active = 0;
    dbc_nactive--;
    if (p->ev >= 0) {
        dbc_buf[p->ev].t_exit = t1;
        p->ev = -1;
        dbc_npending--;
    }
}

int MPI_Start(MPI_Request *r) {
    void *ra = __builtin_return_address(0);
    if (!dbc_active || dbc_npreqs == 0) return PMPI_Start(r);
    dbc_preq *p = dbc_preq_find(*r);
    if (!p) return PMPI_Start(r);
    double t0 = dbc_now();
    int rc = PMPI_Start(r);
    double t1 = dbc_now();
    if (rc == MPI_SUCCESS) dbc_preq_started(p, ra, t0, t1);
    return rc;
}

int MPI_Startall(int n, MPI_Request rs[]) {
    void *ra = __builtin_return_address(0);
    if (!dbc_active || dbc_npreqs == 0) return PMPI_Startall(n, rs);
    double t0 = dbc_now();
    int rc = PMPI_Startall(n, rs);
    double t1 = dbc_now();
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < n; i++) {
        dbc_preq *p = dbc_preq_find(rs[i]);
        if (p) dbc_preq_started(p, ra, t0, t1);
    }
    return rc;
}

int MPI_Request_free(MPI_Request *r) {
    dbc_preq *p = r ? dbc_preq_find(*r) : NULL;
    if (p) {
        if (p->active) dbc_nactive--;
        if (p->ev >= 0) dbc_npending--;
        p->used = 0;
        dbc_npreqs--;
    }
    return PMPI_Request_free(r);
}

/* After an MPI_Wait or MPI_Test family call that completed requests: the flush the pending
 * events held back may be due. */
static void dbc_completed(double t1) {
    if (dbc_active) dbc_maybe_flush(t1);
}

/* The persistent requests stay valid after completing (only the others become
 * MPI_REQUEST_NULL), so rs[] still names them after the call. */
int MPI_Wait(MPI_Request *r, MPI_Status *st) {
    if (dbc_nactive == 0) return PMPI_Wait(r, st);
    MPI_Request q = *r;
    int rc = PMPI_Wait(r, st);
    double t1 = dbc_now();
    dbc_preq_done(q, t1);
    dbc_completed(t1);
    return rc;
}

int MPI_Test(MPI_Request *r, int *flag, MPI_Status *st) {
    if (dbc_nactive == 0) return PMPI_Test(r, flag, st);
    MPI_Request q = *r;
    int rc = PMPI_Test(r, flag, st);
    if (*flag) {
        double t1 = dbc_now();
        dbc_preq_done(q, t1);
        dbc_completed(t1);
    }
    return rc;
}

int MPI_Waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
    if (dbc_nactive == 0) return PMPI_Waitall(n, rs, sts);
    int rc = PMPI_Waitall(n, rs, sts);
    double t1 = dbc_now();
    for (int i = 0; i < n; i++) dbc_preq_done(rs[i], t1);
    dbc_completed(t1);
    return rc;
}

int MPI_Testall(int n, MPI_Request rs[], int *flag, MPI_Status sts[]) {
    if (dbc_nactive == 0) return PMPI_Testall(n, rs, flag, sts);
    int rc = PMPI_Testall(n, rs, flag, sts);
    if (*flag) {
        double t1 = dbc_now();
        for (int i = 0; i < n; i++) dbc_preq_done(rs[i], t1);
        dbc_completed(t1);
    }
    return rc;
}

int MPI_Waitany(int n, MPI_Request rs[], int *index, MPI_Status *st) {
    if (dbc_nactive == 0) return PMPI_Waitany(n, rs, index, st);
    int rc = PMPI_Waitany(n, rs, index, st);
    if (*index != MPI_UNDEFINED && *index >= 0 && *index < n) {
        double t1 = dbc_now();
        dbc_preq_done(rs[*index], t1);
        dbc_completed(t1);
    }
    return rc;
}

int MPI_Testany(int n, MPI_Request rs[], int *index, int *flag, MPI_Status *st) {
    if (dbc_nactive == 0) return PMPI_Testany(n, rs, index, flag, st);
    int rc = PMPI_Testany(n, rs, index, flag, st);
    if (*flag && *index != MPI_UNDEFINED && *index >= 0 && *index < n) {
        double t1 = dbc_now();
        dbc_preq_done(rs[*index], t1);
        dbc_completed(t1);
    }
    return rc;
}

static void dbc_some_done(int n, MPI_Request rs[], const int *outcount, const int idx[]) {
    if (*outcount == MPI_UNDEFINED || *outcount <= 0) return;
    double t1 = dbc_now();
    for (int i = 0; i < *outcount; i++)
        if (idx[i] >= 0 && idx[i] < n) dbc_preq_done(rs[idx[i]], t1);
    dbc_completed(t1);
}

int MPI_Waitsome(int n, MPI_Request rs[], int *outcount, int idx[], MPI_Status sts[]) {
    if (dbc_nactive == 0) return PMPI_Waitsome(n, rs, outcount, idx, sts);
    int rc = PMPI_Waitsome(n, rs, outcount, idx, sts);
    dbc_some_done(n, rs, outcount, idx);
    return rc;
}

int MPI_Testsome(int n, MPI_Request rs[], int *outcount, int idx[], MPI_Status sts[]) {
    if (dbc_nactive == 0) return PMPI_Testsome(n, rs, outcount, idx, sts);
    int rc = PMPI_Testsome(n, rs, outcount, idx, sts);
    dbc_some_done(n, rs, outcount, idx);
    return rc;
}

/* The _init wrappers. The PMPI functions are weak references, so a library that lacks one
 * still loads the capture; the wrapper then says so and returns MPI_ERR_OTHER (an
 * application linked against such a library cannot call the function anyway). CALL is the
 * PMPI call; BYTES, ROOT and COUNTS are evaluated after it, COUNTS (NULL for none) of
 * datatype TYPE. */
#define DBC_PINIT(C, OP, CALL, COMM, BYTES, ROOT, COUNTS, TYPE, REQ)                   \
    do {                                                                                \
        if (!DBC_PINIT_PMPI(C)) {                                                       \
            dbc_say("the MPI library lacks " #C "_init's profiling entry");             \
            return MPI_ERR_OTHER;                                                       \
        }                                                                               \
        int rc = CALL;                                                                  \
        if (dbc_active && rc == MPI_SUCCESS)                                            \
            dbc_preq_add(*(REQ), OP, COMM, BYTES, ROOT, COUNTS, TYPE);                  \
        return rc;                                                                      \
    } while (0)

#define DBC_WEAK(C) extern __typeof__(DBC_PINIT_PMPI(C)) DBC_PINIT_PMPI(C) __attribute__((weak))

DBC_WEAK(Barrier);
int DBC_PINIT_NAME(Barrier)(MPI_Comm comm, MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Barrier, DBC_OP_BARRIER, DBC_PINIT_PMPI(Barrier)(comm, info, q), comm, 0, -1,
              NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Bcast);
int DBC_PINIT_NAME(Bcast)(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm,
                          MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Bcast, DBC_OP_BCAST, DBC_PINIT_PMPI(Bcast)(buf, count, t, root, comm, info, q),
              comm, dbc_bytes(count, t), root, NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Reduce);
int DBC_PINIT_NAME(Reduce)(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op,
                           int root, MPI_Comm comm, MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Reduce, DBC_OP_REDUCE,
              DBC_PINIT_PMPI(Reduce)(s, r, count, t, op, root, comm, info, q), comm,
              dbc_bytes(count, t), root, NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Allreduce);
int DBC_PINIT_NAME(Allreduce)(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op,
                              MPI_Comm comm, MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Allreduce, DBC_OP_ALLREDUCE,
              DBC_PINIT_PMPI(Allreduce)(s, r, count, t, op, comm, info, q), comm,
              dbc_bytes(count, t), -1, NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Alltoall);
int DBC_PINIT_NAME(Alltoall)(const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                             MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Alltoall, DBC_OP_ALLTOALL,
              DBC_PINIT_PMPI(Alltoall)(s, sc, st, r, rc_, rt, comm, info, q), comm,
              dbc_bytes(rc_, rt), -1, NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Alltoallv);
int DBC_PINIT_NAME(Alltoallv)(const void *s, const int sc[], const int sd[], MPI_Datatype st,
                              void *r, const int rc_[], const int rd[], MPI_Datatype rt,
                              MPI_Comm comm, MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Alltoallv, DBC_OP_ALLTOALLV,
              DBC_PINIT_PMPI(Alltoallv)(s, sc, sd, st, r, rc_, rd, rt, comm, info, q), comm,
              dbc_sum_bytes(rc_, dbc_comm_size(comm), rt), -1, sc, st, q);
}
DBC_WEAK(Allgather);
int DBC_PINIT_NAME(Allgather)(const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                              MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Allgather, DBC_OP_ALLGATHER,
              DBC_PINIT_PMPI(Allgather)(s, sc, st, r, rc_, rt, comm, info, q), comm,
              dbc_bytes(rc_, rt), -1, NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Allgatherv);
int DBC_PINIT_NAME(Allgatherv)(const void *s, int sc, MPI_Datatype st, void *r,
                               const int rc_[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                               MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Allgatherv, DBC_OP_ALLGATHERV,
              DBC_PINIT_PMPI(Allgatherv)(s, sc, st, r, rc_, rd, rt, comm, info, q), comm,
              rc_ ? dbc_bytes(rc_[dbc_comm_rank(comm)], rt) : 0, -1, rc_, rt, q);
}
DBC_WEAK(Gather);
int DBC_PINIT_NAME(Gather)(const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                           MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info,
                           MPI_Request *q) {
    DBC_PINIT(Gather, DBC_OP_GATHER,
              DBC_PINIT_PMPI(Gather)(s, sc, st, r, rc_, rt, root, comm, info, q), comm,
              s == MPI_IN_PLACE ? dbc_bytes(rc_, rt) : dbc_bytes(sc, st), root, NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Gatherv);
int DBC_PINIT_NAME(Gatherv)(const void *s, int sc, MPI_Datatype st, void *r, const int rc_[],
                            const int rd[], MPI_Datatype rt, int root, MPI_Comm comm,
                            MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Gatherv, DBC_OP_GATHERV,
              DBC_PINIT_PMPI(Gatherv)(s, sc, st, r, rc_, rd, rt, root, comm, info, q), comm,
              s == MPI_IN_PLACE ? 0 : dbc_bytes(sc, st), root,
              dbc_comm_rank(comm) == root ? rc_ : NULL, rt, q);
}
DBC_WEAK(Scatter);
int DBC_PINIT_NAME(Scatter)(const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                            MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info,
                            MPI_Request *q) {
    DBC_PINIT(Scatter, DBC_OP_SCATTER,
              DBC_PINIT_PMPI(Scatter)(s, sc, st, r, rc_, rt, root, comm, info, q), comm,
              r == MPI_IN_PLACE ? dbc_bytes(sc, st) : dbc_bytes(rc_, rt), root, NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Scatterv);
int DBC_PINIT_NAME(Scatterv)(const void *s, const int sc[], const int sd[], MPI_Datatype st,
                             void *r, int rc_, MPI_Datatype rt, int root, MPI_Comm comm,
                             MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Scatterv, DBC_OP_SCATTERV,
              DBC_PINIT_PMPI(Scatterv)(s, sc, sd, st, r, rc_, rt, root, comm, info, q), comm,
              r == MPI_IN_PLACE ? 0 : dbc_bytes(rc_, rt), root,
              dbc_comm_rank(comm) == root ? sc : NULL, st, q);
}
DBC_WEAK(Reduce_scatter);
int DBC_PINIT_NAME(Reduce_scatter)(const void *s, void *r, const int rc_[], MPI_Datatype t,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Reduce_scatter, DBC_OP_REDUCE_SCATTER,
              DBC_PINIT_PMPI(Reduce_scatter)(s, r, rc_, t, op, comm, info, q), comm,
              rc_ ? dbc_bytes(rc_[dbc_comm_rank(comm)], t) : 0, -1, rc_, t, q);
}
DBC_WEAK(Reduce_scatter_block);
int DBC_PINIT_NAME(Reduce_scatter_block)(const void *s, void *r, int rc_, MPI_Datatype t,
                                         MPI_Op op, MPI_Comm comm, MPI_Info info,
                                         MPI_Request *q) {
    DBC_PINIT(Reduce_scatter_block, DBC_OP_REDUCE_SCATTER_BLOCK,
              DBC_PINIT_PMPI(Reduce_scatter_block)(s, r, rc_, t, op, comm, info, q), comm,
              dbc_bytes(rc_, t), -1, NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Scan);
int DBC_PINIT_NAME(Scan)(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op,
                         MPI_Comm comm, MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Scan, DBC_OP_SCAN, DBC_PINIT_PMPI(Scan)(s, r, count, t, op, comm, info, q), comm,
              dbc_bytes(count, t), -1, NULL, MPI_DATATYPE_NULL, q);
}
DBC_WEAK(Exscan);
int DBC_PINIT_NAME(Exscan)(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op,
                           MPI_Comm comm, MPI_Info info, MPI_Request *q) {
    DBC_PINIT(Exscan, DBC_OP_EXSCAN, DBC_PINIT_PMPI(Exscan)(s, r, count, t, op, comm, info, q),
              comm, dbc_bytes(count, t), -1, NULL, MPI_DATATYPE_NULL, q);
}
#endif /* DBC_PERSISTENT_PREFIX */
