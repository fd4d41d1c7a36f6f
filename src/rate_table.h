/*
 * rate_table.h - the master gives each rule with rule_rate_limit a cell
 * of the shared budgets (rate.h), the same for its name across reloads.
 */
#ifndef FERRYD_RATE_TABLE_H
#define FERRYD_RATE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

struct rule;

/*
 * Master, before forking generation gen of a configuration's nrules
 * rules: set each limited rule's rate_cell (0: not limited, when no
 * cell is left); alive(g, arg) says whether generation g has a worker
 * left, whose cells are kept.
 */
void	rate_table_assign(struct rule *rules, size_t nrules, unsigned gen,
    bool (*alive)(unsigned, void *), void *arg);

#endif
