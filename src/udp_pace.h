/*
 * udp_pace.h - a backlog of datagrams sent on at a pace the receiver can
 * take.  A reader that finds a full batch waiting (it fell behind: the
 * worker was off the CPU while datagrams came in) would forward the
 * whole backlog as fast as the kernel takes it, and a receiver with the
 * default socket buffer (about 250 small datagrams) that is not running
 * at that moment loses the rest.  Instead, after each full batch the
 * reader pauses so that the backlog leaves at twice the rate the
 * datagrams came in at (UDP_PACE_SPEEDUP_PCT; measured over the last
 * window), and so is worked off in as long as it took to build: a burst
 * is at most one batch, and the gaps give the receiver the CPU to drain
 * it.  A reader that keeps up (a batch not full) never pauses; a pause
 * is never longer than UDP_PACE_GAP_MAX_NS,
 * and none is taken while the reader's own queue fills half its buffer
 * (SO_MEMINFO): that far behind, pausing would lose datagrams here.  The
 * first window starts with the reader: a backlog that comes after a
 * silence is paced too (by the 1 ms cap, in effect).
 * Linux only (timerfd, for gaps below the loop's millisecond); elsewhere
 * nothing pauses.
 */
#ifndef FERRYD_UDP_PACE_H
#define FERRYD_UDP_PACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

struct event_loop;
struct udp_pacer;

/*
 * A backlog leaves at this many hundredths of its arrival rate (cc
 * -DUDP_PACE_SPEEDUP_PCT=150 for a build to compare with bench/udp-loss).
 */
#ifndef UDP_PACE_SPEEDUP_PCT
#define UDP_PACE_SPEEDUP_PCT	200
#endif
/* The longest pause after a batch, and the shortest worth taking. */
#define UDP_PACE_GAP_MAX_NS	1000000
#define UDP_PACE_GAP_MIN_NS	20000
/* How long the arrival rate is measured over. */
#define UDP_PACE_WINDOW_MS	100

/* What one reader (a socket read in batches) counts, and its pause. */
struct udp_pace {
	TAILQ_ENTRY(udp_pace)	 paused_link;	/* while paused */
	int64_t			 due_ns;	/* read again from then on */
	int64_t			 window_ms;	/* the window's start */
	uint32_t		 count;		/* read in this window */
	uint32_t		 rate;		/* datagrams/s, last window; 0
						 * while unknown */
	void			(*resume)(void *);	/* read again */
	void			*arg;
	bool			 paused;
};

/* A worker's pacer: one timer for all its paused readers; for its life. */
struct udp_pacer *udp_pacer_new(struct event_loop *loop);

/*
 * p starts unpaused, its first window now; resume(arg) when a pause
 * ends.
 */
void	udp_pace_init(struct udp_pace *p, void (*resume)(void *), void *arg);

/*
 * The nanoseconds on the monotonic clock: what a reader notes when it
 * starts a batch, for udp_pace_batch.
 */
int64_t	udp_pace_now_ns(void);

/*
 * p read n datagrams from its socket fd in a batch of room for max that
 * it started reading at start_ns.  Returns true when p pauses: it reads
 * no more (its owner stops watching fd) until resume is called.  It does
 * not when fd's queue fills half its buffer: pausing then could lose
 * datagrams here.
 */
bool	udp_pace_batch(struct udp_pacer *pc, struct udp_pace *p, int fd,
    int n, int max, int64_t start_ns);

/* p goes away or stops reading for good: no resume will come. */
void	udp_pace_cancel(struct udp_pacer *pc, struct udp_pace *p);

#endif
