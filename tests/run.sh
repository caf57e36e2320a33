#!/bin/sh
# Runs test programs, up to N at a time (-j N, default 1), then shows each
# one's last line ("N passed, M failed") in the order given, and the
# totals; exits non-zero if any program failed. An argument may be a
# whole command ("valgrind ... build/x"). With --logs the programs are
# not run: each one's output is read from <program>.log, whose last line
# is "exit <status>" (what make test writes).
jobs=1
logs=0
if [ "$1" = "-j" ]; then
    jobs=$2
    shift 2
elif [ "$1" = "--logs" ]; then
    logs=1
    shift
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/isdb-run.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
i=0
for t in "$@"; do
    i=$((i + 1))
    if [ $logs -eq 1 ]; then
        if [ -f "$t.log" ]; then
            sed '$d' "$t.log" > "$tmp/$i.out"
            tail -n 1 "$t.log" | sed 's/^exit //' > "$tmp/$i.code"
        else
            echo "not run" > "$tmp/$i.out"
            echo 1 > "$tmp/$i.code"
        fi
        continue
    fi
    ( $t > "$tmp/$i.out" 2>&1; echo $? > "$tmp/$i.code" ) &
    if [ $((i % jobs)) -eq 0 ]; then wait; fi
done
wait
passed=0
failed=0
status=0
i=0
for t in "$@"; do
    i=$((i + 1))
    code=$(cat "$tmp/$i.code")
    last=$(tail -n 1 "$tmp/$i.out")
    printf '%-40s %s\n' "$t" "$last"
    if [ "$code" -ne 0 ]; then
        grep -v ' passed, ' "$tmp/$i.out" | head -n 40
        status=1
    fi
    p=$(printf '%s\n' "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(printf '%s\n' "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then
        echo "$t: no summary line (crashed?)"
        status=1
        continue
    fi
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "total: $passed passed, $failed failed"
exit $status
