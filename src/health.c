/*
 * health.c - the shared table of backend health, and passive accounting.
 */
#include "ferryd.h"

#include <sys/mman.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "addr.h"
#include "bug.h"
#include "clock.h"
#include "conf.h"
#include "health.h"
#include "log.h"
#include "route.h"
#include "rule.h"
#include "upstream.h"

const char *const health_admin_names[HEALTH_ADMINS] = {
	"ready", "drain", "disabled"
};

#ifndef MAP_ANONYMOUS
#define MAP_ANONYMOUS MAP_ANON
#endif

static struct health_cell	*cells;
static size_t			 ncells;

/* Backend b of rule r's cell in the table in use, if the old rule has it. */
static const struct health_cell *
old_cell(const struct rule_map *old, const struct rule *r,
    const struct backend *b)
{
	const struct rule	*o = conf_rule_map_find(old, r);
	size_t			 j;

	if (o == NULL || cells == NULL ||
	    o->connect_protocol != r->connect_protocol)
		return NULL;
	for (j = 0; j < o->upstream.nbackends; j++)
		if (o->upstream.backends[j].id < ncells &&
		    addr_equal(&o->upstream.backends[j].addr, &b->addr) &&
		    backend_same_route(&o->upstream.backends[j], b))
			return &cells[o->upstream.backends[j].id];
	return NULL;
}

int
health_table_new(const struct conf *cfg, const struct conf *old)
{
	struct health_cell		*t;
	const struct health_cell	*was;
	const struct rule		*r;
	struct rule_map			*map = NULL;
	size_t				 n = cfg->nbackends > 0 ?
					    cfg->nbackends : 1, i, j;
	void				*p;

	p = mmap(NULL, n * sizeof(*t), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		/* The old table's ids are not cfg's: none rather than wrong. */
		if (cells != NULL)
			munmap(cells, ncells * sizeof(*cells));
		cells = NULL;
		ncells = 0;
		return -1;
	}
	t = p;
	/* Without the map (out of memory), every backend starts anew. */
	if (old != NULL)
		map = conf_rule_map_new(old);
	for (i = 0; i < cfg->nrules; i++) {
		r = &cfg->rules[i];
		for (j = 0; j < r->upstream.nbackends; j++) {
			const struct backend *b = &r->upstream.backends[j];
			/* A route's backends: its own health_check. */
			const struct health_check *hc =
			    &rule_dest_of(r, b)->health_check;

			/* ids are the loader's count: the table's size */
			BUG_ON(b->id >= n);
			if ((was = old_cell(map, r, b)) != NULL)
				memcpy(&t[b->id], (const void *)was,
				    sizeof(*t));
			else {
				/* Checked: down until rise checks pass. */
				t[b->id].check_down = hc->enabled;
				t[b->id].changed = (int64_t)time(NULL);
				t[b->id].since = clock_ms();
			}
			/* A rule no longer checked: only passive state. */
			if (!hc->enabled) {
				t[b->id].check_down = 0;
				t[b->id].streak = 0;
			}
		}
	}
	conf_rule_map_free(map);
	if (cells != NULL)
		munmap(cells, ncells * sizeof(*cells));
	cells = t;
	ncells = n;
	return 0;
}

const void *
health_table(size_t *n)
{
	*n = ncells;
	return cells;
}

