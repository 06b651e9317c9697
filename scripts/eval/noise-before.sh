# Sourced by the evaluation scripts that print the machine's noise beside a timing:
#   . scripts/eval/noise-before.sh; selfish_build DIR; ...; selfish_noise [SECONDS]
# selfish_build compiles scripts/eval/selfish.c into DIR; selfish_noise runs it on every
# core for SECONDS (default NOISE_S, else 2) with a 2 us threshold and prints one cell:
# the worst core's share of time lost and the detours per second per core.
# The source is found beside this file, so a script sourcing it from any folder works; a
# loop that did not run prints "not measured", never a made-up 0 %.
selfish_src="$(dirname "${BASH_SOURCE[0]}")/selfish.c"
selfish_build() {
    selfish="$1/selfish"
    cc -O2 -pthread -o "$selfish" "$selfish_src" -lm
}
selfish_noise() {
    "$selfish" "${1:-${NOISE_S:-2}}" 2 2>/dev/null |
        awk 'NR > 1 { if ($4 > lost) lost = $4; rate += $3 }
        END { if (NR < 2) print "not measured"
              else printf "%.1f %% lost, %.0f detours/s", lost, rate / (NR - 1) }'
}
