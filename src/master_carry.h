/*
 * master_carry.h - binary upgrade in place: what the old image counted,
 * carried into the new one's counters (stats_carry), so that /metrics
 * and the master's last line go on from where they were, and the hex
 * that the upgrade's description writes bytes in.
 */
#ifndef FERRYD_MASTER_CARRY_H
#define FERRYD_MASTER_CARRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct conf;

/* len bytes as hex ("-" for none), and back: exactly len, or -1. */
void	master_hex_put(FILE *f, const void *p, size_t len);
int	master_hex_get(const char *s, void *p, size_t len);

/*
 * The old image: the names of cfg's counters (rules as written, their
 * routes and backends, with their stat ids), what each counted, and
 * its newest table's memfd (to cross exec), as lines of the
 * description.
 */
void	master_carry_describe(FILE *f, const struct conf *cfg);

/*
 * The new image: a line of the description, kept if it is one of
 * those (true), then, once all are read and the first table is made,
 * what they counted added to cfg's rules and backends of the same name
 * and address (after the "life" total was retired: it leaves it).
 */
bool	master_carry_line(char *line);
void	master_carry_done(const struct conf *cfg);

/*
 * The new image, once the old image's workers are all gone: what they
 * counted after the description, read from the old image's table
 * (stats_adopt, when the description names it), added the same way.
 */
void	master_carry_end(const struct conf *cfg);

#endif
