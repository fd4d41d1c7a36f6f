/*
 * conf_schema.h - what the conf_*.c files share: the loader's state, key
 * tables and the engine that applies them, the limits of the values.
 * Not for the rest of the daemon, which sees conf.h, rule.h and
 * upstream.h.
 */
#ifndef FERRYD_CONF_SCHEMA_H
#define FERRYD_CONF_SCHEMA_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <libconfig.h>

/* What the parsers fill in; the engine itself reads none of them. */
struct conf;
struct rule;
struct source_pool;
struct upstream;

struct conf_text;

/* Limits, in the unit the structs store: bytes or milliseconds. */
#define BUFFER_SIZE_MIN		1024
#define BUFFER_SIZE_MAX		67108864
#define CONNECT_TIMEOUT_MIN	1		/* rounds to 0 ms otherwise */
#define CONNECT_TIMEOUT_MAX	3600000		/* one hour */
/*
 * A year would be the natural cap for idle_timeout, but durations are
 * stored as int milliseconds, which end after about 24.8 days.
 */
#define IDLE_TIMEOUT_MAX	INT_MAX
#define SHUTDOWN_TIMEOUT_MAX	86400000	/* one day */
/* Below a second the master's once-a-second look would kill idle workers. */
#define WATCHDOG_TIMEOUT_MIN	1000		/* unless 0: off */
#define WATCHDOG_TIMEOUT_MAX	3600000		/* one hour */
#define BACKLOG_MAX		65535
#define MAX_CONNECTIONS_MAX	1000000
/* New connections per second from one client: counted in 16 bits. */
#define CONNECTION_RATE_MAX	65535
#define TCP_FASTOPEN_MAX	65535	/* a listener's TFO queue */
#define DEFER_ACCEPT_MAX	3600	/* seconds */
#define SESSION_TIMEOUT_MIN	1000		/* a second */
#define SESSION_TIMEOUT_MAX	86400000	/* one day */
#define MAX_SESSIONS_MAX	10000000
#define RESOLVE_INTERVAL_MAX	86400000	/* a day */
#define STATUS_INTERVAL_MIN	1000		/* rinetd-uv's range */
#define STATUS_INTERVAL_MAX	86400000
#define PROXY_TIMEOUT_MIN	100		/* ms */
#define PROXY_TIMEOUT_MAX	3600000
#define SLOW_START_MAX		3600000		/* an hour */
#define QUEUE_TIMEOUT_MAX	3600000		/* an hour */
#define PEEK_TIMEOUT_MIN	100		/* ms */
#define PEEK_TIMEOUT_MAX	3600000

/* A rule timeout that was not written and is inherited from the top level. */
#define UNSET			(-1)
#define SOCKBUF_MAX		(64 * 1024 * 1024)

/* What every parsing function needs to report a problem. */
/* What a load failed on, for a caller that exits by it (ferryd --sslh). */
enum conf_failure {
	CONF_FAILED = 0,	/* anything else */
	CONF_FAILED_ADDRESS,	/* a listen or connect address: no such host */
	CONF_FAILED_USER,	/* user names no user */
	CONF_FAILED_PIDFILE	/* pidfile cannot be */
};

struct conf_loader {
	const char	*path;
	char		*err;
	size_t		 errlen;
	const struct conf_text *text;	/* what libconfig read, line origins */
	bool		 syntax_error;	/* libconfig could not parse the text */
	int		 failure;	/* enum conf_failure, once it failed */
};

/*
 * Load ld->text (what libconfig reads, and where its lines come from)
 * as a configuration read in syntax: the loader's checks, for the
 * converters of foreign formats (conf_sslh.c).  keep: as conf.c's load().
 */
struct conf *conf_load_text(struct conf_loader *ld, int syntax,
    struct conf_text *keep);

struct conf_key;

/* Checks setting s and stores it in the struct at base; 0 or -1. */
typedef int conf_key_parser(struct conf_loader *, const struct conf_key *,
    const config_setting_t *, void *);

/* Where ferryd -T writes the effective configuration (conf_show.c). */
struct conf_show {
	FILE			*out;
	int			 depth;		/* indentation, in tabs */
	const struct conf	*cfg;		/* the whole, being shown */
};

/* Writes the value key k holds in the struct at base as a setting. */
typedef void conf_key_show(struct conf_show *, const struct conf_key *,
    const void *);

/*
 * One known setting: how to parse it, its limits, where it is stored,
 * and how ferryd -T writes it back.  show NULL: the parser's own writer
 * (conf_key_shower()); names: a choice's names, in its enum's order,
 * which conf_parse_choice() reads and -T writes.  A new key with a
 * parser of its own and no show fails test_config (every key shown).
 */
