/*
 * conf_sslh_model.h - sslh's settings gathered (conf_sslh.c reads the
 * command line and sslh.cfg into them, conf_sslh_out.c writes them as
 * ferryd.conf).  Private to those two files.
 */
#ifndef FERRYD_CONF_SSLH_MODEL_H
#define FERRYD_CONF_SSLH_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "conf_emit.h"

/* sslh 1.20's probing timeout, Debian 12's (2.x made it 5). */
#define SSLH_TIMEOUT_DEFAULT	2
/* ... its UDP session timeout. */
#define SSLH_UDP_TIMEOUT	60
#define SSLH_NAME_MAX		32	/* a protocol's name, a route's */
#define SSLH_HOSTPORT_MAX	320

/* Where a setting comes from: a line of sslh.cfg, or the command line. */
struct sslh_origin {
	int		 line;		/* -1: the command line; 0: neither */
	const char	*text;		/* the line, or "--ssh host:22" */
};

/* A string setting; from.text NULL: not given. */
struct sslh_str {
	struct sslh_origin	 from;
	const char		*value;
};

/* A number or a flag; from.text NULL: not given. */
struct sslh_num {
	struct sslh_origin	 from;
	long			 value;
};

/* An array of strings: sni_hostnames, alpn_protocols, regex_patterns. */
struct sslh_list {
	struct sslh_origin	 from;
	const char		**v;
	int			 *line;		/* each element's */
	size_t			  n, cap;
	bool			  given;
};

/* A listen entry. */
struct sslh_listen {
	struct sslh_origin	 from;
	char			 hostport[SSLH_HOSTPORT_MAX];
	bool			 keepalive, is_udp, proxyprotocol;
};

/* A protocol: a probe and where it connects. */
struct sslh_proto {
	struct sslh_origin	 from;
	char			 name[SSLH_NAME_MAX];	/* "ssl" made "tls" */
	char			 route[SSLH_NAME_MAX + 8];
	char			 hostport[SSLH_HOSTPORT_MAX];
	bool			 keepalive, is_udp, transparent;
	bool			 quiet;			/* log_level: 0 */
	int			 proxyprotocol;		/* 0, 1 or 2; -1: not
							 * given */
	long			 udp_timeout;		/* -1: not given */
	long			 max_connections;	/* 0: no limit */
	long			 minlength;		/* 0: none */
	struct sslh_list	 sni, alpn, regex;
};

/*
 * A setting ferryd takes as it is (fork: ...): said in a comment; one
 * it skips, or does otherwise than sslh (warn), also in a warning when
 * the file is loaded, as sslh 2.x warns of what it skips.
 */
struct sslh_note {
	struct sslh_origin	 from;
	char			 text[160];
	bool			 warn;
};

struct sslh {
	const char		*path;		/* for errors: file or cmdline */
	char			*err;
	size_t			 errlen;
	const char		*hosts_dir;	/* libwrap's files */
	struct sslh_listen	*ls;
	size_t			 nls, capls;
	struct sslh_proto	*ps;
	size_t			 nps, capps;
	struct sslh_note	*notes;
	size_t			 nnotes, capnotes;
	struct sslh_str		 user, pidfile, chroot, logfile, on_timeout,
				 facility;
	struct sslh_num		 timeout, verbose, udp_max, foreground,
				 background, inetd, transparent, numeric;
	bool			 unreadable;	/* the error is sslh's 6 */
};

/* conf_sslh_notes.c */
/* "PATH:LINE: msg" or "sslh command line: OPTION: msg"; returns -1. */
int	sslh_fail(struct sslh *s, const struct sslh_origin *from,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * sslh_fail() for what sslh finds reading its settings (sslhcfg_cl_parse
 * in 2.x: the command line's form, a file that does not parse, a setting
 * of the wrong type), for which it exits SSLH_EXIT_USAGE.
 */
int	sslh_unreadable(struct sslh *s, const struct sslh_origin *from,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note at from: a comment in the converted file.  0, or -1. */
int	add_note(struct sslh *s, const struct sslh_origin *from,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note that is also a warning when the file is loaded.  0, or -1. */
int	add_warning(struct sslh *s, const struct sslh_origin *from,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * The notes that are warnings, "WHERE: text\n" each, as sslh_fail()
 * says where: "" when there are none, NULL for want of memory.
 */
char	*sslh_warnings(const struct sslh *s);

/* Write s as ferryd.conf into conv; -1 with the error in s->err. */
int	sslh_write(struct sslh *s, struct conf_conv *conv);

#endif
