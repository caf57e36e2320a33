/* fork_jobs.h - the benchmarks' parallel runner (POSIX): n independent
   jobs, `jobs` at a time, each in a child process. A job computes its
   outcome into the memory `result` names for it (the child's copy), the
   child sends those bytes through a pipe, and the parent reads them into
   the same place. Include after the POSIX feature macro and the system
   headers <sys/types.h>, <sys/wait.h> and <unistd.h>. */
#ifndef FORK_JOBS_H
#define FORK_JOBS_H

#include <stdlib.h>

typedef struct fork_jobs_spec {
    int n;            /* jobs 0 .. n - 1 */
    const int *order; /* the order they start in (NULL: 0 .. n - 1) */
    const int *use;   /* use[i] == 0 skips job i (NULL: run all) */
    int (*run)(int job, void *ctx);                  /* 0 on success */
    void *(*result)(int job, size_t *size, void *ctx); /* where job's outcome goes */
    void (*done)(int job, void *ctx);                /* progress, may be NULL */
    void *ctx;
} fork_jobs_spec;

/* 0 when every job ran and reported its whole outcome. */
static int fork_jobs(const fork_jobs_spec *sp, int jobs) {
    pid_t *pid = (pid_t *)calloc((size_t)sp->n, sizeof *pid);
    int *fd = (int *)calloc((size_t)sp->n, sizeof *fd);
    int next = 0, running = 0, failed = 0, i;
    if (!pid || !fd) {
        free(pid);
        free(fd);
        return 1;
    }
    while (next < sp->n || running > 0) {
        int status;
        pid_t w;
        while (running < jobs && next < sp->n) {
            int p[2], job = sp->order ? sp->order[next] : next;
            ++next;
            if (sp->use && !sp->use[job]) continue;
            if (pipe(p) != 0 || (pid[job] = fork()) < 0) {
                failed = 1;
                next = sp->n;
                break;
            }
            if (pid[job] == 0) {
                size_t size;
                const char *out = (const char *)sp->result(job, &size, sp->ctx);
                close(p[0]);
                if (sp->run(job, sp->ctx) != 0) _exit(1);
                if (write(p[1], out, size) != (ssize_t)size) _exit(1);
                _exit(0);
            }
            close(p[1]);
            fd[job] = p[0];
            ++running;
        }
        if (running == 0) break;
        if ((w = wait(&status)) < 0) {
            failed = 1;
            break;
        }
        for (i = 0; i < sp->n; ++i)
            if (pid[i] > 0 && pid[i] == w) {
                size_t size, got = 0;
                char *dst = (char *)sp->result(i, &size, sp->ctx);
                while (got < size) {
                    ssize_t r = read(fd[i], dst + got, size - got);
                    if (r <= 0) break;
                    got += (size_t)r;
                }
                close(fd[i]);
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != size) failed = 1;
                if (sp->done) sp->done(i, sp->ctx);
                --running;
            }
    }
    free(pid);
    free(fd);
    return failed;
}

#endif
