/*
 * ask_daemon.h - "ferryd -s ACTION" and "ferryd -x COMMAND": signal the
 * running master, as nginx -s does, finding it through its locked
 * pidfile; send a command to its control socket; or ask its stats
 * endpoint how it is doing.
 */
#ifndef FERRYD_ASK_DAEMON_H
#define FERRYD_ASK_DAEMON_H

#include <stddef.h>
#include <stdio.h>

struct conf;

/*
 * The signal for action ("reload", "stop", "quit", "reopen", "drain" or
 * "upgrade"), or -1 if there is no such action.
 */
int ask_signo(const char *action);

/*
 * Send signo to the master whose pid is in pidfile.  The pid is trusted
 * only while a live master holds the pidfile's lock.  Returns 0, or -1
 * with err set ("ferryd is not running (stale pidfile PATH)", ...).
 */
int ask_send(const char *pidfile, int signo, char *err, size_t errlen);

/*
 * "ferryd -s reload": SIGHUP to the master of pidfile, then wait (at
 * most ASK_RELOAD_WAIT_S) until it says how the reload went (the
 * outcome file, outcome.h).  0 when the new generation serves, its
 * description in what; -1 with err set when the reload failed, or the
 * master could not be signalled or did not answer.
 */
#define ASK_RELOAD_WAIT_S	120	/* lookups may take 60 s */
int ask_reload(const char *pidfile, char *what, size_t whatlen,
    char *err, size_t errlen);

/*
 * "ferryd -s upgrade": as ask_reload(), with SIGURG: the master
 * checks the binary it was started from with -t and executes it.
 */
int ask_upgrade(const char *pidfile, char *what, size_t whatlen,
    char *err, size_t errlen);

/*
 * "ferryd -x COMMAND": send one command line to the control socket at
 * path and print its answer to out, without the closing "ok".  0 when
 * it ends in "ok", 1 when in "error: ..." (printed to stderr); -1 with
 * err set when the socket cannot be reached or does not answer within
 * ASK_COMMAND_WAIT_S.
 */
#define ASK_COMMAND_WAIT_S	130	/* a reload's lookups take 60 s */
int ask_command(const char *path, const char *command, FILE *out,
    char *err, size_t errlen);

/*
 * "ferryd -s status": fetch the running daemon's status table from
 * cfg's stats_listen (GET /status.txt) and write it to out.  Returns 0,
 * or -1 with err set ("no stats_listen in FILE", "cannot connect ...").
 */
int ask_status(const struct conf *cfg, FILE *out, char *err,
    size_t errlen);

#endif
