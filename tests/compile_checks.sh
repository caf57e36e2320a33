#!/bin/sh
# Checks of the header that need a compiler or a linker to fail, not a
# program to run: reserved names, the float build's symbol names, mixed
# precisions refused at link time, and the messages a wrong build gets.
# Usage: CC=gcc [ONLY_ALL=1] [IMPL_DOUBLE=o IMPL_FLOAT=o] sh
# tests/compile_checks.sh BUILD_DIR (make test runs it; make test-full with
# ONLY_ALL=1).
# Ends with "N passed, M failed" like every test program.
CC=${CC:-cc}
out=${1:-build}/compile_checks
mkdir -p "$out" || exit 1
h=isdbandit.h
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok; else fail "$1"; fi; }

# 1. No identifier begins with an underscore and a capital letter (C
# reserves them; newlib's <ctype.h> defines _U _L _N _S _P _C _X _B).
# _MSC_VER is the compiler's own, only tested; _Pragma is C99's operator
# (the one way to put a pragma in a macro: the kernel templates' unroll),
# taken out before the search so that the rest of its line is searched.
sed 's/_Pragma(/(/g' $h | grep -nE '(^|[^A-Za-z0-9_])_[A-Z]' | grep -v '_MSC_VER' > "$out/reserved.txt"
check "reserved identifiers in $h: $(head -c 300 "$out/reserved.txt")" '[ ! -s "$out/reserved.txt" ]'

# ... and the header builds after newlib's macros, in both precisions (the
# real newlib <ctype.h> under make embedded; here its definitions).
cat > "$out/ctype_first.c" <<'EOF'
#define _U 01
#define _L 02
#define _N 04
#define _S 010
#define _P 020
#define _C 040
#define _X 0100
#define _B 0200
#define ISDB_IMPLEMENTATION
#include "isdbandit.h"
int main(void) { return 0; }
EOF
for real in double float; do
    check "the header does not build after newlib's <ctype.h> macros ($real)" \
        '$CC -std=c99 -DISDB_REAL=$real -I. -fsyntax-only "$out/ctype_first.c" 2> "$out/ctype_$real.log"'
done

# The version on the header's first line is ISDB_VERSION_STRING.
version=$(sed -n 's/^#define ISDB_VERSION_STRING "\(.*\)"$/\1/p' $h)
check "line 1 of $h does not carry ISDB_VERSION_STRING ($version)" \
    '[ -n "$version" ] && head -n 1 $h | grep -q " - v$version - "'

# 2. Every public function has its float name (_f32), so float and double
# translation units cannot link together.
grep -E '^ISDB_API ' $h | sed -E 's/^ISDB_API [^(]*[^a-z0-9_(](isdb_[a-z0-9_]+) *\(.*/\1/' | sort -u > "$out/api.txt"
sed -n 's/^#define \(isdb_[a-z0-9_]*\) \1_f32$/\1/p' $h | sort -u > "$out/renamed.txt"
comm -23 "$out/api.txt" "$out/renamed.txt" > "$out/missing.txt"
check "public functions without a float name in $h: $(tr '\n' ' ' < "$out/missing.txt")" '[ ! -s "$out/missing.txt" ]'
check "no public function found in $h" '[ -s "$out/api.txt" ]'

cat > "$out/impl.c" <<'EOF'
#define ISDB_IMPLEMENTATION
#include "isdbandit.h"
EOF
cat > "$out/user.c" <<'EOF'
#include "isdbandit.h"
int main(void) {
    isdb_linucb pol;
    isdb_linucb_config c = isdb_linucb_config_init(2, 3);
    if (isdb_linucb_init(&c, NULL, &pol) != ISDB_OK) return 1;
    isdb_policy_uninit(&pol.base);
    return 0;
}
EOF
# make test passes the implementation objects its tests link (IMPL_DOUBLE,
# IMPL_FLOAT); run alone, the script builds its own.
for impl in double float; do
    obj=$IMPL_DOUBLE
    [ $impl = float ] && obj=$IMPL_FLOAT
    if [ -z "$obj" ]; then
        obj="$out/impl_$impl.o"
        if ! $CC -std=c99 -O0 -DISDB_REAL=$impl -I. -c "$out/impl.c" -o "$obj" 2> "$out/impl_$impl.log"; then
            fail "the implementation does not build ($impl)"
            continue
        fi
    fi
    for user in double float; do
        $CC -std=c99 -DISDB_REAL=$user -I. -c "$out/user.c" -o "$out/user_$user.o" || { fail "user.c ($user)"; continue; }
        if $CC "$out/user_$user.o" "$obj" -o "$out/link_${user}_$impl" -lm 2> "$out/link_${user}_$impl.log"; then
            if [ $user = $impl ]; then
                check "the $impl program does not run" '"$out/link_${user}_$impl"'
            else
                fail "a $user translation unit linked with the $impl implementation"
            fi
        else
            if [ $user = $impl ]; then
                fail "the $impl program does not link: $(head -c 300 "$out/link_${user}_$impl.log")"
            else
                check "the $user/$impl link failed for another reason than the missing names" \
                    'grep -q "isdb_linucb" "$out/link_${user}_$impl.log"'
            fi
        fi
    done
