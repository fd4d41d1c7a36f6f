/*
 * udp_pace.c - a backlog of datagrams sent on at a pace the receiver can
 * take (udp_pace.h): the arrival rate per reader, the pause after a full
 * batch, and one timerfd per worker that ends the pauses.
 *
 * Why a pause and not a smaller batch: on loopback, and for a receiver
 * that shares the CPUs, a smaller batch sent at once is no smaller a
 * burst; what lets the receiver drain its buffer is time on the CPU,
 * which the worker gives up while it waits.  Why a timerfd: at 78,000
 * datagrams a second a batch of 64 lasts 0.8 ms, below the resolution of
 * the loop's timers.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_SYS_TIMERFD_H
#include <sys/timerfd.h>
#endif

#include "event.h"
#include "udp_pace.h"

struct udp_pacer {
	struct event_loop		*loop;
	int				 tfd;		/* or -1: no pause */
	int64_t				 armed_ns;	/* or 0 */
	TAILQ_HEAD(, udp_pace)		 paused;
};

int64_t
udp_pace_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
udp_pace_init(struct udp_pace *p, void (*resume)(void *), void *arg)
{
	memset(p, 0, sizeof(*p));
	p->resume = resume;
	p->arg = arg;
	/* A backlog in the first window is measured against its silence. */
	p->window_ms = udp_pace_now_ns() / 1000000;
}

#ifdef HAVE_SYS_TIMERFD_H
/* The timer goes off at due_ns. */
static void
pacer_arm(struct udp_pacer *pc, int64_t due_ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = due_ns / 1000000000;
	its.it_value.tv_nsec = due_ns % 1000000000;
	/* Fails only with a bad descriptor or value: neither here. */
	(void)timerfd_settime(pc->tfd, TFD_TIMER_ABSTIME, &its, NULL);
	pc->armed_ns = due_ns;
}

/* The timer went off: resume every reader whose pause is over. */
static void
pacer_on_timer(struct event_loop *loop, int fd, int events, void *data)
{
	struct udp_pacer	*pc = data;
	struct udp_pace		*p, *next;
	TAILQ_HEAD(, udp_pace)	 due;
	uint64_t		 expired;
	int64_t			 now = udp_pace_now_ns(), first = 0;

	(void)loop;
	(void)events;
	(void)read(fd, &expired, sizeof(expired));	/* EAGAIN: spurious */
	TAILQ_INIT(&due);
	for (p = TAILQ_FIRST(&pc->paused); p != NULL; p = next) {
		next = TAILQ_NEXT(p, paused_link);
		if (p->due_ns <= now) {
			TAILQ_REMOVE(&pc->paused, p, paused_link);
			TAILQ_INSERT_TAIL(&due, p, paused_link);
		} else if (first == 0 || p->due_ns < first)
			first = p->due_ns;
	}
	/* Gone off, the timer is disarmed: arm it only for what waits. */
	pc->armed_ns = 0;
	if (first != 0)
		pacer_arm(pc, first);
	/* A reader resumed may pause again, into pc->paused. */
	while ((p = TAILQ_FIRST(&due)) != NULL) {
		TAILQ_REMOVE(&due, p, paused_link);
		p->paused = false;
		p->resume(p->arg);
	}
}
#endif

struct udp_pacer *
udp_pacer_new(struct event_loop *loop)
{
	struct udp_pacer *pc = calloc(1, sizeof(*pc));

	if (pc == NULL)
		return NULL;
	pc->loop = loop;
	pc->tfd = -1;
	TAILQ_INIT(&pc->paused);
#ifdef HAVE_SYS_TIMERFD_H
	/* Without one, nothing pauses: the backlog leaves as it did. */
	pc->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (pc->tfd != -1 && event_set(loop, pc->tfd, EV_READ, pacer_on_timer,
	    pc) == -1) {
		close(pc->tfd);
		pc->tfd = -1;
	}
#endif
	return pc;
}

/*
 * Whether fd's queue holds more than half its buffer: a backlog that
 * pausing could turn into datagrams lost here, which is worse than a
 * burst the receiver may yet take.  (A pause of 1 ms at 78,000 datagrams
 * a second queues 62 kB more: within the other half of the default
 * 208 kB.)
 */
static bool
queue_deep(int fd)
{
#ifdef SO_MEMINFO
	/* The first two of SK_MEMINFO_*: the queue's bytes, the buffer's. */
	uint32_t	mem[2];
	socklen_t	len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
	    len == sizeof(mem))
		return mem[0] > mem[1] / 2;
#else
	(void)fd;
#endif
	return false;
}

bool
udp_pace_batch(struct udp_pacer *pc, struct udp_pace *p, int fd, int n,
    int max, int64_t start_ns)
{
	int64_t elapsed, gap, now;

	p->count += (uint32_t)n;
	elapsed = start_ns / 1000000 - p->window_ms;
	if (elapsed >= UDP_PACE_WINDOW_MS) {
		p->rate = (uint32_t)((uint64_t)p->count * 1000 /
		    (uint64_t)elapsed);
		p->count = 0;
		p->window_ms = start_ns / 1000000;
	}
	if (pc->tfd == -1 || n < max || p->rate == 0)
		return false;		/* keeping up, or nothing known */
	gap = (int64_t)((uint64_t)n * 1000000000 * 100 /
	    ((uint64_t)UDP_PACE_SPEEDUP_PCT * p->rate));
	if (gap > UDP_PACE_GAP_MAX_NS)
		gap = UDP_PACE_GAP_MAX_NS;
	now = udp_pace_now_ns();
	if (start_ns + gap - now < UDP_PACE_GAP_MIN_NS || queue_deep(fd))
		return false;		/* the batch took that long; too far behind */
	p->due_ns = start_ns + gap;
	p->paused = true;
	TAILQ_INSERT_TAIL(&pc->paused, p, paused_link);
#ifdef HAVE_SYS_TIMERFD_H
	if (pc->armed_ns == 0 || p->due_ns < pc->armed_ns)
		pacer_arm(pc, p->due_ns);
#endif
	return true;
}

void
udp_pace_cancel(struct udp_pacer *pc, struct udp_pace *p)
{
	if (!p->paused)
		return;
	TAILQ_REMOVE(&pc->paused, p, paused_link);
	p->paused = false;
}
