/*
 * conf_sslh.h - sslh as ferryd: sslh's command line (as Debian's
 * /etc/default/sslh gives it) and the sslh.cfg it names with -F, read
 * unchanged and converted to the equivalent ferryd.conf text (a rule per
 * listen address, a route per protocol), with a map from the lines of
 * that text back to the lines of sslh.cfg.
 */
#ifndef FERRYD_CONF_SSLH_H
#define FERRYD_CONF_SSLH_H

#include <stdbool.h>
#include <stddef.h>

#include "conf_emit.h"

/* What errors and comments call settings given on the command line. */
#define SSLH_CMDLINE	"sslh command line"

/*
 * sslh's exit statuses (sslh-main.c, common.c of sslh 2.x), which ferryd
 * --sslh exits with where sslh would.
 */
#define SSLH_EXIT_FAILURE	1	/* anything else */
#define SSLH_EXIT_USER		2	/* user names no user */
#define SSLH_EXIT_PIDFILE	3	/* sslh 1.20's; 2.x goes on */
#define SSLH_EXIT_RESOLVE	4	/* an address that does not resolve */
#define SSLH_EXIT_USAGE		6	/* the command line, or a file that
					 * does not read as sslh.cfg */

/* One option of sslh's command line, as given: "--ssh" "host:22". */
struct sslh_opt {
	char	*name;		/* without its dashes */
	char	*value;		/* NULL for a flag */
	char	*shown;		/* "--ssh host:22", for comments and errors */
};

/* sslh's command line, parsed; every string a copy of its own. */
struct sslh_cmdline {
	char		*config;	/* -F: the file (absolute), or NULL */
	struct sslh_opt	*opts;		/* the others, in order */
	size_t		 nopts;
	bool		 convert;	/* --convert: print, do not run */
	bool		 version;	/* -V: say the version */
	const char	*hosts_dir;	/* libwrap's files; NULL: /etc */
	const char	*stdin_address;	/* HOST:PORT standard input, a TCP
					 * connection, came to (sslh -i's
					 * listen), or NULL */
};

/* How sslh would run: in the foreground; one connection on stdin (-i). */
struct sslh_run {
	bool	foreground;
	bool	inetd;
};

/*
 * Parse argv[0..argc) (what follows --sslh) into cl.  Returns 0, or -1
 * with "sslh command line: problem" in err.
 */
int	sslh_cmdline_parse(int argc, char *const argv[],
	    struct sslh_cmdline *cl, char *err, size_t errlen);
void	sslh_cmdline_free(struct sslh_cmdline *cl);

/* The name errors give the converted text: the -F file, or SSLH_CMDLINE. */
const char *sslh_source(const struct sslh_cmdline *cl);

/*
 * Convert sslh's settings (cl and the file it names) into out, and say
 * how sslh would run (run).  The result carries a
 * header comment and each sslh setting as a comment above the ferryd
 * settings made from it (what ferryd --sslh ... --convert prints).  Host
 * names are left for the loader.  Returns 0, or the status sslh exits
 * with for the problem (SSLH_EXIT_USAGE or SSLH_EXIT_FAILURE) with
 * "FILE:LINE: problem" (or "sslh command line: problem") in err.
 */
int	sslh_convert(const struct sslh_cmdline *cl, struct conf_conv *out,
	    struct sslh_run *run, char *err, size_t errlen);

#endif
