/*
 * options.h - what the command line tells the master (main.c fills it
 * in; master*.c read it).
 */
#ifndef FERRYD_OPTIONS_H
#define FERRYD_OPTIONS_H

#include <stdbool.h>

struct sslh_cmdline;

struct options {
	const char *config_path;	/* absolute */
	const char *pidfile;		/* -p, or NULL */
	int         log_level;		/* -l, or -1 */
	int         config_syntax;	/* enum conf_syntax: --rinetd, --sslh */
	bool        foreground;
	bool        inetd;		/* -i: one connection on stdin */
	const struct sslh_cmdline *sslh; /* --sslh: sslh's options, or NULL */
	int         exit_pidfile;	/* status when the pidfile cannot be
					 * had: 1, sslh's 3 with --sslh */
};

#endif