int
health_table_adopt(const void *t, size_t n)
{
	void *p = mmap(NULL, n * sizeof(*cells), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	memcpy(p, t, n * sizeof(*cells));
	if (cells != NULL)
		munmap(cells, ncells * sizeof(*cells));
	cells = p;
	ncells = n;
	return 0;
}

void
health_moved(const struct rule *r, const struct backend *b)
{
	struct health_cell *c = health_cell(b->id);

	if (c == NULL)
		return;
	c->down_until = 0;
	c->window = 0;
	c->fails = 0;
	c->streak = 0;
	/* Checked: down until rise checks of the new address pass. */
	c->check_down = r->health_check.enabled;
	health_changed(c);
}

void
health_changed(struct health_cell *cell)
{
	cell->changed = (int64_t)time(NULL);
	cell->since = clock_ms();
	__atomic_add_fetch(&cell->changes, 1, __ATOMIC_RELAXED);
}

struct health_cell *
health_cell(unsigned id)
{
	return cells != NULL && id < ncells ? &cells[id] : NULL;
}

int64_t
health_since(const struct backend *b)
{
	const struct health_cell *c = health_cell(b->id);

	return c != NULL ? c->since : 0;
}

int
health_admin(const struct backend *b)
{
	const struct health_cell *c = health_cell(b->id);

	return c != NULL ? c->admin : HEALTH_READY;
}

int64_t
health_admin_since(const struct backend *b)
{
	const struct health_cell *c = health_cell(b->id);

	return c != NULL ? c->admin_since : 0;
}

int
health_weight(const struct backend *b)
{
	const struct health_cell	*c = health_cell(b->id);
	int				 w;

	return c != NULL && (w = c->weight) > 0 ? w : b->weight;
}

int
health_state(const struct backend *b, int64_t now)
{
	const struct health_cell	*c = health_cell(b->id);
	int64_t				 until;

	if (c == NULL)
		return HEALTH_UP;
	if (c->check_down)
		return HEALTH_DOWN;
	if ((until = c->down_until) == 0)
		return HEALTH_UP;
	return now < until ? HEALTH_DOWN : HEALTH_TRIAL;
}

bool
health_claim_trial(const struct backend *b, int64_t now)
{
	struct health_cell	*c = health_cell(b->id);
	int64_t			 until;

	if (c == NULL)
		return true;
	until = c->down_until;
	/* Down again until the trial says otherwise. */
	return until != 0 && now >= until &&
	    __atomic_compare_exchange_n(&c->down_until, &until,
	    now + b->fail_timeout, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

void
health_unclaim_trial(const struct backend *b, int64_t now)
{
	struct health_cell	*c = health_cell(b->id);
	int64_t			 claimed = now + b->fail_timeout;

	/* Unless the trial's end has moved since: then it is not ours. */
	if (c != NULL)
		(void)__atomic_compare_exchange_n(&c->down_until, &claimed,
		    now, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

static const char *
why_failed(int err)
{
	return err == ETIMEDOUT ? "connect timed out" : strerror(err);
}

void
health_failed(const struct rule *rule, const struct backend *b, int err,
    bool trial, int64_t now)
{
	struct health_cell	*c = health_cell(b->id);
	char			 addr[ADDR_STRLEN];
	uint32_t		 n;
	int64_t			 until;

	if (c == NULL || b->max_fails == 0)
		return;
	addr_format((const void *)&b->addr.ss, addr, sizeof(addr));
	if (trial) {
		c->down_until = now + b->fail_timeout;
		log_info("backend %s of rule %s is still down: %s; next try "
		    "in %d s", addr, rule_log_name(rule), why_failed(err),
		    (b->fail_timeout + 999) / 1000);
		return;
	}
	if (c->down_until != 0)
		return;		/* another worker marked it down */
	if (now - c->window >= b->fail_timeout) {
		c->window = now;
		c->fails = 0;
	}
	n = __atomic_add_fetch(&c->fails, 1, __ATOMIC_ACQ_REL);
	if (n < (uint32_t)b->max_fails)
		return;
	/* Of workers racing past the count, one marks it down and logs. */
	until = 0;
	if (!__atomic_compare_exchange_n(&c->down_until, &until,
	    now + b->fail_timeout, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	c->fails = 0;
	health_changed(c);
	log_warn("backend %s of rule %s is down: %s (%d failed connect%s "
	    "within %d s); next try in %d s", addr, rule_log_name(rule),
	    why_failed(err), b->max_fails, b->max_fails == 1 ? "" : "s",
	    (b->fail_timeout + 999) / 1000, (b->fail_timeout + 999) / 1000);
}

void
health_succeeded(const struct rule *rule, const struct backend *b,
    bool trial)
{
	struct health_cell	*c = health_cell(b->id);
	char			 addr[ADDR_STRLEN];

	/*
	 * The failures of the window stand (nginx's max_fails counts those
	 * within fail_timeout, successes between or not): a backend that
	 * fails every other connect goes down.  The healthy path stores
	 * nothing shared.
	 */
	if (c == NULL || !trial)
		return;
	c->down_until = 0;
	health_changed(c);
	log_notice("backend %s of rule %s is up again", addr_format(
	    (const void *)&b->addr.ss, addr, sizeof(addr)), rule_log_name(rule));
}
