/*
 * outcome.h - how the last reload went, in a file beside the pidfile:
 * the master writes it, "ferryd -s reload" waits for it to change and
 * says what it says (exit 0 or 1), so that the command, the init
 * script's reload and systemd's ExecReload tell the truth.
 *
 * Three lines: a sequence number that grows with every outcome, "ok" or
 * "failed", and the text ("generation 5 serves ...", or the error with
 * FILE:LINE); the file the master reads and its syntax, for "ferryd -s
 * reload" to check that file before it signals; and the requests this
 * reload answers: each "ferryd -s reload" sends its pid with its SIGHUP
 * (sigqueue) and waits for an outcome that covers it, so that it never
 * takes another reload's outcome for its own.  Written to
 * a temporary name and renamed, so a reader never sees half of it.
 */
#ifndef FERRYD_OUTCOME_H
#define FERRYD_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>

#define OUTCOME_TEXT_MAX	600
#define OUTCOME_COVERS_MAX	32

struct outcome {
	unsigned long	seq;		/* 0: none written yet */
	bool		ok;
	char		text[OUTCOME_TEXT_MAX];
	int		syntax;		/* enum conf_syntax */
	char		config[4096];	/* "": not known */
	/* The requests the reload answers (sigqueue values), never 0. */
	int		covers[OUTCOME_COVERS_MAX];
	size_t		ncovers;
};

/*
 * The master's side: where it writes the outcome, what it told last and
 * whom it answered, whom the queued reload answers (asked) and whom the
 * reload under way or last done answers (covered): tokens, as covers.
 */
struct outcome_state {
	char		file[4096];	/* "": none */
	unsigned long	seq;
	unsigned	gen_told;	/* the last generation said to serve */
	bool		told_ok;	/* the last outcome ... */
	char		told[OUTCOME_TEXT_MAX];	/* ... its words, */
	int		told_covers[OUTCOME_COVERS_MAX];	/* ... and */
	size_t		ntold_covers;	/* whom it answered */
	int		asked[OUTCOME_COVERS_MAX];
	size_t		nasked;
	int		covered[OUTCOME_COVERS_MAX];
	size_t		ncovered;
};

/* Whether o answers request token. */
bool	outcome_covers(const struct outcome *o, int token);

/* The file for pidfile: its name with ".pid" (if any) made ".reload". */
void	outcome_path(const char *pidfile, char *buf, size_t len);
/* Master: write o at path; -1 with errno on failure. */
int	outcome_write(const char *path, const struct outcome *o);
/* The outcome at path; one with seq 0 when there is none (yet). */
void	outcome_read(const char *path, struct outcome *o);

#endif