/*
 * Key tables leave a key's last fields out when they are NULL (most
 * keys'): the files that hold the tables, which alone include this
 * header, do not want -Wextra's warning about it.
 */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

struct conf_key {
	const char		*name;
	conf_key_parser		*parse;
	long long		 min, max;
	size_t			 offset;
	const char *const	*names;
	conf_key_show		*show;
};

#define CONF_NKEYS(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The keys of one group of settings.  where: "in a rule"; only: where
 * they alone may be set ("inside a rule"); other: the keys of the other
 * places (the top level, a rule, a backend), to tell a misplaced setting
 * from an unknown one and say where it belongs.
 */
struct conf_keys {
	const struct conf_key	*v;
	size_t			 n;
	const char		*where, *only;
	const struct conf_keys	*other[2];
	/* -T: whether key k means anything in the struct at base (NULL: all). */
	bool			(*applies)(const void *base,
				    const struct conf_key *k);
};

extern const struct conf_keys conf_global_keys;	/* conf.c */
extern const struct conf_keys conf_rule_keys;	/* conf_rule.c */
extern const struct conf_keys conf_item_keys;	/* conf_upstream.c */
extern const struct conf_keys conf_check_keys, conf_keepalive_keys;

/* Report "FILE:LINE: msg" (line of the text read; 0: "FILE: msg"). */
void	conf_report(struct conf_loader *ld, unsigned int line,
    const char *msg);
/*
 * Report a problem with setting s (NULL: with the file as a whole).
 * Returns -1 so that callers can "return conf_fail(...)".
 */