done

# 4. One-policy builds (ISDB_ONLY_<POLICY>): each implementation file
# links a program that uses its policy and what that policy needs (ISD:
# adaptive, adaptive: D-LinUCB, BOB: SW-UCB), and leaves the others out,
# so a program using one of them no longer links; with ISDB_STATIC it is
# warning-free. The LinUCB-only build also plays a few rounds, in both
# precisions.
only_dep() {
    case $1 in
    isd) echo adaptive ;; adaptive) echo dlinucb ;; bob) echo swucb ;; *) echo "" ;;
    esac
}
only_other() { if [ "$1" = linucb ]; then echo oam; else echo linucb; fi; }
# ISD's build also names ISDB_NO_ADAPTIVE: what a policy needs wins.
# make test builds LinUCB's and ISD's (ONLY_ALL unset), make test-full
# every policy's.
only_list="linucb isd"
[ "${ONLY_ALL:-0}" = 1 ] && only_list="linucb swucb dlinucb lints bob adaptive isd opkb oam traceucb"
for pol in $only_list; do
    POL=$(echo $pol | tr a-z A-Z)
    no=""
    [ $pol = isd ] && no=-DISDB_NO_ADAPTIVE
    if ! $CC -std=c99 -O0 -DISDB_ONLY_$POL $no -I. -c "$out/impl.c" -o "$out/only_$pol.o" 2> "$out/only_$pol.log"; then
        fail "ISDB_ONLY_$POL does not build: $(head -c 300 "$out/only_$pol.log")"
        continue
    fi
    # With ISDB_STATIC the policies left out are not declared: no static
    # declaration without a definition for gcc -Wall to report.
    check "ISDB_STATIC with ISDB_ONLY_$POL draws warnings (see $out/static_only_$pol.log)" \
        '$CC -std=c99 -Wall -Wextra -Werror -DISDB_STATIC -DISDB_ONLY_$POL $no -I. -fsyntax-only "$out/impl.c" 2> "$out/static_only_$pol.log"'
    dep=$(only_dep $pol)
    other=$(only_other $pol)
    {
        echo '#include "isdbandit.h"'
        echo 'int main(void) {'
        echo "    void (*volatile f)(void) = (void (*)(void))isdb_${pol}_init;"
        [ -n "$dep" ] && echo "    void (*volatile g)(void) = (void (*)(void))isdb_${dep}_init; (void)g;"
        echo '    return f == 0;'
        echo '}'
    } > "$out/only_$pol.c"
    printf '#include "isdbandit.h"\nint main(void) {\n    void (*volatile f)(void) = (void (*)(void))isdb_%s_init;\n    return f == 0;\n}\n' \
        "$other" > "$out/only_${pol}_other.c"
    check "ISDB_ONLY_$POL: a program using $pol${dep:+ and $dep} does not link or run: $(head -c 300 "$out/only_$pol.link" 2>/dev/null)" \
        '$CC -std=c99 -I. "$out/only_$pol.c" "$out/only_$pol.o" -o "$out/only_$pol" -lm 2> "$out/only_$pol.link" && "$out/only_$pol"'
    check "ISDB_ONLY_$POL: a program using $other linked, or failed for another reason than isdb_${other}_init" \
        '! $CC -std=c99 -I. "$out/only_${pol}_other.c" "$out/only_$pol.o" -o "$out/only_${pol}_other" -lm 2> "$out/only_${pol}_other.link" &&
         grep -q "isdb_${other}_init" "$out/only_${pol}_other.link"'
