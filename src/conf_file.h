/*
 * conf_file.h - reading configuration files safely: only regular files of
 * a sane size, read as a consistent snapshot, with @include expanded by
 * ferryd itself into one text and a map from each line of that text to
 * the file and line it came from.
 */
#ifndef FERRYD_CONF_FILE_H
#define FERRYD_CONF_FILE_H

#include <stddef.h>

/* Largest configuration file read, included ones each. */
#define CONF_FILE_MAX		(16 * 1024 * 1024)
/* @include depth: the main file is 0. */
#define CONF_INCLUDE_DEPTH_MAX	10

/* Where a line of an expanded text comes from. */
struct conf_line {
	const char	*file;	/* owned by the struct conf_text */
	int		 line;	/* 0: made up, no line of file */
};

struct conf_text {
	char		 *text;		/* NUL-terminated */
	size_t		  len;
	struct conf_line *lines;	/* lines[i]: origin of line i + 1 */
	size_t		  nlines, capl;
	char		**files;	/* names lines point to */
	size_t		  nfiles, capf;
};

/*
 * The whole regular file at path, NUL-terminated (free() it), length in
 * *len.  The file is read as one consistent version: its size and
 * modification time must not change while it is read, nor have changed
 * a moment before.  NULL with one of "cannot open PATH: reason", "PATH:
 * not a regular file", "PATH: larger than N bytes", "cannot read PATH:
 * reason" or "PATH: keeps changing; replace it with mv" in err.
 */
char	*conf_file_read(const char *path, size_t *len, char *err,
	    size_t errlen);

/* -1 with "PATH:LINE: NUL byte ..." in err if buf holds a NUL byte. */
int	 conf_file_check_nul(const char *path, const char *buf, size_t len,
	    char *err, size_t errlen);

/*
 * Read path and every file it @includes into out: the text libconfig is
 * given.  Relative includes are found in path's directory; a directory
 * includes its *.conf files in name order.  Integer literals too big for
 * 32 bits get an L suffix so that libconfig keeps their value.  Returns 0,
 * or -1 with "FILE:LINE: problem" (or "FILE: problem") in err.
 */
int	 conf_text_read(const char *path, struct conf_text *out, char *err,
	    size_t errlen);

/* out made of text and the lines of file it came from (NULL: none). */
int	 conf_text_from_lines(const char *file, const char *text,
	    const int *linemap, size_t nlines, struct conf_text *out);

/* Where line (1-based) of the text comes from; file NULL if nowhere. */
struct conf_line conf_text_origin(const struct conf_text *t,
	    unsigned int line);

void	 conf_text_free(struct conf_text *t);

#endif
