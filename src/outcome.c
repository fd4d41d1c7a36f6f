/*
 * outcome.c - the last reload's outcome, in a file (outcome.h).
 */
#include "ferryd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outcome.h"

void
outcome_path(const char *pidfile, char *buf, size_t len)
{
	size_t n = strlen(pidfile);

	if (n > 4 && strcmp(pidfile + n - 4, ".pid") == 0)
		n -= 4;
	snprintf(buf, len, "%.*s.reload", (int)n, pidfile);
}

int
outcome_write(const char *path, const struct outcome *o)
{
	char	tmp[4096], line[OUTCOME_TEXT_MAX + 4096 + 512];
	int	fd, n, saved;
	size_t	i;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	n = snprintf(line, sizeof(line), "%lu %s %s\nconfig %d %s\ncovers",
	    o->seq, o->ok ? "ok" : "failed", o->text, o->syntax, o->config);
	for (i = 0; i < o->ncovers && n > 0 && (size_t)n < sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %d",
		    o->covers[i]);
	if (n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - (size_t)n, "\n");
	if (n < 0 || (size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1;
	/* O_EXCL after unlink: never through a link someone left there. */
	(void)unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOFOLLOW, 0644)) == -1)
		return -1;
	if (write(fd, line, (size_t)n) != n) {
		saved = errno != 0 ? errno : ENOSPC;	/* short: full */
		close(fd);
		(void)unlink(tmp);
		errno = saved;
		return -1;
	}
	if (close(fd) == -1 || rename(tmp, path) == -1) {
		saved = errno;
		(void)unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
}

void
outcome_read(const char *path, struct outcome *o)
{
	char	 line[4096 + 64], word[16], *p;
	FILE	*f;
	int	 n;

	memset(o, 0, sizeof(*o));
	if ((f = fopen(path, "re")) == NULL)
		return;
	if (fgets(line, sizeof(line), f) != NULL &&
	    sscanf(line, "%lu %15s", &o->seq, word) == 2 &&
	    (p = strchr(line, ' ')) != NULL && (p = strchr(p + 1, ' ')) != NULL) {
		o->ok = strcmp(word, "ok") == 0;
		snprintf(o->text, sizeof(o->text), "%s", p + 1);
		o->text[strcspn(o->text, "\n")] = '\0';
	} else
		o->seq = 0;
	if (fgets(line, sizeof(line), f) != NULL &&
	    sscanf(line, "config %d %n", &o->syntax, &n) == 1) {
		snprintf(o->config, sizeof(o->config), "%s", line + n);
		o->config[strcspn(o->config, "\n")] = '\0';
	}
	if (fgets(line, sizeof(line), f) != NULL &&
	    strncmp(line, "covers", 6) == 0)
		for (p = line + 6; o->ncovers < OUTCOME_COVERS_MAX &&
		    sscanf(p, " %d%n", &o->covers[o->ncovers], &n) == 1; p += n)
			o->ncovers++;
	fclose(f);
}

bool
outcome_covers(const struct outcome *o, int token)
{
	size_t i;

	for (i = 0; i < o->ncovers; i++)
		if (o->covers[i] == token)
			return true;
	return false;
}
