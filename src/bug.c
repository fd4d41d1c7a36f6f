/*
 * bug.c - the report of a broken invariant (bug.h).
 */
#include "ferryd.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bug.h"
#include "log.h"

void
bug_report(const char *file, int line, const char *func, const char *expr)
{
	log_err("BUG at %s:%d in %s(): %s; aborting (pid %ld)", file, line,
	    func, expr, (long)getpid());
	/* Logging elsewhere than stderr: whoever watches it hears too. */
	if (log_file_fd() != -1 || log_to_syslog())
		fprintf(stderr, "ferryd: BUG at %s:%d in %s(): %s\n", file,
		    line, func, expr);
	abort();
}
