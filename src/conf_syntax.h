/*
 * conf_syntax.h - what libconfig's bare "syntax error" means: the first
 * thing wrong in the text, and what was expected there.
 */
#ifndef FERRYD_CONF_SYNTAX_H
#define FERRYD_CONF_SYNTAX_H

#include <stdbool.h>
#include <stddef.h>

struct conf_text;

/*
 * Read t's text as libconfig would; at the first thing wrong, set *line
 * (1-based, of the text) and why ("expected ',' or the ')' of the list
 * opened at line 3, found '{'") and return true.  false when it finds
 * nothing wrong (libconfig's word is then all there is).
 */
bool	conf_syntax_explain(const struct conf_text *t, unsigned int *line,
	    char *why, size_t whylen);

#endif
