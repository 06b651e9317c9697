/* Selfish detour (after Hoefler, Schneider and Lumsdaine 2010, "Characterizing the influence
 * of system noise on large-scale applications by simulation"): spin reading the clock for a
 * given time and count the gaps between consecutive readings longer than a threshold
 * (detours: the core was taken away). Prints one line:
 *   detours=N lost_pct=X max_us=Y per_s=Z
 * Usage: selfish SECONDS [THRESHOLD_US]. Run one per core. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    double threshold = (argc > 2 ? atof(argv[2]) : 1.0) * 1e-6;
    double start = now(), last = start, lost = 0.0, max = 0.0;
    long detours = 0;
    for (;;) {
        double t = now(), gap = t - last;
        if (gap > threshold) {
            detours++;
            lost += gap;
            if (gap > max) max = gap;
        }
        last = t;
        if (t - start >= seconds) break;
    }
    double span = last - start;
    printf("detours=%ld lost_pct=%.3f max_us=%.1f per_s=%.1f\n", detours, 100.0 * lost / span,
           max * 1e6, detours / span);
    return 0;
}
