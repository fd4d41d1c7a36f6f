/*
 * conf_rinetd_int.h - what the rinetd.conf reader's files share (not for
 * the rest of ferryd): the lines as tokens, the file gathered into
 * structs, the places lines come from, and the writer's entry point.
 * conf_rinetd.c reads rinetd 0.73's words, conf_rinetd_uv.c rinetd-uv's
 * (include among them), conf_rinetd_out.c writes the result.
 */
#ifndef FERRYD_CONF_RINETD_INT_H
#define FERRYD_CONF_RINETD_INT_H

#include <stdbool.h>
#include <stddef.h>

struct rinetd_conv;

#define MAX_TOKENS	8	/* a rule with options has 5 */
#define HOSTPORT_MAX	320	/* "[host]:port" of a rule */
#define MSG_MAX		512

#define DIGITS		"0123456789"
#define HEX_DIGITS	DIGITS "abcdefABCDEF"
#define HOST_CHARS	DIGITS "abcdefghijklmnopqrstuvwxyz" \
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ.-_"

/*
 * A place: which file (0: the main one, then each included one in the
 * order read) and which line, in one int, so that everything that
 * carries a line number carries the file with it.
 */
#define LOC_LINE_BITS	20
#define LOC(file, line)	((file) << LOC_LINE_BITS | (line))
#define LOC_FILE(loc)	((loc) >> LOC_LINE_BITS)
#define LOC_LINE(loc)	((loc) & ((1 << LOC_LINE_BITS) - 1))
#define RINETD_FILES_MAX 1024	/* files in all, main and included */
#define RINETD_LINES_MAX ((1 << LOC_LINE_BITS) - 1)	/* lines in one */
#define RINETD_INCLUDE_DEPTH_MAX 10	/* files deep, the main one
					 * included, as rinetd-uv */

enum token_kind {
	TOK_WORD,
	TOK_QUOTED,	/* "file name", quotes removed */
	TOK_BRACKET	/* [...], brackets kept: options or an IPv6 address */
};

struct token {
	char		*s;
	enum token_kind	 kind;
};

struct line {
	int		 num;		/* LOC() */
	const char	*text;		/* as written, trimmed */
	struct token	 tok[MAX_TOKENS];
	int		 ntok;
};

/* The rinetd line a setting was made from; num 0: not given. */
struct origin {
	int		 num;		/* LOC() */
	const char	*text;
};

struct pattern {
	struct origin	 from;
	const char	*text;
};

struct patterns {
	struct pattern	*v;
	size_t		 n, cap;
};

/* rinetd's UDP session timeout when a rule gives none, in seconds. */
#define RINETD_UDP_TIMEOUT	72

struct forward {
	struct origin	 from;
	char		 listen[HOSTPORT_MAX];
	char		 connect[HOSTPORT_MAX];
	char		 source[HOSTPORT_MAX];	/* "": no src= */
	char		 mode[8];		/* [mode=0660]; "": none */
	bool		 listen_v6;
	bool		 udp;			/* the bind port is /udp */
	bool		 to_udp;		/* the connect port is /udp */
	long		 timeout;		/* -1: no timeout= */
	long		 connect_timeout;	/* -1: no connect-timeout= */
	int		 keepalive;		/* -1: none, 0 off, 1 on */
	struct patterns	 allow, deny;
};

struct setting {
	struct origin	 from;
	const char	*value;
};

/* rinetd-uv's global words mapped onto a ferryd setting. */
enum uv_setting {
	UV_CONNECT_TIMEOUT,
	UV_DNS_REFRESH,
	UV_BUFFERSIZE,
	UV_LISTEN_BACKLOG,
	UV_STATUS_FILE,
	UV_STATUS_INTERVAL,
	UV_STATUS_FORMAT,
	UV_STATS_LOG_INTERVAL,
	UV_SETTINGS
};

/* A file read: its name and the copies its tokens point into. */
struct rfile {
	char		*path;		/* as found (the glob's match) */
	char		*real;		/* realpath(): the same file twice */
	char		*lines;		/* copy of the text, split into lines */
	char		*arena;		/* the tokens, NUL-terminated */
};

/* The whole file and what it includes, gathered. */
struct rconf {
	const char	*path;
	char		*err;
	size_t		 errlen;
	struct rfile	*files;		/* [0]: path itself */
	size_t		 nfiles, capfiles;
	char		*arena;		/* the current file's tokens */
	size_t		 arena_used;
	int		 depth;		/* of include */
	char		*warnings;	/* "FILE:LINE: ...\n" each */
	size_t		 nwarnings;	/* bytes */
	struct setting	 logfile, pidfile, logcommon;
	struct setting	 uv[UV_SETTINGS];
	/*
	 * The shortest [dns-refresh=N] of a rule (seconds, 0: none) and
	 * where: ferryd looks every name up again on one interval, so the
	 * global one is made no longer than this.
	 */
	long		 rule_refresh;
	struct origin	 rule_refresh_from;
	struct patterns	 allow, deny;	/* before the first rule: global */
	struct forward	*fwd;
	size_t		 nfwd, capfwd;
};

/* conf_rinetd.c */
int	 rconf_fail(struct rconf *rc, int num, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	 rconf_warn(struct rconf *rc, int num, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
bool	 rconf_all_of(const char *s, const char *set);
char	*rconf_trim(char *s);
int	 rconf_convert_text(struct rconf *rc, int file, char *lines);
int	 rconf_add_file(struct rconf *rc, const char *path, const char *real,
	    char *text);

/* conf_rinetd_uv.c */
bool	 rinetd_uv_word(const struct line *ln);
int	 rinetd_uv_directive(struct rconf *rc, const struct line *ln);
int	 rinetd_uv_option(struct rconf *rc, const struct line *ln,
	    struct forward *f, const char *key, const char *value);
bool	 rinetd_uv_looks_yaml(const char *text);

/* conf_rinetd_out.c */
int	 rinetd_emit(struct rconf *rc, struct rinetd_conv *conv);

#endif