done
cat > "$out/only_run.c" <<'EOF'
#include "isdbandit.h"
int main(void) {
    isdb_real X[6] = {1, 0, 0, 1, 1, 1};
    isdb_linucb pol;
    isdb_linucb_config c = isdb_linucb_config_init(2, 3);
    int arm = -1, t;
    if (isdb_linucb_init(&c, NULL, &pol) != ISDB_OK) return 1;
    for (t = 0; t < 20; ++t) {
        if (isdb_policy_select(&pol.base, X, 3, &arm) != ISDB_OK) return 2;
        if (isdb_policy_update(&pol.base, arm, X + 2 * arm, arm == 2 ? 1 : 0) != ISDB_OK) return 3;
    }
    isdb_policy_uninit(&pol.base);
    return arm == 2 ? 0 : 4;
}
EOF
check "ISDB_ONLY_LINUCB: LinUCB does not play" \
    '$CC -std=c99 -I. "$out/only_run.c" "$out/only_linucb.o" -o "$out/only_run" -lm && "$out/only_run"'
# The float build of LinUCB alone, through ISDB_NO_<POLICY> (the float
# build has no ISD, OPKB, OAM or Trace-UCB) and without the simulator.
check "ISDB_NO_<every other policy> ISDB_NO_SIM (float): LinUCB does not build, link or play, or SW-UCB is still in" \
    '$CC -std=c99 -DISDB_REAL=float -DISDB_NO_SWUCB -DISDB_NO_DLINUCB -DISDB_NO_LINTS -DISDB_NO_BOB -DISDB_NO_ADAPTIVE \
         -DISDB_NO_SIM -I. -c "$out/impl.c" -o "$out/only_run_float.o" &&
     $CC -std=c99 -DISDB_REAL=float -I. "$out/only_run.c" "$out/only_run_float.o" -o "$out/only_run_float" -lm &&
     "$out/only_run_float" && nm "$out/only_run_float.o" > "$out/only_run_float.nm" &&
     ! grep -q "isdb_swucb_init" "$out/only_run_float.nm"'

# 5. The messages of a wrong build name the fix.
cat > "$out/float_isd.c" <<'EOF'
#define ISDB_REAL float
#include "isdbandit.h"
int main(void) {
    isdb_isd pol;
    (void)pol;
    return 0;
}
EOF
check "a float build's use of isdb_isd compiled" '! $CC -std=c99 -I. -fsyntax-only "$out/float_isd.c" 2> "$out/float_isd.log"'
check "a float build's use of isdb_isd does not say it needs double: $(head -c 300 "$out/float_isd.log")" \
    'grep -qE "need(s_)?[ _]?double" "$out/float_isd.log"'
cat > "$out/long_double.c" <<'EOF'
#define ISDB_REAL long double
#include "isdbandit.h"
int main(void) { return 0; }
EOF
check "ISDB_REAL long double compiled" '! $CC -std=c99 -I. -fsyntax-only "$out/long_double.c" 2> "$out/long_double.log"'
check "ISDB_REAL long double does not reach the header's #error: $(head -c 300 "$out/long_double.log")" \
    'grep -q "ISDB_REAL must be float or double" "$out/long_double.log"'

