/* A plain selfish-detour loop, outside MPI and delaybench, to compare `delaybench noise`
 * against: one thread per online CPU, each pinned to its CPU, reads CLOCK_MONOTONIC in a
 * tight loop for DURATION seconds and counts every gap between consecutive readings longer
 * than THRESHOLD microseconds (Hoefler, Schneider and Lumsdaine, SC10).
 *
 *   cc -O2 -pthread -o selfish scripts/eval/selfish.c -lm && ./selfish 10 2
 *
 * Prints per CPU: detours per second, % of time lost, longest, and the 50th/90th/99th
 * percentiles of detour lengths in microseconds. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_DETOURS 2000000

static double duration_s = 10.0, threshold_s = 2e-6;

struct result {
    int cpu;
    long n;
    double *len;
    double lost, span;
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *loop(void *arg) {
    struct result *r = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(r->cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    double start = now(), last = start, end = start + duration_s;
    for (;;) {
        double t = now(), gap = t - last;
        if (gap > threshold_s) {
            if (r->n < MAX_DETOURS) r->len[r->n++] = gap;
            r->lost += gap;
        }
        last = t;
        if (t >= end) break;
    }
    r->span = last - start;
    return NULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double q(const double *v, long n, double p) {
    return n ? v[(long)((n - 1) * p)] : 0.0;
}

int main(int argc, char **argv) {
    if (argc > 1) duration_s = atof(argv[1]);
    if (argc > 2) threshold_s = atof(argv[2]) * 1e-6;
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    pthread_t th[256];
    struct result r[256];
    for (int i = 0; i < cpus && i < 256; i++) {
        r[i] = (struct result){.cpu = i, .len = malloc(sizeof(double) * MAX_DETOURS)};
        pthread_create(&th[i], NULL, loop, &r[i]);
    }
    printf("cpu  detours  per_s  lost_%%  longest_us  p50_us  p90_us  p99_us\n");
    for (int i = 0; i < cpus && i < 256; i++) {
        pthread_join(th[i], NULL);
        qsort(r[i].len, r[i].n, sizeof(double), cmp);
        printf("%3d  %7ld  %5.1f  %6.2f  %10.1f  %6.1f  %6.1f  %6.1f\n", i, r[i].n,
               r[i].n / r[i].span, 100 * r[i].lost / r[i].span,
               r[i].n ? r[i].len[r[i].n - 1] * 1e6 : 0.0, q(r[i].len, r[i].n, 0.5) * 1e6,
               q(r[i].len, r[i].n, 0.9) * 1e6, q(r[i].len, r[i].n, 0.99) * 1e6);
    }
    return 0;
}
