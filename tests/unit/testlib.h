/*
 * testlib.h - what the unit tests share: "ok N - ..." lines and the final
 * count, a scratch directory removed at the end, and loading files that
 * must be accepted or refused with an exact "FILE:LINE:".
 */
#ifndef FERRYD_TESTLIB_H
#define FERRYD_TESTLIB_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"

/* The scratch directory, once make_tmpdir() has made it. */
extern char tmpdir[1024];

/* Print "ok N - ..." or "not ok N - ..." and count it. */
void check(int ok, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Print "N passed, M failed"; the exit status for main(). */
int  test_summary(void);

/* $TMPDIR/name.XXXXXX; exits on failure. */
void make_tmpdir(const char *name);
/* Remove the directory and the files in it. */
void remove_tmpdir(void);

/* Write text to name in the scratch directory; path gets its full name. */
void write_conf(const char *name, const char *text, char *path, size_t len);
/* The same for len bytes that may hold NUL. */
void write_bytes(const char *name, const char *bytes, size_t len, char *path,
    size_t pathlen);

/* Write text and load it; err receives the error on failure. */
struct conf *load_text(const char *name, const char *text, char *path,
    size_t pathlen, char *err, size_t errlen);

/* Load a file that must be accepted; a refusal is a failed test. */
struct conf *load_good(const char *name, const char *text, char *path,
    size_t pathlen, const char *desc);

/*
 * Check a refused load: cfg NULL, err starting with "path:line: " (or
 * "path: " for line 0) and containing keyword.  Frees cfg.
 */
void check_error(const char *desc, struct conf *cfg, const char *path,
    int line, const char *err, const char *keyword);

/* A file that must be refused, the line of its error (0 = none) and a
 * word of the message. */
struct bad_case {
	const char	*desc;
	const char	*text;
	int		 line;
	const char	*keyword;
};

/* Write each case to NAME-NN and check that load refuses it as it says. */
void check_bad_cases(const struct bad_case *cases, size_t n,
    const char *name, struct conf *(*load)(const char *, char *, size_t));

int  streq(const char *a, const char *b);
int  port_of(const struct sockaddr_any *a);

/* Hex digits (white space between them ignored) into out: the bytes. */
size_t unhex(const char *hex, uint8_t *out, size_t size);

#endif