int	conf_fail(struct conf_loader *ld, const config_setting_t *s,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "an integer", "a string", ...: what s holds, for messages. */
const char *conf_type_name(const config_setting_t *s);
int	conf_is_integer(const config_setting_t *s);
/* Where key k stores its value in the struct at base. */
void   *conf_field(void *base, const struct conf_key *k);
int	conf_get_string(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const char **v);
/* Replace *dst (a default, or NULL) with a copy of v. */
int	conf_store_string(struct conf_loader *ld, const config_setting_t *s,
    char **dst, const char *v);
/* Index of name in the NULL-terminated names, or -1. */
int	conf_name_index(const char *const *names, const char *name);
/* A string that must be one of names; *idx is its index. */
int	conf_get_choice(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, const char *const *names, int *idx);
/* The same, stored as an int in the struct at base. */
int	conf_store_choice(struct conf_loader *ld, const struct conf_key *k,
    const config_setting_t *s, void *base, const char *const *names);

/* Parsers for key tables (see struct conf_key). */
conf_key_parser conf_parse_int, conf_parse_size, conf_parse_duration;
conf_key_parser conf_parse_string, conf_parse_bool, conf_parse_splice;
conf_key_parser conf_parse_allow, conf_parse_deny, conf_parse_mode;
conf_key_parser conf_parse_choice;
extern const char *const conf_splice_names[];	/* enum splice_mode's */
/* Unix listeners' settings (conf_unix.c). */
conf_key_parser conf_parse_unix_owner, conf_parse_unix_group;
conf_key_parser conf_parse_unix_uids, conf_parse_unix_gids;
conf_key_parser conf_parse_rules;		/* conf_rule.c */
conf_key_parser conf_parse_connect;		/* conf_upstream.c */
extern const char *const conf_balance_names[];	/* enum balance's */
conf_key_parser conf_parse_source;			/* conf_source_addr.c */
/* r's source resolved into its pools (r->source_pool), at rule's line. */
int	conf_source_addr_pools(struct conf_loader *ld,
    const config_setting_t *rule, struct rule *r);
/* Two pools hold the same addresses in the same order (or are NULL). */
bool	conf_source_addr_same(const struct source_pool *a,
    const struct source_pool *b);
extern const char *const conf_send_proxy_names[]; /* enum proxy_version's */
conf_key_parser conf_parse_health_check, conf_parse_keepalive;
extern const char *const conf_keepalive_legs_names[]; /* enum keepalive_legs' */

/*
 * Give u its balancing state (upstream.h), zeroed, and each backend its
 * cell in it.  0, or -1 when out of memory.
 */
int	conf_upstream_state(struct upstream *u);

/*
 * Resolve rule r's connect items into its upstream; an item may have a
 * port range of nports ports when listen has (nports > 1).  0 or -1.
 */
int	conf_rule_upstream(struct conf_loader *ld,
    const config_setting_t *rule, struct rule *r, unsigned nports);
/*
 * send_proxy = "pass" of d (rule r's own settings or a route's, written
 * in group g) is where r accepts a header, TCP to TCP.  0 or -1.
 */
int	conf_check_pass(struct conf_loader *ld, const config_setting_t *g,
    const struct rule *r, const struct rule *d);
/*
 * conf_route.c: a rule's routes (route.h).  conf_rule_routes() resolves
 * r's upstream: its connect's, or, with routes, every route's (and
 * checks what goes with routes); conf_routes_inherit() gives each
 * route's destination what it did not set, once r has inherited, and
 * its counters' index (the next of *nrule_stats, the config's count);
 * conf_routes_free() frees r's routes.
 */
conf_key_parser conf_parse_routes;
int	conf_rule_routes(struct conf_loader *ld,
    const config_setting_t *rule, struct rule *r, unsigned nports);
void	conf_routes_inherit(size_t *nrule_stats, struct rule *r);
/*
 * A port range's later port dst (a copy of first, with backends of its
 * own): first's routes, each with its slice of dst's backends and a
 * balancing state of its own; the rest stays first's.  -1: no memory.
 */
int	conf_routes_clone(struct rule *dst, const struct rule *first);
void	conf_routes_free(struct rule *r);

/* Free what conf_parse_connect() stored in r. */
void	conf_items_free(struct rule *r);

/* Parse every member of group, in file order, into the struct at base. */
int	conf_parse_members(struct conf_loader *ld,
    const config_setting_t *group, const struct conf_keys *keys,
    void *base);

/*
 * The checks across cfg's rules (conf_check.c): one address each, unique
 * names, no forwarding loops.  0, or -1 reported at list.
 */
int	conf_check_rules(struct conf_loader *ld, const config_setting_t *list,
    const struct conf *cfg);
/* stats_listen is no rule's address; accept_proxy_from where needed. */
int	conf_check_stats_listen(struct conf_loader *ld, const config_t *lc,
    const struct conf *cfg);
int	conf_check_proxy_acl(struct conf_loader *ld, const config_t *lc,
    const struct conf *cfg);

/*
 * A rule with a Unix address on either side (conf_unix.c): refuse what
 * makes no sense with it, at its line.  0, or -1.  _init sets the
 * defaults of struct rule_unix, _free frees its lists.
 */
int	conf_rule_unix(struct conf_loader *ld, const config_setting_t *rule,
    struct rule *r);
void	conf_rule_unix_init(struct rule *r);
void	conf_rule_unix_free(struct rule *r);

/*
 * ferryd -T (conf_show.c): writers for key tables, beside the parsers.
 * conf_key_shower() is k's: its own, or its parser's; NULL if none.
 */
conf_key_show conf_show_int, conf_show_size, conf_show_duration;
conf_key_show conf_show_string, conf_show_bool, conf_show_choice;
conf_key_show conf_show_text, conf_show_mode, conf_show_acl_allow;
conf_key_show conf_show_acl_deny, conf_show_health_check;
conf_key_show conf_show_keepalive, conf_show_rules, conf_show_connect;
conf_key_show conf_show_source;			/* conf_source_addr.c */
conf_key_show conf_show_routes;				/* conf_route.c */
/* Indent, "name = " (NULL: none), then text. */
void	conf_show_open(struct conf_show *sh, const char *name,
    const char *text);
/* "name = { ...keys of v... }tail" (name NULL: the group alone). */
void	conf_show_group(struct conf_show *sh, const char *name,
    const struct conf_keys *keys, const void *v, const char *tail);
conf_key_show conf_show_unix_id, conf_show_unix_ids;	/* conf_unix.c */
/* Whether -T writes k of r, as far as Unix addresses say (conf_unix.c). */
bool	conf_unix_key_applies(const struct rule *r, const struct conf_key *k);
conf_key_show *conf_key_shower(const struct conf_key *k);
/* Each key of keys that applies, in table order, from the struct at base. */
void	conf_show_members(struct conf_show *sh, const struct conf_keys *keys,
    const void *base);
/* A line "name = value;" at sh's depth (value printf'd); a "# " comment. */
void	conf_show_line(struct conf_show *sh, const char *name,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void	conf_show_comment(struct conf_show *sh, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* s quoted as a libconfig string; "name = s;" at sh's depth. */
void	conf_show_quoted(FILE *out, const char *s);
void	conf_show_quoted_line(struct conf_show *sh, const char *name,
    const char *s);
/* Whether key k is shown for rule base (conf_rule.c: the rule's kind). */
bool	conf_rule_key_applies(const void *base, const struct conf_key *k);

/* Rules take what they did not set from the top level; backends get ids. */
void	conf_rules_inherit(struct conf *cfg);

#endif