# 6. The manual is an index: CONTENTS names every heading of the
# documentation block (a policy's with its tag).
awk '/^#ifndef ISDBANDIT_H/ { exit } /^   (\[[A-Z.]+\] )?[A-Z][A-Z0-9 \/-]*[A-Z]$/ { sub(/^   /, ""); print }' $h > "$out/headings.txt"
awk '/^   CONTENTS$/ { on = 1; next } on && /^   [A-Z]/ { exit } on { print }' $h > "$out/contents.txt"
: > "$out/unlisted.txt"
grep -vx CONTENTS "$out/headings.txt" | while read -r head; do
    name=${head#\[*\] }
    grep -qF -- "$name" "$out/contents.txt" || echo "$head" >> "$out/unlisted.txt"
done
check "CONTENTS does not list these headings of the manual: $(tr '\n' ' ' < "$out/unlisted.txt")" \
    '[ -s "$out/headings.txt" ] && [ ! -s "$out/unlisted.txt" ]'

# 6b. The manual's budget, so the lab notebook cannot creep back: the top
# comment at most 900 lines (HISTORY included), the ADAPTIVE and ISD
# blocks at most 120 lines each, every other policy block at most 60 (a
# block runs from its "   [TAG] NAME" heading to the next heading), and
# no line before HISTORY naming an issue, a 0.x.y version, a date or
# what was tried (those go to bench/README.md or HISTORY).
man_end=$(grep -n '^\*/' $h | head -n 1 | cut -d: -f1)
check "the manual (top comment) is $man_end lines; its budget is 900" '[ -n "$man_end" ] && [ "$man_end" -le 900 ]'
awk -v end="$man_end" 'NR > end { exit }
     /^   [A-Z[][A-Za-z0-9 \/.[\]-]*$/ && !/^   [A-Z][a-z]/ { if (tag != "") print tag, NR - start; tag = ""; start = NR }
     /^   \[[A-Z]+\] / { tag = $1 }' $h > "$out/blocks.txt"
awk '{ cap = ($1 == "[ADAPTIVE]" || $1 == "[ISD]") ? 120 : 60; if ($2 > cap) print $1 " " $2 " lines (budget " cap ")" }' \
    "$out/blocks.txt" > "$out/over.txt"
check "policy blocks over their budget: $(tr '\n' ' ' < "$out/over.txt")" \
    '[ "$(wc -l < "$out/blocks.txt")" -ge 10 ] && [ ! -s "$out/over.txt" ]'
hist=$(grep -n '^   HISTORY *$' $h | head -n 1 | cut -d: -f1)
sed -n "1,${hist:-$man_end}p" $h | grep -niE 'issue [0-9]|\b0\.[0-9]+\.[0-9]+\b|\btried\b|20[0-9]{2}-[0-9]{2}-[0-9]{2}' > "$out/notebook.txt"
check "the manual before HISTORY names issues, versions, dates or what was tried: $(head -c 300 "$out/notebook.txt")" \
    '[ -n "$hist" ] && [ ! -s "$out/notebook.txt" ]'

# 6c. One tag per part: every [TAG] listed in CONTENTS occurs in the code
# (after the manual); a policy's tag at its manual block heading and at
# least at its declarations and implementation banners (three times
# outside CONTENTS).
grep -oE '\[[A-Z][A-Z.]*\]' "$out/contents.txt" | sort -u > "$out/tags.txt"
: > "$out/tags_missing.txt"
cstart=$(grep -n '^   CONTENTS$' $h | cut -d: -f1)
cend=$((cstart + $(wc -l < "$out/contents.txt")))
while read -r tag; do
    code=$(tail -n +$((man_end + 1)) $h | grep -cF -- "$tag")
    man=$(sed -n "$((cend + 1)),${man_end}p" $h | awk -v t="   $tag " 'index($0, t) == 1' | wc -l)
    case " LINUCB SWUCB DLINUCB LINTS BOB ADAPTIVE ISD OPKB OAM TRACEUCB " in
        *" $(echo "$tag" | tr -d '[]') "*)
            [ "$man" -ge 1 ] && [ "$code" -ge 2 ] || echo "$tag (manual heading $man, code $code)" ;;
        *) [ "$code" -ge 1 ] || echo "$tag (code $code)" ;;
    esac >> "$out/tags_missing.txt"
done < "$out/tags.txt"
check "tags in CONTENTS missing from the manual or the code: $(tr '\n' ' ' < "$out/tags_missing.txt")" \
    '[ "$(wc -l < "$out/tags.txt")" -ge 20 ] && [ ! -s "$out/tags_missing.txt" ]'
for tag in LINUCB SWUCB DLINUCB LINTS BOB ADAPTIVE ISD OPKB OAM TRACEUCB; do
    grep -qx "\[$tag\]" "$out/tags.txt" || echo "[$tag]"
done > "$out/policy_tags.txt"
check "policy tags not in CONTENTS: $(tr '\n' ' ' < "$out/policy_tags.txt")" '[ ! -s "$out/policy_tags.txt" ]'

