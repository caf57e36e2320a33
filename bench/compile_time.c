/* compile_time.c - what isdbandit.h costs to compile, and what `make test`
   costs from a clean tree (`make bench` runs it; issue 25, items 4 and 5).

   Contenders, each a one-line file compiled with CC -std=c99 -O2 -c (what
   a user writes; no project flags): a plain #include of the header (the
   stb-style reference: what every file that uses the library pays), the
   implementation file (ISDB_IMPLEMENTATION), the same with ISDB_NO_SIM,
   one file per policy with ISDB_ONLY_<POLICY>, the README's first
   program (its first C block: ISDB_ONLY_ADAPTIVE, the cheap path), and
   stb_image's implementation file (STB_IMAGE_IMPLEMENTATION) where its
   header is found (--stb PATH, else /usr/include/stb/stb_image.h and
   the usual places; Debian's libstb-dev), the yardstick of issue 37:
   the implementation file within 1.6x of it, fastest of the rounds
   each (min), as the issue measures. The contenders run
   interleaved, --reps rounds; a figure is the CPU time (user + system,
   getrusage of the child) of one compile, min and median over the
   rounds; claims use the median. The machine is named from
   /proc/cpuinfo and /etc/os-release where they exist.

   Then, unless --no-make-test, `MAKE test BUILD=<dir>` from an empty
   <dir> (every compile and every test program, as `make clean && make
   test` runs them): wall time and CPU time of the whole tree, and the
   load average before it starts (the target is for idle cores).

   Usage: compile_time [--cc CC] [--make MAKE] [--reps N] [--tmp DIR]
                       [--stb PATH] [--no-make-test] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_REPS 15

static double cpu_children(void) {
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs argv (output to /dev/null unless quiet is 0); returns its exit
   status, and its CPU and wall seconds. */
static int run(char *const argv[], int quiet, double *cpu, double *wall) {
    double c0 = cpu_children(), w0 = now();
    int status = -1;
    pid_t pid;
    fflush(stdout); /* or the child's freopen writes what is buffered again */
    pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (quiet && !freopen("/dev/null", "w", stdout)) _exit(127);
        unsetenv("MAKEFLAGS");
        unsetenv("MFLAGS");
        unsetenv("MAKELEVEL");
        execvp(argv[0], argv);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) != pid) return -1;
    *cpu = cpu_children() - c0;
    *wall = now() - w0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
    double s[MAX_REPS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static double minimum(const double *v, int n) {
    double m = v[0];
    int i;
    for (i = 1; i < n; ++i)
        if (v[i] < m) m = v[i];
    return m;
}

/* "model name" of /proc/cpuinfo, cores, the compiler's first line and
   PRETTY_NAME of /etc/os-release. */
static void machine(const char *cc, char *out, size_t cap) {
    char cpu[128] = "unknown CPU", os[128] = "", ccv[128] = "", line[512];
    FILE *f;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if ((f = fopen("/proc/cpuinfo", "r"))) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
                snprintf(cpu, sizeof cpu, "%.120s", strchr(line, ':') + 2);
                cpu[strcspn(cpu, "\n")] = 0;
                break;
            }
        fclose(f);
    }
    if ((f = fopen("/etc/os-release", "r"))) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
                snprintf(os, sizeof os, "%.120s", line + 12);
                os[strcspn(os, "\n")] = 0;
                if (os[0] == '"') memmove(os, os + 1, strlen(os));
                if (*os && os[strlen(os) - 1] == '"') os[strlen(os) - 1] = 0;
                break;
            }
        fclose(f);
    }
    snprintf(line, sizeof line, "%s --version 2>/dev/null", cc);
    if ((f = popen(line, "r"))) {
        if (fgets(ccv, sizeof ccv, f)) ccv[strcspn(ccv, "\n")] = 0;
        pclose(f);
    }
    snprintf(out, cap, "%ld-core %s, %s, %s", cores, cpu, *ccv ? ccv : cc, *os ? os : "unknown OS");
}

