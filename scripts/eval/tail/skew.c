/* skew.c: an LD_PRELOAD shim that makes chosen MPI ranks' clocks wrong by a known amount,
 * for the accuracy evaluation (docs/accuracy.md). It works below the benchmark, so the
 * benchmark's own clock code (delaybench's --emulate-clock included) plays no part.
 *
 * For a skewed rank every wall and monotonic clock reads
 *     reading(t) = t + SKEW_OFFSET_S + SKEW_PPM * 1e-6 * (t - t_start)
 * where t is the real reading of the same clock and t_start that clock's real reading when
 * the shim was loaded. Wrapped: clock_gettime (and glibc's __clock_gettime alias) for
 * CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, the _COARSE variants,
 * CLOCK_BOOTTIME, the _ALARM variants and CLOCK_TAI (CPU-time clocks are left alone);
 * gettimeofday; and MPI_Wtime / PMPI_Wtime, which return the skewed CLOCK_MONOTONIC in
 * seconds. The last is needed because Open MPI 4's MPI_Wtime subtracts the process's first
 * reading (ompi_wtime_time_origin), which would cancel a constant offset; MPICH's MPI_Wtime
 * reads clock_gettime too, and the wrapper gives both one absolute, skewed clock.
 * Not seen: rdtsc/rdtscp, raw syscall(SYS_clock_gettime), and calls inside libc itself
 * (time(), clock_nanosleep(TIMER_ABSTIME) deadlines, timerfd/timer_settime absolute times).
 *
 * Environment:
 *   SKEW_RANKS     comma-separated world ranks to skew, or "all" (default: none, the shim
 *                  then only passes through)
 *   SKEW_OFFSET_S  constant offset in seconds (default 0), e.g. 1.5e-3
 *   SKEW_PPM       rate error in parts per million (default 0), e.g. 20
 *   SKEW_VERBOSE   1: say on stderr what this process does
 * The rank comes from OMPI_COMM_WORLD_RANK, PMI_RANK or PMIX_RANK (the launcher's
 * environment), so it is known before MPI_Init.
 *
 * Build: cc -O2 -shared -fPIC -o libskew.so skew.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);

static clock_gettime_fn real_clock_gettime;
static gettimeofday_fn real_gettimeofday;
static int skewed;
static double offset_s, rate;
#define NCLOCKS 16
static double start_s[NCLOCKS];
static int start_set[NCLOCKS];

/* libc's own functions, whatever else is preloaded (truth.c finds the same ones). */
static void resolve(void)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    if (libc) {
        real_clock_gettime = (clock_gettime_fn)dlsym(libc, "clock_gettime");
        real_gettimeofday = (gettimeofday_fn)dlsym(libc, "gettimeofday");
    }
    if (!real_clock_gettime)
        real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    if (!real_gettimeofday)
        real_gettimeofday = (gettimeofday_fn)dlsym(RTLD_NEXT, "gettimeofday");
}

static int env_rank(void)
{
    const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v)
            return atoi(v);
    }
    return -1;
}

static int rank_listed(int rank, const char *list)
{
    if (!list || !*list || rank < 0)
        return 0;
    if (strcmp(list, "all") == 0)
        return 1;
    char *copy = strdup(list), *save = NULL;
    int found = 0;
    for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
        if (atoi(tok) == rank)
            found = 1;
    free(copy);
    return found;
}

static int skews(clockid_t id)
{
    switch (id) {
    case CLOCK_REALTIME: case CLOCK_MONOTONIC: case CLOCK_MONOTONIC_RAW:
    case CLOCK_REALTIME_COARSE: case CLOCK_MONOTONIC_COARSE: case CLOCK_BOOTTIME:
    case CLOCK_REALTIME_ALARM: case CLOCK_BOOTTIME_ALARM: case CLOCK_TAI:
        return 1;
    default:
        return 0;
    }
}

__attribute__((constructor)) static void skew_init(void)
{
    resolve();
    int rank = env_rank();
    skewed = rank_listed(rank, getenv("SKEW_RANKS"));
    const char *o = getenv("SKEW_OFFSET_S"), *p = getenv("SKEW_PPM");
    offset_s = o ? atof(o) : 0.0;
    rate = p ? atof(p) * 1e-6 : 0.0;
    for (clockid_t id = 0; id < NCLOCKS; id++) {
        struct timespec ts;
        if (skews(id) && real_clock_gettime && real_clock_gettime(id, &ts) == 0) {
            start_s[id] = ts.tv_sec + ts.tv_nsec * 1e-9;
            start_set[id] = 1;
        }
    }
    const char *v = getenv("SKEW_VERBOSE");
    if (v && *v == '1')
        fprintf(stderr, "skew: pid %d rank %d %s (offset %g s, %g ppm)\n", (int)getpid(),
                rank, skewed ? "skewed" : "not skewed", offset_s, rate * 1e6);
}

/* Added skew in nanoseconds for a real reading of clock `id`. Whole nanoseconds are kept
 * apart from the fraction so that 1e9-second clocks keep nanosecond resolution. */
static long long skew_ns(clockid_t id, const struct timespec *ts)
{
    double since = 0.0;
    if (id >= 0 && id < NCLOCKS && start_set[id])
        since = (ts->tv_sec - (long long)start_s[id]) + ts->tv_nsec * 1e-9 -
                (start_s[id] - (long long)start_s[id]);
    return (long long)((offset_s + rate * since) * 1e9);
}

static void add_ns(struct timespec *ts, long long ns)
{
    long long total = (long long)ts->tv_nsec + ns % 1000000000LL;
    ts->tv_sec += ns / 1000000000LL;
    while (total < 0) { total += 1000000000LL; ts->tv_sec--; }
    while (total >= 1000000000LL) { total -= 1000000000LL; ts->tv_sec++; }
    ts->tv_nsec = total;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (!real_clock_gettime)
        resolve();
    int r = real_clock_gettime(id, ts);
    if (r == 0 && skewed && skews(id))
        add_ns(ts, skew_ns(id, ts));
    return r;
}

int __clock_gettime(clockid_t id, struct timespec *ts)
{
    return clock_gettime(id, ts);
}

int gettimeofday(struct timeval *tv, void *tz)
{
    if (!real_gettimeofday)
        resolve();
    struct timeval *volatile out = tv; /* glibc declares tv nonnull; callers may pass NULL */
    if (!skewed || !out)
        return real_gettimeofday(tv, tz);
    struct timespec ts;
    int r = clock_gettime(CLOCK_REALTIME, &ts);
    if (r == 0) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    if (tz)
        real_gettimeofday(NULL, tz);
    return r;
}

double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double MPI_Wtime(void)
{
    return PMPI_Wtime();
}
