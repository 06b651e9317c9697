#!/usr/bin/env bash
# Finds the libclang that rsmpi's bindgen (through clang-sys) will load, and prints its path.
# Exit 0 and the path when found, exit 1 and nothing when not.
#
# Mirrors clang-sys 1.x (build/common.rs, build/dynamic.rs): the names are libclang.so,
# libclang-N.so, libclang.so.N and libclang-N.so.M, where N is a version; libclang-cpp.so.N is
# another library (the C++ API, pulled in by the llvm packages) and bindgen cannot use it, so
# it never counts. The directories are LIBCLANG_PATH alone when set, otherwise llvm-config's
# prefix, LD_LIBRARY_PATH, LIBRARY_PATH and the system library directories.
#
# For tests: DELAYBENCH_LIBCLANG_DIRS (colon-separated) replaces every search directory.
#
# Usage: scripts/find_libclang.sh            # prints e.g. /usr/lib/llvm-14/lib/libclang-14.so.1
#        . scripts/find_libclang.sh; find_libclang

# True when $1 (a file name) is a libclang that clang-sys would load.
is_loadable_libclang_name() {
    [[ "$1" =~ ^libclang(-[0-9][0-9.]*)?\.so(\.[0-9][0-9.]*)?$ ]]
}

libclang_search_dirs() {
    if [ -n "${DELAYBENCH_LIBCLANG_DIRS:-}" ]; then
        tr ':' '\n' <<<"$DELAYBENCH_LIBCLANG_DIRS"
        return
    fi
    if [ -n "${LIBCLANG_PATH:-}" ]; then
        # A file path or a directory, as clang-sys accepts.
        if [ -f "$LIBCLANG_PATH" ]; then dirname "$LIBCLANG_PATH"; else echo "$LIBCLANG_PATH"; fi
        return
    fi
    local prefix
    if prefix=$(llvm-config --prefix 2>/dev/null); then
        echo "$prefix/lib" "$prefix/lib64" | tr ' ' '\n'
    fi
    tr ':' '\n' <<<"${LD_LIBRARY_PATH:-}:${LIBRARY_PATH:-}"
    local d
    shopt -s nullglob
    for d in /usr/local/llvm*/lib* /usr/local/lib*/*/* /usr/local/lib*/* /usr/local/lib* \
        /usr/lib/llvm-*/lib /usr/lib*/*/* /usr/lib*/* /usr/lib*; do
        [ -d "$d" ] && echo "$d"
    done
    shopt -u nullglob
}

# Prints the first loadable libclang in the search directories; status 1 when there is none.
find_libclang() {
    local dir f
    while IFS= read -r dir; do
        [ -n "$dir" ] && [ -d "$dir" ] || continue
        for f in "$dir"/libclang*; do
            [ -e "$f" ] || continue
            if is_loadable_libclang_name "$(basename "$f")"; then
                echo "$f"
                return 0
            fi
        done
    done < <(libclang_search_dirs)
    return 1
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -uo pipefail
    find_libclang
fi
