/* The capture's cost per intercepted call: N calls of MPI_Allreduce (one double) and of
 * MPI_Barrier on MPI_COMM_SELF, whose own cost is small, timed with and without
 * libdelaybench_capture.so preloaded (scripts/capture-overhead.sh runs both); the difference
 * of the ns/call figures is the interposer's cost. Prints also the peak resident set size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) kib = atol(line + 6);
    if (f) fclose(f);
    return kib;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    double x = 1.0, y = 0.0;
    for (int i = 0; i < 1000; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    double t0 = now();
    for (int i = 0; i < n; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    double t1 = now();
    for (int i = 0; i < n; i++) MPI_Barrier(MPI_COMM_SELF);
    double t2 = now();
    printf("allreduce_ns_per_call %.1f\nbarrier_ns_per_call %.1f\npeak_rss_kib %ld\n",
           (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9, peak_rss_kib());
    MPI_Finalize();
    return 0;
}