static double loadavg(void) {
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

typedef struct contender {
    const char *name;
    const char *text; /* the file's lines before the #include */
    double cpu[MAX_REPS];
} contender;

static const char *policies[] = {"LINUCB", "SWUCB", "DLINUCB", "LINTS", "BOB",
                                 "ADAPTIVE", "ISD", "OPKB", "OAM", "TRACEUCB"};
#define N_POL 10

/* The first ```c block after README.md's "## A first program" into f;
   0 when there is none. */
static int readme_first_program(FILE *f) {
    char line[1024];
    int section = 0, inside = 0, lines = 0;
    FILE *r = fopen("README.md", "r");
    if (!r) return 0;
    while (fgets(line, sizeof line, r)) {
        if (!section) {
            section = strncmp(line, "## A first program", 18) == 0;
        } else if (!inside) {
            inside = strcmp(line, "```c\n") == 0;
        } else if (strcmp(line, "```\n") == 0) {
            break;
        } else {
            fputs(line, f);
            ++lines;
        }
    }
    fclose(r);
    return lines > 0;
}

static const char *find_stb(const char *given) {
    static const char *places[] = {"/usr/include/stb/stb_image.h", "/usr/local/include/stb/stb_image.h",
                                   "/usr/include/stb_image.h", "/usr/local/include/stb_image.h"};
    size_t i;
    if (given) return access(given, R_OK) == 0 ? given : NULL;
    for (i = 0; i < sizeof places / sizeof *places; ++i)
        if (access(places[i], R_OK) == 0) return places[i];
    return NULL;
}

int main(int argc, char **argv) {
    const char *cc = "cc", *make = "make", *tmp = "build/bench/compile", *stb_given = NULL, *stb;
    int reps = 3, make_test = 1, i, r, k, n = 0, failed = 0, first_k = -1, stb_k = -1;
    double load0;
    contender c[5 + N_POL];
    char only_text[N_POL][96], cwd[1024], mach[512], path[1200], obj[1200];
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--cc") && i + 1 < argc)
            cc = argv[++i];
        else if (!strcmp(argv[i], "--make") && i + 1 < argc)
            make = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tmp") && i + 1 < argc)
            tmp = argv[++i];
        else if (!strcmp(argv[i], "--stb") && i + 1 < argc)
            stb_given = argv[++i];
        else if (!strcmp(argv[i], "--no-make-test"))
            make_test = 0;
        else {
            fprintf(stderr, "usage: %s [--cc CC] [--make MAKE] [--reps N] [--tmp DIR] [--stb PATH] [--no-make-test]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > MAX_REPS) reps = MAX_REPS;
    if (!getcwd(cwd, sizeof cwd)) return 1;
    machine(cc, mach, sizeof mach);
    printf("compile_time: %s -std=c99 -O2 -c, %d interleaved rounds, CPU seconds (user + system) per compile\n", cc,
           reps);
    printf("machine: %s\n", mach);

    c[n].name = "plain #include (no implementation)";
    c[n++].text = "";
    c[n].name = "implementation file";
    c[n++].text = "#define ISDB_IMPLEMENTATION\n";
    c[n].name = "implementation, ISDB_NO_SIM";
    c[n++].text = "#define ISDB_IMPLEMENTATION\n#define ISDB_NO_SIM\n";
    for (k = 0; k < N_POL; ++k) {
        snprintf(only_text[k], sizeof only_text[k], "#define ISDB_IMPLEMENTATION\n#define ISDB_ONLY_%s\n", policies[k]);
        c[n].name = policies[k];
        c[n++].text = only_text[k];
    }
    stb = find_stb(stb_given);
    first_k = n;
    c[n].name = "README's first program";
    c[n++].text = NULL;
    if (stb) {
        stb_k = n;
        c[n].name = "stb_image implementation file";
        c[n++].text = "#define STB_IMAGE_IMPLEMENTATION\n";
    } else {
        printf("compile_time: no stb_image.h (--stb PATH; Debian: libstb-dev), so the ratio to it is not measured\n");
    }
    snprintf(path, sizeof path, "mkdir -p '%s'", tmp);
    if (system(path) != 0) return 1;
    for (k = 0; k < n; ++k) {
        FILE *f;
        snprintf(path, sizeof path, "%s/c%d.c", tmp, k);
        if (!(f = fopen(path, "w"))) return 1;
        if (k == first_k) {
            /* #include "isdbandit.h" beside the copy, as the README says */
            if (!readme_first_program(f)) {
                printf("compile_time: README.md has no first program\n");
                return 1;
            }
        } else if (k == stb_k) {
            fprintf(f, "%s#include \"%s\"\n", c[k].text, stb);
        } else {
            fprintf(f, "%s#include \"%s/isdbandit.h\"\n", c[k].text, cwd);
        }
        if (k == 0) fprintf(f, "int main(void) { return isdb_version() == 0; }\n");
        fclose(f);
    }
    load0 = loadavg();
    for (r = 0; r < reps; ++r)
        for (k = 0; k < n; ++k) {
            double wall;
            char *args[9];
            snprintf(path, sizeof path, "%s/c%d.c", tmp, k);
            snprintf(obj, sizeof obj, "%s/c%d.o", tmp, k);
            char include[1100];
            snprintf(include, sizeof include, "-I%s", cwd);
            args[0] = (char *)cc;
            args[1] = (char *)"-std=c99";
            args[2] = (char *)"-O2";
            args[3] = (char *)"-c";
            args[4] = path;
            args[5] = (char *)"-o";
            args[6] = obj;
            args[7] = k == first_k ? include : NULL;
            args[8] = NULL;
            if (run(args, 1, &c[k].cpu[r], &wall) != 0) {
                printf("compile_time: %s failed to compile\n", c[k].name);
                return 1;
            }
        }
    printf("%-40s %8s %8s\n", "file", "min s", "median s");
    for (k = 0; k < n; ++k) {
        char name[64];
        snprintf(name, sizeof name, "ISDB_ONLY_%s", k < 3 || k >= first_k ? "" : policies[k - 3]);
        printf("%-40s %8.2f %8.2f\n", k < 3 || k >= first_k ? c[k].name : name, minimum(c[k].cpu, reps),
               median(c[k].cpu, reps));
    }
    {
        double impl = median(c[1].cpu, reps), plain = median(c[0].cpu, reps), lin = median(c[3].cpu, reps),
               worst = 0;
        int worst_k = 3;
        for (k = 3; k < first_k; ++k)
            if (median(c[k].cpu, reps) > worst) {
                worst = median(c[k].cpu, reps);
                worst_k = k;
            }
        printf("claim: compile: implementation file %.1f s CPU at %s -O2 (target <= 5) %s; a plain #include %.2f s; "
               "load average %.2f before (%s)\n",
               impl, cc, impl <= 5 ? "holds" : "fails", plain, load0, mach);
        printf("claim: compile: one-policy build (ISDB_ONLY_LINUCB) %.1f s CPU at %s -O2 (target <= 2) %s; the "
               "largest, ISDB_ONLY_%s (with what it needs), %.1f s; load average %.2f before (%s)\n",
               lin, cc, lin <= 2 ? "holds" : "fails", policies[worst_k - 3], worst, load0, mach);
        if (stb_k >= 0) {
            double ratio = minimum(c[1].cpu, reps) / minimum(c[stb_k].cpu, reps), adaptive = 0;
            for (k = 0; k < N_POL; ++k)
                if (!strcmp(policies[k], "ADAPTIVE")) adaptive = minimum(c[3 + k].cpu, reps);
            printf("claim: compile: implementation file %.2f s CPU, stb_image's %.2f s, %.2fx (target <= 1.6x, "
                   "fastest of %d interleaved rounds each) %s; ISDB_ONLY_ADAPTIVE %.2f s (%.2fx), the README's "
                   "first program %.2f s (%.2fx) (%s)\n",
                   minimum(c[1].cpu, reps), minimum(c[stb_k].cpu, reps), ratio, reps, ratio <= 1.6 ? "holds" : "fails",
                   adaptive, adaptive / minimum(c[stb_k].cpu, reps),
                   minimum(c[first_k].cpu, reps), minimum(c[first_k].cpu, reps) / minimum(c[stb_k].cpu, reps), mach);
        }
        if (load0 > 1.5)
            printf("compile_time: the cores were busy (load average %.2f on %ld): CPU seconds run above an idle "
                   "machine's\n",
                   load0, sysconf(_SC_NPROCESSORS_ONLN));
    }
    if (make_test) {
        double cpu, wall, load = loadavg();
        char build[1200], *args[5];
        snprintf(build, sizeof build, "BUILD=%s/make-test", tmp);
        snprintf(path, sizeof path, "rm -rf '%s/make-test'", tmp);
        if (system(path) != 0) return 1;
        args[0] = (char *)make;
        args[1] = (char *)"--no-print-directory";
        args[2] = (char *)"test";
        args[3] = build;
        args[4] = NULL;
        printf("compile_time: %s test %s from an empty build folder (load average before: %.2f)\n", make, build,
               load);
        fflush(stdout);
        failed = run(args, 1, &cpu, &wall) != 0;
        printf("claim: make test: %.0f s wall, %.0f s CPU from a clean tree (target <= 60 s wall on 2 idle cores) "
               "%s%s; load average %.2f before it (%s)\n",
               wall, cpu, wall <= 60 && !failed ? "holds" : "fails", failed ? " (make test failed)" : "", load,
               mach);
    }
    return failed;
}
