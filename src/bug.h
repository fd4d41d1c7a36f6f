/*
 * bug.h - invariants that speak (HAProxy's BUG_ON, relayd's fatalx).
 *
 * BUG_ON(cond) states that cond never holds.  Where it does, a state
 * machine, a pool or a reference count is already corrupt and going on
 * would hurt a session silently: the process logs what broke, where, in
 * which function, and aborts (the master respawns a worker, and the core
 * or the sanitizer's report shows the rest).  Checked in every build,
 * release ones too, as HAProxy keeps its own: a check costs a compare
 * and a branch the compiler marks unlikely (bench/ab measured no
 * difference), and a corrupt state found in production is worth a
 * worker's restart.  A check that costs more (a walk over a table) is
 * an assert(), compiled out of release builds (NDEBUG).
 */
#ifndef FERRYD_BUG_H
#define FERRYD_BUG_H

#define BUG_ON(cond)							\
	(__builtin_expect(!!(cond), 0) ?				\
	    bug_report(__FILE__, __LINE__, __func__, #cond) : (void)0)

/* Log "BUG at FILE:LINE in FUNC: EXPR" to the log and stderr; abort. */
void	bug_report(const char *file, int line, const char *func,
    const char *expr) __attribute__((noreturn));

#endif
