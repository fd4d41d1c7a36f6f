/*
 * resolver.h - work that looks names up, done in a child so that the
 * master's loop never waits on a name server (DESIGN.md: "the master
 * never blocks").
 *
 * The child runs the work with every lookup recorded (lookup.h) and
 * sends back the answers, or the work's error.  Once they are in, the
 * parent's done callback runs with the answers replayed: doing the same
 * work again there finds every name at once, without a query.
 */
#ifndef FERRYD_RESOLVER_H
#define FERRYD_RESOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event.h"

/* In the child: 0, or -1 with the reason in err. */
typedef int resolver_work_fn(void *arg, char *err, size_t errlen);
/*
 * In the parent: err is NULL when the work succeeded (the answers are
 * replayed until this returns), else why it did not.
 */
typedef void resolver_done_fn(const char *err, void *arg);

struct resolver {
	struct event_loop	*loop;
	pid_t			 pid;		/* 0: idle */
	int			 fd;		/* the child's answer, or -1 */
	uint8_t			*buf;		/* what it said so far */
	size_t			 len, cap;
	bool			 reaped;	/* its pid is not its own now */
	int			 max_ms;
	struct event_timer	 deadline;
	resolver_done_fn	*done;
	void			*arg;
};

void	resolver_init(struct resolver *r, struct event_loop *loop);
/*
 * Run work(arg) in a child; done(err, arg) runs when it answered, or
 * failed, or after max_ms.  -1 with err set when no child could start
 * (done is not called then).
 */
int	resolver_start(struct resolver *r, resolver_work_fn *work,
    resolver_done_fn *done, void *arg, int max_ms, char *err,
    size_t errlen);
bool	resolver_busy(const struct resolver *r);
/* Forget the work under way, killing its child; done is not called. */
void	resolver_cancel(struct resolver *r);
/*
 * Whoever reaps children reaped pid: if it was the resolver's child, it
 * must not be killed any more (the pid may be reused).
 */
void	resolver_reaped(struct resolver *r, pid_t pid);

#endif
