#!/bin/sh
# tests/embedded/run.sh - what `make embedded` runs: cross-compiles the programs
# of tests/embedded/ for a Cortex-M4F (float and double), checks that nothing
# of malloc, stdio or abort is linked, prints their sizes and largest
# stack frames, and, when qemu-system-arm is installed, runs them on an
# emulated MPS2 AN386 board and compares their output with the same
# programs built for the host.
#
#   sh tests/embedded/run.sh [out-dir]     (CC, WARN and FP from the environment)
#
# Needs arm-none-eabi-gcc with newlib (Debian: gcc-arm-none-eabi
# libnewlib-arm-none-eabi); without it, it says so and succeeds.

OUT=${1:-build/embedded}
CC=${CC:-cc}
WARN=${WARN:--Wall -Wextra -pedantic -Werror -Wdouble-promotion}
FP=${FP:--ffp-contract=off}
XCC=arm-none-eabi-gcc
DIR=$(dirname "$0")

if ! command -v $XCC >/dev/null 2>&1; then
    echo "make embedded: skipped, $XCC is not installed (Debian: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)"
    exit 0
fi

MCU="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
XCFLAGS="-std=c99 $WARN $MCU -Os $FP -ffunction-sections -fdata-sections"
XLDFLAGS="$MCU --specs=nano.specs -nostartfiles -T $DIR/mps2_an386.ld -Wl,--gc-sections"
PROGS="linucb_loop all_policies"
REALS="float double"
mkdir -p "$OUT" || exit 1
echo "make embedded: $($XCC --version | head -n 1), Cortex-M4F, -Os, ISDB_NO_SIM ISDB_NO_MALLOC ISDB_STATIC and a user ISDB_ASSERT (tests/embedded/emb.h)"

