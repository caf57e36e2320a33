#!/bin/sh
# Runs test binaries, shows each one's last line ("N passed, M failed"),
# and ends with the totals; exits non-zero if any binary failed. An
# argument may be a whole command ("valgrind ... build/x").
passed=0
failed=0
status=0
for t in "$@"; do
    out=$($t 2>&1)
    code=$?
    last=$(printf '%s\n' "$out" | tail -n 1)
    printf '%-40s %s\n' "$t" "$last"
    if [ $code -ne 0 ]; then
        printf '%s\n' "$out" | grep -v ' passed, ' | head -n 40
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
