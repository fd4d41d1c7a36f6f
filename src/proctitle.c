/*
 * proctitle.c - setting the process title the BSD setproctitle(3) way
 * where it exists, and elsewhere by overwriting argv.
 *
 * The kernel shows the memory that held the arguments, so a longer title
 * may use the environment strings right after them; those are copied
 * away first.  Where nothing of this works the title simply stays.
 */
#include "ferryd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proctitle.h"

extern char **environ;

static char   *title;		/* start of the area we may overwrite */
static size_t  title_size;	/* its size */
char         **proctitle_environ;

void
proctitle_init(int argc, char **argv)
{
#ifndef HAVE_SETPROCTITLE
	char   *end, **env;
	size_t  n, i;
	int     a;

	if (argc < 1 || argv[0] == NULL)
		return;
	end = argv[0] + strlen(argv[0]) + 1;
	for (a = 1; a < argc && argv[a] == end; a++)
		end = argv[a] + strlen(argv[a]) + 1;
	for (n = 0; environ[n] != NULL; n++)
		continue;
	env = malloc((n + 1) * sizeof(*env));
	if (env == NULL)
		return;
	for (i = 0; i < n; i++) {
		if (environ[i] == end)
			end = environ[i] + strlen(environ[i]) + 1;
		if ((env[i] = strdup(environ[i])) == NULL) {
			while (i > 0)
				free(env[--i]);
			free(env);
			return;
		}
	}
	env[n] = NULL;
	environ = proctitle_environ = env;
	title = argv[0];
	title_size = end - argv[0];
#else
	(void)argc;
	(void)argv;
#endif
}

void
proctitle_set(const char *fmt, ...)
{
	char    buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
#ifdef HAVE_SETPROCTITLE
	setproctitle("-%s", buf);
#else
	if (title == NULL || title_size < 2)
		return;
	memset(title, '\0', title_size);
	strncpy(title, buf, title_size - 1);
#endif
}
