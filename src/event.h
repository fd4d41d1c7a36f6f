/*
 * event.h - a small event loop: file descriptor readiness and timers.
 *
 * Modelled on Redis' ae: the loop keeps a table indexed by file descriptor
 * and a backend per kernel mechanism (event_epoll.c, event_poll.c)
 * implements the same four operations.  Events are level-triggered, so a
 * handler may do as little as it likes per call and be called again;
 * except for descriptors watched with EV_EDGE (below).
 */
#ifndef FERRYD_EVENT_H
#define FERRYD_EVENT_H

#include <stdint.h>

#include "event_timer.h"

#define EV_READ   0x01
#define EV_WRITE  0x02
/*
 * In a mask: where the backend can (epoll), register fd once for reading
 * and writing, edge-triggered, so that changing the mask later costs no
 * syscall.  The handler then hears of every change of readiness whatever
 * the mask says, once, and must remember it: fd stays readable (writable)
 * until a read (write) returns EAGAIN or comes back short.  On backends
 * without edges the mask is watched level-triggered as usual, and a
 * handler that keeps readiness that way works the same.
 */
#define EV_EDGE   0x04
/* In events: the peer sent FIN, so everything it sent is already queued. */
#define EV_RDHUP  0x08
/*
 * In events: an error, hangup or urgent mark is pending, so a short read
 * no longer proves the socket empty; read on until EAGAIN.
 */
#define EV_EXCEPT 0x10
/* In events, with EV_EXCEPT: TCP urgent data is pending (POLLPRI). */
#define EV_URGENT 0x20
/* In events, with EV_EXCEPT: the socket has a pending error (POLLERR). */
#define EV_ERROR  0x40

struct event_loop;

/*
 * Called with the events that are ready on fd: EV_READ, EV_WRITE, and
 * EV_RDHUP or EV_EXCEPT with them; 0 when called for event_defer.
 */
typedef void event_handler(struct event_loop *loop, int fd, int events,
    void *data);

/*
 * The backend names a configuration may give, "auto" first, NULL at the
 * end: every backend ferryd knows, also those this system lacks.
 */
const char *const *event_backend_names(void);
/* Whether backend name (or "auto") can run on this system. */
bool event_backend_available(const char *name);

/*
 * Create a loop for file descriptors below max_fds using backend "auto"
 * or one of event_backend_names().  Returns NULL with the reason in err.
 */
struct event_loop *event_loop_new(const char *backend, int max_fds,
    char *err, size_t errlen);
void        event_loop_free(struct event_loop *loop);
const char *event_loop_backend(const struct event_loop *loop);
/* Whether EV_EDGE descriptors are edge-triggered (epoll), or level. */
bool        event_loop_edge(const struct event_loop *loop);

/*
 * Watch fd for mask (EV_READ, EV_WRITE, both), calling handler.  A mask of
 * 0 stops watching; do that before closing fd.  Setting the mask fd
 * already has costs nothing.  Returns -1 with errno set on failure.
 */
int  event_set(struct event_loop *loop, int fd, int mask,
    event_handler *handler, void *data);
/*
 * Stop watching fd because it is about to be closed: the same as a mask
 * of 0, but where closing ends the kernel's interest it costs no syscall.
 */
void event_close(struct event_loop *loop, int fd);
/* Change only the mask of a watched fd (handler and data stay). */
int  event_mask(struct event_loop *loop, int fd, int mask);
int  event_get_mask(const struct event_loop *loop, int fd);
/*
 * Call fd's handler again, with events 0, in the next round and without
 * waiting: for a handler that stopped early so that others get a turn.
 */
void event_defer(struct event_loop *loop, int fd);

/*
 * Wait at most until the timer is due (or forever without one), run the
 * handlers of ready descriptors, then the timer callback if due.
 * Returns the number of handlers run, or -1 on error (errno set; EINTR is
 * not an error, so that callers can check their signal flags).
 */
int  event_loop_run_once(struct event_loop *loop);

/* Milliseconds on the monotonic clock, as of the last wakeup. */
int64_t event_now(const struct event_loop *loop);

/*
 * Timers embedded in the objects they time (event_timer.h): arm or move t
 * to due (event_now clock), or cancel it.  Due timers run after the
 * ready descriptors of a round, in order of deadline.  Arming fails (-1,
 * ENOMEM) only when the loop's timer array cannot grow.
 */
int  event_timer_arm(struct event_loop *loop, struct event_timer *t,
    int64_t due);
void event_timer_cancel(struct event_loop *loop, struct event_timer *t);

#endif
