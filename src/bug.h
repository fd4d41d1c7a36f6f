/*
 * bug.h - invariants that speak (HAProxy's BUG_ON, relayd's fatalx).
 *
 * BUG_ON(cond) states that cond never holds.  Where it does, a state
 * machine, a pool or a reference count is already corrupt and going on
 * would hurt a session silently: the process logs what broke, where, in
 * which function, and aborts (the master respawns a worker, and the core
 * or the sanitizer's report shows the rest).  Checked in builds with
 * assertions (--enable-assertions, on with --enable-debug and
 * --enable-sanitizers); compiled out of release builds, where cond is
 * not even evaluated, so it must have no side effect.
 */
#ifndef FERRYD_BUG_H
#define FERRYD_BUG_H

#ifdef NDEBUG
#define BUG_ON(cond)	((void)sizeof(cond))
#else
#define BUG_ON(cond)							\
	((cond) ? bug_report(__FILE__, __LINE__, __func__, #cond) : (void)0)
#endif

/* Log "BUG at FILE:LINE in FUNC: EXPR" to the log and stderr; abort. */
void	bug_report(const char *file, int line, const char *func,
    const char *expr) __attribute__((noreturn));

#endif
