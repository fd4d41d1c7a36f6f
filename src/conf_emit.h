/*
 * conf_emit.h - writing ferryd.conf text converted from another program's
 * configuration (rinetd.conf, sslh's): the text grows as it is written,
 * with a map from each line of it back to the line of the source it was
 * made from, so that whatever the loader finds wrong later is reported
 * at the source's line.
 */
#ifndef FERRYD_CONF_EMIT_H
#define FERRYD_CONF_EMIT_H

#include <stdbool.h>
#include <stddef.h>

/* A converted text, as conf_text_from_lines() takes it. */
struct conf_conv {
	char	*text;		/* libconfig text, NUL-terminated */
	int	*linemap;	/* linemap[i]: source line of text line i + 1 */
	size_t	 nlines;	/* lines in text (and entries in linemap) */
	char	*warnings;	/* "FILE:LINE: ...\n" each, or NULL */
};

/* The text while it is written; zero it to start.  oom: give up. */
struct conf_out {
	char	*buf;
	size_t	 len, cap;
	int	*map;
	size_t	 nlines, mapcap;
	bool	 oom;
};

/*
 * Room for n elements of size bytes in v, whose capacity is *cap: returns
 * v or its new place, or NULL (v untouched) when out of memory.
 */
void	*conf_grow(void *v, size_t *cap, size_t n, size_t size);

/* Append n bytes made from source line num (0: none). */
void	 conf_out_bytes(struct conf_out *o, int num, const char *s, size_t n);
/* For short, bounded text (under 400 bytes); long values: _quoted(). */
void	 conf_out_printf(struct conf_out *o, int num, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* s as a libconfig string: quotes and backslashes escaped, bytes other
 * than printable ASCII as \xNN (the caller decides whether it allows
 * them). */
void	 conf_out_quoted(struct conf_out *o, int num, const char *s);
/* "INDENT# WHAT: TEXT\n", TEXT's control characters made '?'. */
void	 conf_out_comment(struct conf_out *o, int num, const char *indent,
	    const char *what, const char *text);
/*
 * The header of a converted file: made from what (NULL, or such as
 * "sslh's command line") and path (NULL, or the file), then intro: "# "
 * and a sentence.
 */
void	 conf_out_header(struct conf_out *o, const char *what,
	    const char *path, const char *intro);
/* The text made, moved into conv; -1 (nothing moved) if out of memory. */
int	 conf_out_finish(struct conf_out *o, struct conf_conv *conv);

void	 conf_conv_free(struct conf_conv *conv);

#endif
