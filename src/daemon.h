/*
 * daemon.h - detaching from the terminal so that every error found while
 * starting still reaches whoever started ferryd.
 *
 * The process the shell started waits on a pipe until the daemon says it
 * runs (its first workers accept connections: exit 0) or why it cannot
 * (the message on stderr, and the status the daemon says, such as 1).
 * If the daemon dies before saying either, that is an error too.  So
 * `ferryd && client` works, and an init system that waits for the
 * command (systemd's Type=forking) learns the truth.
 */
#ifndef FERRYD_DAEMON_H
#define FERRYD_DAEMON_H

#include <stddef.h>

/*
 * Fork twice, start a new session, move to / and put standard input,
 * output and error on /dev/null.  Returns 0 in the daemon; the process
 * that called it never returns (it waits and exits).  Returns -1 with
 * err if a fork failed before anything was detached.
 */
int  daemon_detach(char *err, size_t errlen);
/* Tell the waiting process that the daemon runs; once, later calls and
 * calls in the foreground do nothing. */
void daemon_ready(void);
/* Tell the waiting process why the daemon cannot run, and what to exit with. */
void daemon_fail(const char *why, int status);
/* Drop the pipe without saying anything (in a forked worker). */
void daemon_forget(void);

#endif