# 7. The top level is the design card's: the header, its docs and the
# four folders (cross-compiled checks live under tests/).
if git rev-parse --show-toplevel >/dev/null 2>&1; then
    git ls-files | cut -d/ -f1 | sort -u |
        grep -vxE 'isdbandit\.h|README\.md|LICENSE|Makefile|\.gitignore|\.ci|tests|examples|bench' > "$out/toplevel.txt"
    check "tracked files outside the design card's top level: $(tr '\n' ' ' < "$out/toplevel.txt")" '[ ! -s "$out/toplevel.txt" ]'
fi

# 9. The benches and examples use the public API only: no file of
# bench/ or examples/ names a private identifier (isdb__*, ISDB__*), so
# renaming an internal cannot break them. The one exception:
# bench_select.c's "LinUCB 16-byte" column, which times the private
# 16-byte select kernels beside the AVX2 dispatch in the same binary (a
# build with ISDB_NO_AVX2_DISPATCH is the public way; see issue 37).
for f in bench/*.c bench/*.h examples/*.c; do
    [ -f "$f" ] || continue
    if [ "$f" = bench/bench_select.c ]; then
        sed '/^#ifdef ISDB__VEC_LANES$/,/^#endif$/d' "$f"
    else
        cat "$f"
    fi | grep -nE '(^|[^A-Za-z0-9_])(isdb__|ISDB__)[A-Za-z0-9_]' | sed "s|^|$f:|"
done > "$out/private_uses.txt"
check "bench/ or examples/ names private identifiers: $(head -c 300 "$out/private_uses.txt")" '[ ! -s "$out/private_uses.txt" ]'

# 8. README.md or tests/embedded/README.md (its list of what the
# firmware build links) names, as `name`, every function the implementation
# objects leave to the linker (libm, libc, the AVX2 dispatch's
# __cpu_model); a double build's libm function may be named by its float
# name (the README: "the same names without the f"). Not named: what the
# linker itself defines, and what ISDB_ASSERT, ISDB_MALLOC/ISDB_FREE
# replace. Skipped where nm is missing.
if command -v nm >/dev/null 2>&1; then
    cat README.md tests/embedded/README.md | grep -o '`[A-Za-z0-9_]*`' | tr -d '`' | sort -u > "$out/readme_names.txt"
    for impl in double float; do
        obj=$IMPL_DOUBLE
        [ $impl = float ] && obj=$IMPL_FLOAT
        [ -n "$obj" ] || obj="$out/impl_$impl.o"
        [ -f "$obj" ] || continue
        nm -u "$obj" | awk '{ print $NF }' |
            grep -vxE '_GLOBAL_OFFSET_TABLE_|__assert_fail|malloc|free|__stack_chk_fail|__stack_chk_guard' |
            while read -r sym; do
                grep -qx "$sym" "$out/readme_names.txt" ||
                    { [ $impl = double ] && grep -qx "${sym}f" "$out/readme_names.txt"; } || echo "$sym"
            done > "$out/unnamed_$impl.txt"
        check "README.md and tests/embedded/README.md do not name what the $impl implementation links: $(tr '\n' ' ' < "$out/unnamed_$impl.txt")" \
            '[ ! -s "$out/unnamed_$impl.txt" ]'
    done
else
    echo "compile_checks: no nm, so the README's list of linked functions is not checked"
fi

# 10. The README's first program (its first C block) builds warning-free
# as the README says (ISDB_ONLY_ADAPTIVE, the cheap path) and prints the
# two lines the README shows after it.
awk '/^## A first program/ { f = 1 } f && /^```c$/ { p = 1; next } p && /^```$/ { exit } p' README.md > "$out/first.c"
awk '/^\$ cc .*first\.c/ { p = 1; next } p && /^```$/ { exit } p' README.md > "$out/first_expected.txt"
check "README.md's first program does not say ISDB_ONLY_ADAPTIVE" 'grep -qx "#define ISDB_ONLY_ADAPTIVE.*" "$out/first.c"'
if $CC -std=c99 -O2 -ffp-contract=off -Wall -Wextra -pedantic -Werror -I. "$out/first.c" -o "$out/first" -lm 2> "$out/first.log"; then
    ok
    "$out/first" > "$out/first_output.txt" 2>&1
    check "README.md's first program prints other lines than the README shows: $(head -c 300 "$out/first_output.txt")" \
        '[ -s "$out/first_expected.txt" ] && cmp -s "$out/first_output.txt" "$out/first_expected.txt"'
else
    fail "README.md's first program does not build warning-free: $(head -c 300 "$out/first.log")"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
