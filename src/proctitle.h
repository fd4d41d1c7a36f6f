/*
 * proctitle.h - what ps(1) shows for a process: "ferryd: master process",
 * "ferryd: worker 2 (gen 5)", by overwriting the argument area.
 */
#ifndef FERRYD_PROCTITLE_H
#define FERRYD_PROCTITLE_H

/* Call once from main(), before anything reads argv or environ again. */
void proctitle_init(int argc, char **argv);
void proctitle_set(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/*
 * The environment's copy proctitle_init() made, held for the process's
 * life.  glibc's clean-up at exit (__libc_freeres, which valgrind runs)
 * sets environ to NULL: a copy only environ pointed to would then be
 * reported as lost.  Not static, so that the compiler keeps the pointer.
 */
extern char **proctitle_environ;

#endif
