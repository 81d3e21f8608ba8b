/* monoclock.h - the monotonic clock in nanoseconds, for deadlines and
 * durations (never for times shown or stored: those are CLOCK_REALTIME),
 * and the thread's CPU clock for budgets of work. */
#ifndef MONOCLOCK_H
#define MONOCLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t monoclock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time of the calling thread in nanoseconds: work done, whatever the
 * load of the machine. */
static inline int64_t monoclock_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
