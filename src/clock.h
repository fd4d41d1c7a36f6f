/*
 * clock.h - the clock ferryd measures every interval with: monotonic
 * (never set back), in milliseconds.  The event loop caches it per
 * wakeup (event_now); the master, the log's rate limits and the
 * workers' heartbeats, which the master compares with its own reading,
 * read it here.
 */
#ifndef FERRYD_CLOCK_H
#define FERRYD_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t
clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The same clock in microseconds. */
static inline int64_t
clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#endif
