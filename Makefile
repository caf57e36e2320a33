# isdbandit.h - build, test, benchmark and reproduce.
# Needs only make and a C compiler (gcc by default) for `demo` and `test`;
# clang, g++/clang++ and the sanitizer runtimes are used when present.
#
#   make demo        the non-stationary simulator (examples/)
#   make test        every test with gcc (C99) and clang (C11, if present),
#                    C++11, two translation units, ISDB_STATIC (also with
#                    every policy at -Os), and in single precision
#                    (ISDB_REAL float, gcc C11 and C++); builds and runs in
#                    parallel, one line per test program; V=1 shows the
#                    compiler commands
#   make test-full   the same tests over the whole matrix: also gcc C11,
#                    clang C99, clang++, clang in float, ISDB_STATIC and
#                    the C++ test at -O2, and the examples built at -O2
#                    (CI runs both)
#   make sanitize    the tests under AddressSanitizer and UBSan, in double
#                    and float
#   make bench       speed of each policy beside naive references (bench/),
#                    then in double and float side by side; select beside
#                    the machine (bench_select) in both precisions; then
#                    bench-compile
#   make bench-compile  the header's compile time (plain include, the
#                    implementation file, each ISDB_ONLY_<POLICY>, the
#                    README's first program) beside stb_image's, and
#                    make test's from a clean tree (bench/compile_time.c)
#   make soak        long runs checked against exact refits (double, float)
#   make agnostic    the untuned policies beside the best tuned window or
#                    discount on 26 problems (issue 38's jumps and rotation
#                    beside VW's cited regrets among them), and Besson
#                    et al.'s (bench/agnostic.c)
#   make realstream  Elec2 and NOAA weather beside VW (bench/realstream.c)
#   make rescale     adaptive beside LinUCB when only theta's length moves
#                    (issue 38 item 3; bench/rescale_family.c, about 10 s)
#   make smooth-drift  which single mechanism (estimator family, width,
#                    sampling) closes the gap to VW on rotation, Elec2 and
#                    NOAA (bench/smooth_drift.c; about 4 minutes on 2 cores)
#   make defaults    every config_init default beside its one-field
#                    alternatives on a problem family (bench/defaults.c;
#                    one process, about 7 minutes; POLICY=swucb runs one)
#   make isd-practice  ISD-linUCB with its defaults on practitioners' logs
#                    (7 families, d 4 to 20) beside adaptive, LinUCB and a
#                    tuned SW-UCB grid (bench/isd_practice.c)
#   make reproduce   the papers' experiments (bench/repro_*.c), agnostic
#                    and isd-practice
#   make opkb-calibration  ADA-OPKB's calibrated change test beside the
#                    paper's constant at several scales on 10 problems
#                    (bench/calib_opkb.c; about 10 minutes on 2 cores)
#   make fuzz        libFuzzer on the fuzz targets side by side (needs
#                    clang), FUZZ_SECONDS each (default 600)
#   make valgrind    the tests under memcheck
#   make determinism the demo and reproductions with gcc and clang at
#                    -O0, -O2 and -O3 must write identical CSV files
#   make examples    build the example programs
#   make embedded    cross-compile tests/embedded/ for a Cortex-M4F (float
#                    and double; needs arm-none-eabi-gcc, skipped without):
#                    sizes, stack frames, no malloc or stdio linked; runs
#                    it in qemu-system-arm against the host when present
#   make install     copy isdbandit.h to $(PREFIX)/include
#   make help        this list
#   make clean


ifeq ($(origin CC),default)
CC = gcc
endif
ifeq ($(origin CXX),default)
CXX = g++
endif
PREFIX ?= /usr/local
BUILD ?= build

