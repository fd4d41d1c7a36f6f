/*
 * conf_sslh_notes.c - what the reader of sslh's settings says: an
 * error (sslh_fail), a note (a comment in the converted file) and a
 * warning (a note that is also logged when the file is loaded, for what
 * ferryd skips or does otherwise, as sslh 2.x warns of what it skips).
 */
#include "ferryd.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_emit.h"
#include "conf_sslh.h"
#include "conf_sslh_model.h"

#define MSG_MAX		512

/* The error, "PATH:LINE: msg" or "sslh command line: OPTION: msg". */
static void
fail_ap(struct sslh *s, const struct sslh_origin *from, const char *fmt,
    va_list ap)
{
	char	msg[MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (from != NULL && from->line > 0)
		snprintf(s->err, s->errlen, "%s:%d: %s", s->path, from->line,
		    msg);
	else if (from != NULL && from->text != NULL)
		snprintf(s->err, s->errlen, "%s: %s: %s", SSLH_CMDLINE,
		    from->text, msg);
	else
		snprintf(s->err, s->errlen, "%s: %s", s->path, msg);
}

int
sslh_fail(struct sslh *s, const struct sslh_origin *from, const char *fmt,
    ...)
{
	va_list	ap;

	va_start(ap, fmt);
	fail_ap(s, from, fmt, ap);
	va_end(ap);
	return -1;
}

int
sslh_unreadable(struct sslh *s, const struct sslh_origin *from,
    const char *fmt, ...)
{
	va_list	ap;

	s->unreadable = true;
	va_start(ap, fmt);
	fail_ap(s, from, fmt, ap);
	va_end(ap);
	return -1;
}

int
add_note(struct sslh *s, const struct sslh_origin *from, const char *fmt,
    ...)
{
	struct sslh_note	*n;
	va_list			 ap;

	if ((n = conf_grow(s->notes, &s->capnotes, s->nnotes + 1,
	    sizeof(*n))) == NULL)
		return sslh_fail(s, from, "out of memory");
	s->notes = n;
	n = &s->notes[s->nnotes++];
	n->from = *from;
	n->warn = false;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
	return 0;
}

int
add_warning(struct sslh *s, const struct sslh_origin *from, const char *fmt,
    ...)
{
	va_list	ap;

	if (add_note(s, from, "%s", "") == -1)
		return -1;
	va_start(ap, fmt);
	vsnprintf(s->notes[s->nnotes - 1].text, sizeof(s->notes[0].text),
	    fmt, ap);
	va_end(ap);
	s->notes[s->nnotes - 1].warn = true;
	return 0;
}

char *
sslh_warnings(const struct sslh *s)
{
	char	*text = NULL, *more, line[MSG_MAX + 256];
	size_t	 len = 0, n, i;

	for (i = 0; i < s->nnotes; i++) {
		if (!s->notes[i].warn)
			continue;
		if (s->notes[i].from.line > 0)
			n = (size_t)snprintf(line, sizeof(line), "%s:%d: %s\n",
			    s->path, s->notes[i].from.line, s->notes[i].text);
		else
			n = (size_t)snprintf(line, sizeof(line), "%s: %s: %s\n",
			    SSLH_CMDLINE, s->notes[i].from.text != NULL ?
			    s->notes[i].from.text : "", s->notes[i].text);
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		if ((more = realloc(text, len + n + 1)) == NULL) {
			free(text);
			return NULL;
		}
		text = more;
		memcpy(text + len, line, n + 1);
		len += n;
	}
	/* No warning: an empty string, so that NULL means no memory. */
	return text != NULL ? text : strdup("");
}