# Runs "$@" in the background, at most two at a time; `reap` waits for
# the rest. A failed job is reported by its log and makes the run fail.
JOBS=""
FAILED=0
spawn() {
    log=$1
    shift
    ("$@" >"$log" 2>&1 || { echo "failed: $*" >>"$log"; exit 1; }) &
    JOBS="$JOBS $!:$log"
    set -- $JOBS
    if [ $# -ge 2 ]; then reap; fi
}
reap() {
    for j in $JOBS; do
        wait "${j%%:*}" || { cat "${j#*:}"; FAILED=1; }
    done
    JOBS=""
}

spawn "$OUT/startup.log" $XCC $XCFLAGS -c "$DIR/startup.c" -o "$OUT/startup.o"
for p in $PROGS; do
    for r in $REALS; do
        # -fstack-usage writes each function's frame to $OUT/$p-$r.su.
        spawn "$OUT/$p-$r.log" $XCC $XCFLAGS -DISDB_REAL=$r -fstack-usage -c "$DIR/$p.c" -o "$OUT/$p-$r.o"
    done
done
reap
[ $FAILED = 0 ] || exit 1
for p in $PROGS; do
    for r in $REALS; do
        $XCC $XLDFLAGS -Wl,-Map="$OUT/$p-$r.map" "$OUT/$p-$r.o" "$OUT/startup.o" -lm -o "$OUT/$p-$r.elf" || exit 1
    done
done

# Nothing of the allocator, stdio or assert may be linked (a malloc would
# also fail the link: no _sbrk is provided).
BANNED="malloc free calloc realloc _malloc_r _free_r _sbrk sbrk printf fprintf puts fputs fwrite _write abort __assert_func __assert"
for p in $PROGS; do
    for r in $REALS; do
        found=$(arm-none-eabi-nm "$OUT/$p-$r.elf" | awk -v banned=" $BANNED " 'index(banned, " " $3 " ") { print $3 }')
        if [ -n "$found" ]; then
            echo "make embedded: $p ($r) links $found"
            exit 1
        fi
    done
done
echo "none of these is linked: $BANNED"
echo "what each program calls outside itself (besides the compiler's __aeabi helpers and startup.c):"
for p in $PROGS; do
    for r in $REALS; do
        printf '%-14s %-7s %s\n' $p $r "$(arm-none-eabi-nm -u "$OUT/$p-$r.o" | awk '$2 !~ /^(__aeabi_|emb_)/ { printf "%s ", $2 }')"
    done
done

echo
echo "sizes in bytes (arm-none-eabi-size; bss holds the static heap buffer, not the 64 KiB stack)"
printf '%-14s %-7s %8s %6s %8s\n' program real text data bss
for p in $PROGS; do
    for r in $REALS; do
        arm-none-eabi-size -B "$OUT/$p-$r.elf" | awk -v p=$p -v r=$r 'NR == 2 { printf "%-14s %-7s %8d %6d %8d\n", p, r, $1, $2, $3 }'
    done
done

echo
echo "largest stack frames (-fstack-usage): the program's and the library's"
for p in $PROGS; do
    for r in $REALS; do
        printf '%-14s %-7s ' $p $r
        sort -t "$(printf '\t')" -k2,2n "$OUT/$p-$r.su" | tail -n 1 | awk -F '\t' '{ n = split($1, a, ":"); printf "%5d %-26s ", $2, a[n] }'
        grep isdbandit.h "$OUT/$p-$r.su" | sort -t "$(printf '\t')" -k2,2n | tail -n 1 | awk -F '\t' '{ n = split($1, a, ":"); printf "%5d %s (%s)\n", $2, a[n], $3 }'
    done
done
if grep -q dynamic "$OUT"/*.su; then
    echo "dynamic stack frames:"
    grep dynamic "$OUT"/*.su
fi

if ! command -v qemu-system-arm >/dev/null 2>&1; then
    echo
    echo "qemu-system-arm is not installed: the programs were not run (Debian: apt-get install qemu-system-arm)"
    exit 0
fi

echo
echo "on $(qemu-system-arm --version | head -n 1 | sed 's/ (.*//'), -M mps2-an386, against the host ($CC -O2 $FP):"
for p in $PROGS; do
    for r in $REALS; do
        spawn "$OUT/host-$p-$r.log" $CC -std=c99 $WARN -O2 $FP -DISDB_REAL=$r "$DIR/$p.c" "$DIR/host.c" -o "$OUT/host-$p-$r" -lm
    done
done
reap
[ $FAILED = 0 ] || exit 1

# The choices a LinUCB loop output lists, as one string of digits.
choices() { sed -n '/^choices$/,/^regret/p' "$1" | grep -E '^[0-9]+$' | tr -d '\n'; }
comparable() { grep -v '^stack used' "$1" | sed 's/ heap [0-9]*/ heap -/'; }

STATUS=0
for p in $PROGS; do
    for r in $REALS; do
        board="$OUT/qemu-$p-$r.out"
        host="$OUT/host-$p-$r.out"
        rm -f "$board"
        timeout 600 qemu-system-arm -M mps2-an386 -display none -monitor none -serial none \
            -chardev file,id=sh,path="$board" -semihosting-config enable=on,target=native,chardev=sh \
            -kernel "$OUT/$p-$r.elf"
        qstatus=$?
        "$OUT/host-$p-$r" >"$host"
        hstatus=$?
        printf '%-14s %-7s ' $p $r
        if [ $qstatus != 0 ] || [ $hstatus != 0 ]; then
            echo "FAILED: exit status $qstatus on the board, $hstatus on the host"
            STATUS=1
            continue
        fi
        stack=$(sed -n 's/^stack used \([0-9]*\).*/\1/p' "$board")
        if [ $p = linucb_loop ]; then
            same=$(awk -v a="$(choices "$board")" -v b="$(choices "$host")" 'BEGIN {
                n = 0; for (i = 1; i <= length(a) || i <= length(b); ++i) n += substr(a, i, 1) == substr(b, i, 1); print n }')
            total=$(choices "$host" | tr -d '\n' | wc -c)
            printf 'choices identical %s of %s; ' "$same" "$total"
        fi
        # Heap sizes are left out: adaptive's heap holds its estimators'
        # structs, whose pointers are 4 bytes on the board and 8 on the
        # host, and an x86 float ridge holds 8 d more reals of select
        # scratch (the AVX2 sixteen-arm kernel).
        comparable "$board" >"$board.cmp"
        comparable "$host" >"$host.cmp"
        if cmp -s "$board.cmp" "$host.cmp"; then
            echo "output identical to the host's; stack used $stack bytes"
        else
            echo "DIFFERS from the host's (diff $board.cmp $host.cmp); stack used $stack bytes"
            STATUS=1
        fi
    done
done
echo
echo "heap bytes per policy on the board, d 8, K 10 (all_policies.c has the configs)"
paste "$OUT/qemu-all_policies-float.out" "$OUT/qemu-all_policies-double.out" |
    awk -F '\t' '/ heap / || $2 ~ / heap / {
        split($1, f, " "); split($2, d, " ")
        printf "%-10s %8s %8s\n", (d[1] != "" ? d[1] : f[1]), (f[2] == "heap" ? f[3] : "-"), d[3] }
        NR == 1 { printf "%-10s %8s %8s\n", "policy", "float", "double" }'
exit $STATUS