# $(call probe,VAR,command): the command's output, run the first time VAR
# is expanded and kept; so each optional tool is probed only by a target
# whose recipe or test list needs it (make help and make clean probe none).
probe = $(eval $(1) := $(shell $(2)))$($(1))
CLANG = $(call probe,CLANG,command -v clang 2>/dev/null)
CLANGXX = $(call probe,CLANGXX,command -v clang++ 2>/dev/null)
HAVE_CXX = $(call probe,HAVE_CXX,command -v $(CXX) 2>/dev/null)
# Jobs for the builds and runs that make test and make sanitize start.
NPROC = $(call probe,NPROC,nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
ifeq ($(V),1)
Q =
else
Q = @
endif

# Compiler flags, each written here only.
WARN_BASE = -Wall -Wextra -pedantic -Werror
WARN = $(WARN_BASE) -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wcast-qual -Wsign-conversion -Wdouble-promotion
CXXWARN = $(WARN_BASE) -Wshadow -Wcast-qual
C99 = -std=c99 $(WARN)
C11 = -std=c11 $(WARN)
# No contraction into FMA: results must not depend on the compiler.
FP = -ffp-contract=off
OPT = -O2 $(FP)
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1 $(FP)
FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1 $(FP)
# Single precision. The library (impl.o) keeps -Wdouble-promotion; the
# tests and examples compare with double references on purpose.
FLOAT = -DISDB_REAL=float
FLOAT_TEST = $(FLOAT) $(if $(filter %impl.o,$@),,-Wno-double-promotion)
BENCH_FLAGS = -std=c99 $(WARN_BASE) $(OPT)
LIBS = -lm

HEADER = isdbandit.h
TEST_DEPS = $(HEADER) tests/test.h tests/ref.h tests/cases.h
# Every tests/test_*.c is a test program, except the multi-file builds.
MULTI = tests/test_two_tu_a.c tests/test_two_tu_b.c tests/test_static.c
TEST_SRC = $(filter-out $(MULTI) tests/test_static_all.c,$(wildcard tests/test_*.c))
TEST_NAMES = $(notdir $(TEST_SRC:.c=))
# Most tests use the public API only and link the implementation compiled
# once per compiler and standard (tests/impl.c, at the variant's -O2); the
# test code itself is built at -Og (TEST_OPT), which keeps the flow
# warnings (-Wmaybe-uninitialized) and builds faster than -O1. White-box
# tests, which reach private helpers, define ISDB_IMPLEMENTATION themselves
# (with the policies they reach) and are compiled at -O0.
TEST_OPT = -Og
# clang's warnings come from its front end, not the optimiser: it builds
# the test code at -O0.
TEST_OPT_CLANG = -O0
# The C++ test compiles the whole header as C++: at -O0 in make test (its
# front end's warnings and a short run; the C builds test the library at
# -O2), at -O2 in make test-full, each in its own folder.
CXX_OPT = $(if $(filter 1,$(FULL)),$(OPT),-O0 $(FP))
CXX_DIR = $(if $(filter 1,$(FULL)),cxx,cxx-o0)
HASH := \#
WHITE_NAMES := $(notdir $(basename $(shell grep -l '^$(HASH)define ISDB_IMPLEMENTATION' $(TEST_SRC))))
BLACK_NAMES := $(filter-out $(WHITE_NAMES),$(TEST_NAMES))

# make test builds the tests once per compiler; make test-full (FULL=1)
# adds the other standard of each, clang++ (double and float), clang in float and
# ISDB_STATIC at -O2, which have found little that the first set missed
# and would double the time. The lists name the clang builds only when
# clang is present, so they probe for it when expanded.
VARIANTS = gcc-c99 $(if $(CLANG),clang-c11)
FLOAT_VARIANTS = gcc-float
STATIC_OPTS = Os
ifeq ($(FULL),1)
VARIANTS += gcc-c11 $(if $(CLANG),clang-c99)
FLOAT_VARIANTS += $(if $(CLANG),clang-float)
STATIC_OPTS += O2
endif
# The float build (ISDB_REAL float) leaves these policies out; every other
# test runs in both precisions.
DOUBLE_ONLY = test_isd test_jbd test_opkb test_oam test_traceucb test_private test_isd_scale
FLOAT_NAMES = $(filter-out $(DOUBLE_ONLY),$(TEST_NAMES))
FLOAT_BINS = $(foreach v,$(FLOAT_VARIANTS),$(addprefix $(BUILD)/$(v)/,$(FLOAT_NAMES))) \
             $(if $(HAVE_CXX),$(BUILD)/$(CXX_DIR)-float/test_cpp)
# What a compiler or linker must refuse (tests/compile_checks.sh).
COMPILE_CHECKS = $(BUILD)/compile-checks/run$(if $(filter 1,$(FULL)),-full)
TEST_BINS = $(strip $(foreach v,$(VARIANTS),$(addprefix $(BUILD)/$(v)/,$(TEST_NAMES))) \
            $(BUILD)/gcc-c99/two_tu $(BUILD)/gcc-c99/static \
            $(addprefix $(BUILD)/static-,$(addsuffix /test_static_all,$(STATIC_OPTS))) \
            $(if $(HAVE_CXX),$(BUILD)/$(CXX_DIR)/test_cpp) \
            $(if $(filter 1,$(FULL)),$(if $(CLANGXX),$(BUILD)/clangxx/test_cpp $(BUILD)/clangxx-float/test_cpp)) \
            $(FLOAT_BINS) $(COMPILE_CHECKS))
SAN_BINS = $(addprefix $(BUILD)/asan/,$(TEST_NAMES)) $(addprefix $(BUILD)/asan-float/,$(FLOAT_NAMES))

EXAMPLE_SRC = $(wildcard examples/*.c)
EXAMPLE_BINS = $(addprefix $(BUILD)/examples/,$(notdir $(EXAMPLE_SRC:.c=)))
# make test checks the examples' own code with the warnings on
# (-fsyntax-only: the library part is the tests' impl.o); make test-full
# builds them at -O2.
ifeq ($(FULL),1)
EXAMPLE_CHECKS = $(EXAMPLE_BINS)
else
EXAMPLE_CHECKS = $(addsuffix .ok,$(addprefix $(BUILD)/check/,$(notdir $(EXAMPLE_SRC:.c=))))
endif
# The examples whose policies build in single precision are checked in it.
FLOAT_EXAMPLES = basic delayed drift no_malloc save_restore
EXAMPLE_CHECKS += $(addsuffix .ok,$(addprefix $(BUILD)/check-float/,$(FLOAT_EXAMPLES)))
BENCH_SRC = $(wildcard bench/bench_*.c)
BENCH_BINS = $(addprefix $(BUILD)/bench/,$(notdir $(BENCH_SRC:.c=)))
REPRO_SRC = $(wildcard bench/repro_*.c)
REPRO_BINS = $(addprefix $(BUILD)/bench/,$(notdir $(REPRO_SRC:.c=)))
BENCH_DEPS = $(HEADER) $(wildcard bench/*.h)
OUT ?= out

# The fuzz targets (tests/fuzz_<name>.c). `make sanitize` also replays
# their seed corpora (tests/corpus/<name>) with $(CC), without libFuzzer.
FUZZ_TARGETS = ops snapshot forge
FUZZ_SECONDS ?= 600
FUZZ_DEPS = $(HEADER) tests/fuzz.h tests/cases.h
REPLAY_BINS = $(addprefix $(BUILD)/asan/replay_,$(FUZZ_TARGETS))

.PHONY: all help demo test test-full test-run sanitize sanitize-build valgrind determinism bench bench-compile soak agnostic realstream smooth-drift rescale isd-practice defaults reproduce opkb-calibration fuzz examples embedded install clean
.SECONDARY:

all: test

# The comment at the top of this file.
help:
	@sed -n '1,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

demo:
	@echo "make demo: compiling examples/demo.c ($(CC) -O2, a few seconds)"
	@$(MAKE) --no-print-directory $(BUILD)/examples/demo
	@mkdir -p $(OUT)
	./$(BUILD)/examples/demo --out $(OUT)

# Each test program runs as soon as it is built, its output going to
# <program>.log (last line: its exit status); tests/run.sh --logs then
# prints one line per program and the totals. The examples are built too,
# so they stay warning-free.
TEST_LOGS = $(addsuffix .log,$(TEST_BINS))
test:
	@echo "make $(if $(filter 1,$(FULL)),test-full,test): $(words $(TEST_BINS)) test programs with $(CC)$(if $(CLANG), clang)$(if $(HAVE_CXX), $(CXX))$(if $(filter %/clangxx/test_cpp,$(TEST_BINS)), clang++), $(NPROC) jobs (V=1 shows the commands)"
	@rm -f $(TEST_LOGS)
	@$(MAKE) --no-print-directory -j$(NPROC) test-run
	@sh tests/run.sh --logs $(TEST_BINS)

# The longest compiles first, so that both cores stay busy to the end.
# Its prerequisites probe for the compilers: only read when it is the goal.
ifneq ($(filter test-run,$(MAKECMDGOALS)),)
test-run: $(addsuffix .log,$(filter $(BUILD)/static-% %/test_cpp,$(TEST_BINS))) \
          $(COMPILE_CHECKS).log \
          $(foreach v,$(VARIANTS),$(BUILD)/$(v)/impl.o $(addprefix $(BUILD)/$(v)/,$(WHITE_NAMES))) \
          $(TEST_LOGS) $(EXAMPLE_CHECKS)
endif

test-full:
	@$(MAKE) --no-print-directory test FULL=1

# run-full also builds every one-policy file (ONLY_ALL=1). The links of
# mixed precisions use the tests' implementation objects.
CHECK_IMPLS = $(BUILD)/gcc-c99/impl.o $(BUILD)/gcc-float/impl.o
$(BUILD)/compile-checks/run $(BUILD)/compile-checks/run-full: $(BUILD)/compile-checks/%: tests/compile_checks.sh $(HEADER) $(CHECK_IMPLS)
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nCC="%s" ONLY_ALL=%s IMPL_DOUBLE=%s IMPL_FLOAT=%s exec sh tests/compile_checks.sh %s\n' \
	  "$(CC)" "$(if $(filter run-full,$*),1,0)" $(CHECK_IMPLS) "$(BUILD)" > $@
	@chmod +x $@

$(BUILD)/%.log: $(BUILD)/%
	@./$< > $@.tmp 2>&1; echo "exit $$?" >> $@.tmp; mv $@.tmp $@

sanitize:
	@echo "make sanitize: building the tests and the corpus replays with $(CC) -fsanitize=address,undefined"
	@$(MAKE) --no-print-directory -j$(NPROC) sanitize-build
	@sh tests/run.sh -j $(NPROC) $(SAN_BINS) $(foreach t,$(FUZZ_TARGETS),"$(BUILD)/asan/replay_$(t) tests/corpus/$(t)/*")

sanitize-build: $(SAN_BINS) $(REPLAY_BINS)

# Each target runs FUZZ_SECONDS from its seed corpus; what it adds goes to
# $(BUILD)/fuzz/corpus-<name>, a finding to $(BUILD)/fuzz/<name>-crash-*.
# The targets run side by side (one process each), FUZZ_SECONDS each;
# their summaries are printed in order once all have finished.
fuzz: $(addprefix $(BUILD)/fuzz/fuzz_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD)/fuzz/corpus-$$t; \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s, log in $(BUILD)/fuzz/$$t.log"; \
	  ( ./$(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	      -artifact_prefix=$(BUILD)/fuzz/$$t- $(BUILD)/fuzz/corpus-$$t tests/corpus/$$t \
	      > $(BUILD)/fuzz/$$t.log 2>&1; echo $$? > $(BUILD)/fuzz/$$t.status ) & \
	done; wait; status=0; \
	for t in $(FUZZ_TARGETS); do \
	  echo "fuzz_$$t:"; \
	  if [ "$$(cat $(BUILD)/fuzz/$$t.status)" != 0 ]; then tail -n 60 $(BUILD)/fuzz/$$t.log; status=1; continue; fi; \
	  grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::(number_of_executed_units|average_exec_per_sec)' $(BUILD)/fuzz/$$t.log; \
	done; exit $$status

# The gcc C99 test binaries under memcheck: no error, no leak.
valgrind: $(addprefix $(BUILD)/gcc-c99/,$(TEST_NAMES))
	@command -v valgrind >/dev/null 2>&1 || { echo "make valgrind: valgrind is not installed (Debian: apt-get install valgrind)"; exit 1; }
	@sh tests/run.sh $(foreach t,$^,"valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all $(t)")

# The demo and the reproductions (--quick) built with gcc and clang at
# -O0, -O2 and -O3 must write byte-identical CSV files.
determinism:
	@sh tests/determinism.sh $(BUILD)

# The rules of one build folder: $(1) folder, $(2) compiler, $(3) flags.
define test_variant
$(BUILD)/$(1)/impl.o: tests/impl.c $(HEADER)
	@mkdir -p $$(@D)
	$$(Q)$(2) $(3) -c $$< -o $$@
$(addprefix $(BUILD)/$(1)/,$(BLACK_NAMES)): $(BUILD)/$(1)/%: tests/%.c $(BUILD)/$(1)/impl.o $$(TEST_DEPS)
	$$(Q)$(2) $(3) $$(if $$(filter clang,$(2)),$$(TEST_OPT_CLANG),$$(TEST_OPT)) $$< $(BUILD)/$(1)/impl.o -o $$@ $$(LIBS)
$(addprefix $(BUILD)/$(1)/,$(WHITE_NAMES)): $(BUILD)/$(1)/%: tests/%.c $$(TEST_DEPS)
	@mkdir -p $$(@D)
	$$(Q)$(2) $(3) -O0 $$< -o $$@ $$(LIBS)
endef
$(eval $(call test_variant,gcc-c99,$(CC),$(C99) $(OPT)))
# gcc-c11 also checks ISDB_NO_COLD_O1 (the cold code at the file's level).
$(eval $(call test_variant,gcc-c11,$(CC),$(C11) -DISDB_NO_COLD_O1 $(OPT)))
$(eval $(call test_variant,clang-c99,clang,$(C99) $(OPT)))
$(eval $(call test_variant,clang-c11,clang,$(C11) $(OPT)))
$(eval $(call test_variant,gcc-float,$(CC),$(C11) $(OPT) $$(FLOAT_TEST)))
$(eval $(call test_variant,clang-float,clang,$(C99) $(OPT) $$(FLOAT_TEST)))
$(eval $(call test_variant,asan,$(CC),$(C99) $(SAN)))
$(eval $(call test_variant,asan-float,$(CC),$(C99) $(SAN) $$(FLOAT_TEST)))
$(SAN_BINS) $(BUILD)/asan/impl.o $(BUILD)/asan-float/impl.o: | $(BUILD)/asan/.probe

# ISDB_STATIC with every policy in one program: gcc's flow warnings
# (-Wmaybe-uninitialized) depend on the optimisation level. Linked beside
# the extern copy of the gcc-c99 tests' impl.o.
$(BUILD)/static-%/test_static_all: tests/test_static_all.c tests/test_two_tu_b.c $(BUILD)/gcc-c99/impl.o $(TEST_DEPS)
	@mkdir -p $(@D)
	$(Q)$(CC) $(C99) -$* $(FP) $(filter %.c %.o,$^) -o $@ $(LIBS)

# These two check linkage and the compile-time options, not the
# optimiser: -O0. The extern copy beside test_static.c's private one
# (D-LinUCB only) is the gcc-c99 tests' impl.o, built anyway.
$(BUILD)/gcc-c99/two_tu: tests/test_two_tu_a.c tests/test_two_tu_b.c $(TEST_DEPS)
$(BUILD)/gcc-c99/static: tests/test_static.c tests/test_two_tu_b.c $(BUILD)/gcc-c99/impl.o $(TEST_DEPS)
$(BUILD)/gcc-c99/two_tu $(BUILD)/gcc-c99/static:
	@mkdir -p $(@D)
	$(Q)$(CC) $(C99) -O0 $(FP) $(filter %.c %.o,$^) -o $@ $(LIBS)

# The C++ test. The folder says the compiler and the precision: clangxx*
# is clang++, any other $(CXX); *-float is single precision, under
# -Wdouble-promotion.
$(BUILD)/%/test_cpp: tests/test_cpp.cpp $(TEST_DEPS)
	@mkdir -p $(@D)
	$(Q)$(if $(filter clangxx%,$*),clang++,$(CXX)) -std=c++11 $(CXXWARN) $(if $(filter %-float,$*),$(FLOAT) -Wdouble-promotion) $(CXX_OPT) $< -o $@ $(LIBS)

# The sanitizer runtimes ship with gcc on most systems, but not all.
$(BUILD)/asan/.probe:
	@mkdir -p $(@D)
	@printf 'int main(void){return 0;}\n' > $(@D)/probe.c
	@$(CC) $(SAN) $(@D)/probe.c -o $(@D)/probe 2>/dev/null && $(@D)/probe || \
	  { echo "make sanitize: $(CC) cannot build with -fsanitize=address,undefined;"; \
	    echo "install its sanitizer runtimes (Debian: libasan8 libubsan1) or set CC=clang."; exit 1; }
	@touch $@

$(BUILD)/fuzz/fuzz_%: tests/fuzz_%.c $(FUZZ_DEPS) | $(BUILD)/fuzz/.probe
	clang $(C99) $(FUZZ_FLAGS) $< -o $@ $(LIBS)

$(BUILD)/fuzz/.probe:
	@command -v clang >/dev/null 2>&1 || { echo "make fuzz: needs clang with libFuzzer; clang is not installed (Debian: apt-get install clang)"; exit 1; }
	@mkdir -p $(@D)
	@printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; return (int)(n & 0); }\n' > $(@D)/probe.c
	@clang $(FUZZ_FLAGS) $(@D)/probe.c -o $(@D)/probe 2>/dev/null || \
	  { echo "make fuzz: clang cannot link -fsanitize=fuzzer,address,undefined (Debian: apt-get install libclang-rt-dev)"; exit 1; }
	@touch $@

$(BUILD)/asan/replay_%: tests/fuzz_%.c tests/fuzz_replay.c $(FUZZ_DEPS) | $(BUILD)/asan/.probe
	$(Q)$(CC) $(C99) $(SAN) $< tests/fuzz_replay.c -o $@ $(LIBS)

$(BUILD)/examples/%: examples/%.c $(HEADER)
	@mkdir -p $(@D)
	$(Q)$(CC) $(C99) $(OPT) $< -o $@ $(LIBS)

# make test's checks of the examples: $(1) folder, $(2) flags.
define example_check
$(BUILD)/$(1)/%.ok: examples/%.c $(HEADER)
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(C99) $(2) -fsyntax-only $$<
	@touch $$@
endef
$(eval $(call example_check,check,))
$(eval $(call example_check,check-float,$$(FLOAT_TEST)))

# <name>-float is bench/<name>.c in single precision. bench_select adds an
# optimised BLAS when one links (Debian: apt-get install libopenblas-dev),
# probed when it is built; the library itself never uses one.
$(BUILD)/bench/%-float: bench/%.c $(BENCH_DEPS)
	@mkdir -p $(@D)
	$(CC) $(BENCH_FLAGS) $(FLOAT) $(BLAS_FLAGS) $< -o $@ $(BLAS_LIBS) $(LIBS)
$(BUILD)/bench/%: bench/%.c $(BENCH_DEPS)
	@mkdir -p $(@D)
	$(CC) $(BENCH_FLAGS) $(BLAS_FLAGS) $< -o $@ $(BLAS_LIBS) $(LIBS)
HAVE_OPENBLAS = $(call probe,HAVE_OPENBLAS,printf 'int main(void){return 0;}' | $(CC) -x c - -lopenblas -o /dev/null 2>/dev/null && echo 1)
$(BUILD)/bench/bench_select $(BUILD)/bench/bench_select-float: BLAS_FLAGS = $(if $(HAVE_OPENBLAS),-DISDB_BENCH_BLAS)
$(BUILD)/bench/bench_select $(BUILD)/bench/bench_select-float: BLAS_LIBS = $(if $(HAVE_OPENBLAS),-lopenblas)

examples: $(EXAMPLE_BINS)

# The firmware builds of tests/embedded/ (tests/embedded/run.sh says what
# it checks, and probes for the cross tools).
embedded:
	@CC="$(CC)" WARN="$(WARN)" FP="$(FP)" sh tests/embedded/run.sh $(BUILD)/embedded

# Every bench, then the policies' steps in double and float side by side,
# then what the header costs to compile and make test from a clean tree
# (bench-compile).
bench: $(BENCH_BINS) $(BUILD)/bench/bench_policies-float $(BUILD)/bench/bench_select-float
	@set -e; for b in $(BENCH_BINS); do ./$$b; done
	./$(BUILD)/bench/bench_select-float
	./$(BUILD)/bench/bench_policies --precision ./$(BUILD)/bench/bench_policies-float
	@$(MAKE) --no-print-directory bench-compile

# The header compiled plainly, as the implementation file, one policy at
# a time and as the README's first program, beside stb_image's
# implementation file where stb_image.h is found (STB=path, else the
# system's: Debian libstb-dev) ($(CC) -O2, interleaved), then make test in
# an empty folder (bench/compile_time.c; COMPILE_ARGS=--no-make-test
# leaves it out).
bench-compile: $(BUILD)/bench/compile_time
	./$(BUILD)/bench/compile_time --cc "$(CC)" --make "$(MAKE)" --tmp $(BUILD)/bench/compile $(if $(STB),--stb "$(STB)") $(COMPILE_ARGS)

# The double soak, then the same runs in single precision (ISD left out),
# 2 10^6 rounds, also compared every 997 rounds.
soak: $(BUILD)/bench/soak $(BUILD)/bench/soak-float
	./$(BUILD)/bench/soak
	./$(BUILD)/bench/soak-float --steps 2000000 --every 997

# One process per scenario, as many at a time as there are processors.
agnostic: $(BUILD)/bench/agnostic
	@mkdir -p $(OUT)
	./$(BUILD)/bench/agnostic --out $(OUT)

# The policies on the real streams of bench/data/ (accuracy), beside Vowpal
# Wabbit's figures as issue 38 reports them; one process per (stream,
# policy). Issue 38's jumps and rotation are agnostic's jumps38 and
# rotation38.
realstream: $(BUILD)/bench/realstream
	@mkdir -p $(OUT)
	./$(BUILD)/bench/realstream --out $(OUT) --data bench/data

# Issue 38 item 2: one mechanism at a time on rotation, Elec2 and NOAA;
# one process per (problem, cell).
# Rewards rescaled (theta = s(t) theta0) on a family of periods and shapes.
rescale: $(BUILD)/bench/rescale_family
	./$(BUILD)/bench/rescale_family

smooth-drift: $(BUILD)/bench/smooth_drift
	@mkdir -p $(OUT)
	./$(BUILD)/bench/smooth_drift --out $(OUT) --data bench/data

# One process per problem instance, as many at a time as there are processors.
isd-practice: $(BUILD)/bench/isd_practice
	@mkdir -p $(OUT)
	./$(BUILD)/bench/isd_practice --out $(OUT)

# One process; POLICY=name limits it to one policy.
defaults: $(BUILD)/bench/defaults
	@mkdir -p $(OUT)
	./$(BUILD)/bench/defaults --out $(OUT) $(if $(POLICY),--policy $(POLICY))

opkb-calibration: $(BUILD)/bench/calib_opkb
	./$(BUILD)/bench/calib_opkb --jobs $(NPROC)

reproduce: $(REPRO_BINS) $(BUILD)/bench/agnostic $(BUILD)/bench/isd_practice
	@mkdir -p $(OUT)
	@set -e; for r in $(REPRO_BINS); do ./$$r --out $(OUT); done
	./$(BUILD)/bench/agnostic --out $(OUT)
	./$(BUILD)/bench/isd_practice --out $(OUT)

install:
	mkdir -p $(DESTDIR)$(PREFIX)/include
	cp $(HEADER) $(DESTDIR)$(PREFIX)/include/

clean:
	rm -rf $(BUILD)
