/*
 * master_status.h - the daemon's totals, told by the master: status_file
 * (written every status_interval, in rinetd-uv's JSON or text layout),
 * stats_log_interval's line (rinetd-uv's "STATS:") and the last line at
 * the stop.
 */
#ifndef FERRYD_MASTER_STATUS_H
#define FERRYD_MASTER_STATUS_H

struct master;

/*
 * At start and after each reload, m->cfg being the configuration that
 * runs: the timers of both intervals armed anew, each due one interval
 * from now (none without status_file, nor with stats_log_interval 0).
 * A file that a reload no longer names is left as it was last written.
 */
void	master_status_start(struct master *m);

/* The stop's last line: what the workers did in the daemon's whole life. */
void	master_status_last_line(void);

#endif
