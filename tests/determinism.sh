#!/bin/sh
# Determinism across compilers and optimisation levels (`make determinism`).
# Builds the demo and every reproduction with gcc and clang (when present)
# at -O0, -O2 and -O3, runs each (the demo's default run, the reproductions
# with --quick), and compares the SHA-256 of every CSV they write, minus
# its timing columns (headers seconds, us_per_round, ns_*, *_seconds):
# those hold the regret curves and tables. Prints one line per CSV
# (its hash, or the builds that disagree) and exits non-zero on any
# difference. Usage: tests/determinism.sh BUILD_DIR [--rehash]
# (--rehash: only hash the outputs of a previous run again).
set -u
build=${1:-build}/det
compilers="gcc"
command -v clang >/dev/null 2>&1 && compilers="$compilers clang"
levels="-O0 -O2 -O3"
flags="-std=c99 -ffp-contract=off"
status=0

# A CSV without its timing columns (they differ from run to run).
untimed() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i)
                           drop[i] = $i ~ /^(seconds|us_per_round|ns_.*|.*_seconds)$/ }
             { out = ""; sep = ""
               for (i = 1; i <= NF; ++i) if (!drop[i]) { out = out sep $i; sep = "," }
               print out }' "$1"
}

rehash=0
[ "${2:-}" = "--rehash" ] && rehash=1
[ $rehash -eq 1 ] || rm -rf "$build"
mkdir -p "$build"
for cc in $compilers; do
    for o in $levels; do
        dir="$build/$cc$o"
        mkdir -p "$dir/out"
        for src in examples/demo.c bench/repro_*.c; do
            [ $rehash -eq 1 ] && continue
            name=$(basename "$src" .c)
            if ! $cc $flags $o "$src" -o "$dir/$name" -lm 2>"$dir/$name.log"; then
                echo "determinism: $cc $o could not build $src (see $dir/$name.log)"
                status=1
                continue
            fi
            case $name in
            demo) "$dir/$name" --quiet --out "$dir/out" >/dev/null 2>&1 ;;
            *) "$dir/$name" --quick --out "$dir/out" >/dev/null 2>&1 ;;
            esac || { echo "determinism: $cc $o: $name failed"; status=1; }
        done
        for f in "$dir"/out/*.csv; do
            printf '%s  %s\n' "$(untimed "$f" | sha256sum | cut -c1-64)" "$(basename "$f")"
        done >"$dir/hashes"
        [ $rehash -eq 1 ] || echo "built and ran with $cc $o" >&2
    done
done
reference=$(ls -d "$build"/*/ | head -n 1)
printf '%-28s %-18s %s\n' "file" "sha256 (first 16)" "builds"
for f in $(cut -c67- "$reference/hashes"); do
    hashes=$(for d in "$build"/*/; do grep "  $f\$" "$d/hashes" | cut -c1-16; done | sort | uniq -c)
    if [ "$(printf '%s\n' "$hashes" | wc -l)" -eq 1 ]; then
        printf '%-28s %-18s all %s identical\n' "$f" "$(printf '%s' "$hashes" | awk '{print $2}')" \
            "$(ls -d "$build"/*/ | wc -l)"
    else
        printf '%-28s DIFFERENT:\n' "$f"
        for d in "$build"/*/; do
            printf '    %-14s %s\n' "$(basename "$d")" "$(grep "  $f\$" "$d/hashes" | cut -c1-16)"
        done
        status=1
    fi
done
exit $status
