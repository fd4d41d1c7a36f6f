/*
 * rate_table.c - the master's side of rule_rate_limit: which cell of the
 * shared region (rate.h) each limited rule spends from.
 *
 * A rule is known by its name (rule.client_key, its hash), as in
 * client_limit.c: a reload that keeps the name keeps the cell, so the
 * old generation's connections, while they drain, and the new one's
 * share one budget, and a new rule_rate_limit applies to both at once.
 * A cell goes back only when no generation that used it has a worker
 * left; the bookkeeping is the master's own memory.
 */
#include "ferryd.h"

#include "log.h"
#include "rate.h"
#include "rate_table.h"
#include "rule.h"

/* Who holds a cell: the rule's key, and the generations that used it. */
static struct {
	uint64_t	key;		/* 0: never used */
	unsigned	gen_first, gen_last;
} owners[RATE_CELLS];

/* Whether no worker of the generations that used cell i is left. */
static bool
cell_free(int i, bool (*alive)(unsigned, void *), void *arg)
{
	unsigned g;

	if (owners[i].key == 0)
		return true;
	for (g = owners[i].gen_first; g <= owners[i].gen_last; g++)
		if (alive(g, arg))
			return false;
	return true;
}

/* Rule r's cell for generation gen: its own of before, or a free one. */
static int
cell_for(const struct rule *r, unsigned gen,
    bool (*alive)(unsigned, void *), void *arg)
{
	int i, free_cell = 0;

	for (i = 1; i < RATE_CELLS; i++) {
		if (owners[i].key == r->client_key &&
		    (owners[i].gen_last == gen || !cell_free(i, alive, arg))) {
			owners[i].gen_last = gen;
			rate_cell_set(i, r->rule_rate_limit, false);
			return i;
		}
		if (free_cell == 0 && owners[i].gen_last != gen &&
		    cell_free(i, alive, arg))
			free_cell = i;
	}
	if (free_cell != 0) {
		owners[free_cell].key = r->client_key;
		owners[free_cell].gen_first = owners[free_cell].gen_last = gen;
		rate_cell_set(free_cell, r->rule_rate_limit, true);
	}
	return free_cell;
}

void
rate_table_assign(struct rule *rules, size_t nrules, unsigned gen,
    bool (*alive)(unsigned, void *), void *arg)
{
	struct rule	*r;
	size_t		 i;
	bool		 opened = false;

	for (i = 0; i < nrules; i++) {
		r = &rules[i];
		r->rate_cell = 0;
		if (r->rule_rate_limit <= 0)
			continue;
		/* A range's ports are one rule: they share the first's. */
		if (r->range_first != NULL) {
			r->rate_cell = r->range_first->rate_cell;
			continue;
		}
		if (!opened && rate_region_open() == -1) {
			log_err("cannot map the budgets of rule_rate_limit: %s; "
			    "it does not apply", strerror(errno));
			return;
		}
		opened = true;
		if ((r->rate_cell = cell_for(r, gen, alive, arg)) == 0)
			log_err("%s: no budget left for rule_rate_limit (%d "
			    "limited rules at most): not limited",
			    rule_log_name(r), RATE_CELLS - 1);
	}
}
