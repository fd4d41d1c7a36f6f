/*
 * upgrade_record.h - what crosses a binary upgrade's exec, as lines of
 * text in a memfd (master_upgrade.h): the old image writes them from an
 * upgrade_source, the new one reads them into an upgrade_desc.  Each
 * record kind (its first word) has its writer and its reader side by
 * side in upgrade_record.c, in one table, so that they cannot drift.
 *
 * The old image writes the UPGRADE_PART_IMAGE records.  A new image that
 * fails before it serves appends the UPGRADE_PART_WAY_BACK ones (why,
 * what it reaped, killed or answered meanwhile) before it executes the
 * old image again, which reads the whole.
 */
#ifndef FERRYD_UPGRADE_RECORD_H
#define FERRYD_UPGRADE_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "conf.h"
#include "listen.h"
#include "outcome.h"
#include "stats.h"

enum upgrade_part {
	UPGRADE_PART_IMAGE,	/* the old image's description */
	UPGRADE_PART_WAY_BACK	/* a failed new image's additions */
};

/* A worker handed over: it goes on, an old generation of the new image. */
struct upgrade_worker {
	long     pid;
	int      slot;
	unsigned gen;
	int      state;		/* enum child_state */
	int      accepting;	/* has not said IPC_DRAINING yet */
	int      chan;		/* the master's end of its channel */
};

/* What a description says, gathered by the image that writes it. */
struct upgrade_source {
	/* UPGRADE_PART_IMAGE: */
	const struct conf     *cfg;	/* the running configuration */
	const char            *config;	/* its file */
	int                    syntax;	/* enum conf_syntax */
	unsigned               gen;
	const struct listen_set *ls;
	const struct upgrade_worker *workers;
	size_t                 nworkers;
	long                   checker;	/* its pid; 0: none */
	int                    control_fd;	/* -1: none */
	const char            *control_path;
	const unsigned char   *cells;	/* the health table */
	size_t                 ncells;
	const struct stats_rule *life;	/* the totals; NULL: none */
	bool                   host_drain;
	int64_t                host_since;
	const int             *covers;	/* requests the upgrade answers */
	size_t                 ncovers;
	const int             *clients;	/* control clients to answer */
	size_t                 nclients;
	int                    image;	/* the old image's file; -1: none */
	int                    snapshot;	/* its configuration; -1: none */
	const char *const     *argv;	/* its arguments, NULL-ended */
	int                    pid_fd;	/* the pidfile, locked; -1: none */
	/* UPGRADE_PART_WAY_BACK: */
	const char            *failed;	/* why the new image failed */
	const pid_t           *gone;	/* workers it reaped */
	size_t                 ngone;
	bool                   checker_gone;	/* it killed the checker */
	bool                   answered;	/* it answered the clients */
};

/* What a description said, as the image that reads it took it. */
struct upgrade_desc {
	char                   config[PATH_MAX];
	int                    syntax;
	unsigned               gen;	/* the newest old generation */
	struct conf            cfg;	/* rules: address, backends */
	struct listen_set      ls;
	char                  *stats_path;
	struct upgrade_worker *workers;
	size_t                 nworkers;
	long                   checker;	/* 0: none */
	int                    control_fd;	/* the listening control socket */
	char                   control_path[PATH_MAX];	/* ... its file */
	unsigned char         *cells;	/* the health table's, carried */
	size_t                 ncells;
	bool                   cells_broken;	/* another layout: not taken */
	struct stats_rule      life;
	bool                   has_life;
	int                    host_drain;	/* drain host said, and since */
	long long              host_since;
	int                    covers[OUTCOME_COVERS_MAX];
	size_t                 ncovers;
	int                    clients[OUTCOME_COVERS_MAX];	/* to answer */
	size_t                 nclients;
	int                    image;	/* the old image's file, or -1 */
	int                    snapshot;	/* its configuration, or -1 */
	int                    stable;	/* its counters, or -1 */
	int                    pid_fd;	/* the locked pidfile, or -1 */
	char                 **argv;	/* the old image's arguments */
	size_t                 nargv;
	char                   failed[512];	/* a failed new image's why */
	pid_t                 *gone;	/* ... the workers it reaped */
	size_t                 ngone;
	bool                   checker_gone;	/* ... it killed the checker */
};

/* Write src's records of part to f; -1 if f failed. */
int	upgrade_record_write(FILE *f, const struct upgrade_source *src,
	    enum upgrade_part part);

/* An empty description: every descriptor -1. */
void	upgrade_desc_init(struct upgrade_desc *d);
/* Free what the reader allocated in d (not its descriptors), for a
 * reader that took none of it. */
void	upgrade_desc_free(struct upgrade_desc *d);
/*
 * One line of a description into d: 0, or -1 if it makes no sense.  A
 * kind this image does not know is skipped (an older image wrote it).
 */
int	upgrade_record_read(char *line, struct upgrade_desc *d);

/* The name of record kind i, or NULL past the last (for the tests). */
const char *upgrade_record_kind(size_t i);

#endif
