/*
 * conf_emit.c - converted ferryd.conf text and its line map (conf_emit.h),
 * for the readers of foreign formats: conf_sslh_out.c's and
 * conf_rinetd_out.c's (whose map entries name a file and a line, LOC()).
 */
#include "ferryd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_emit.h"

void *
conf_grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t	ncap = *cap > 0 ? *cap : 16;
	void	*p;

	if (n <= *cap && v != NULL)
		return v;
	while (ncap < n)
		ncap *= 2;
	if ((p = realloc(v, ncap * size)) == NULL)
		return NULL;
	*cap = ncap;
	return p;
}

void
conf_out_bytes(struct conf_out *o, int num, const char *s, size_t n)
{
	char	*buf;
	int	*map;
	size_t	 i;

	if (o->oom || (buf = conf_grow(o->buf, &o->cap, o->len + n + 1,
	    1)) == NULL) {
		o->oom = true;
		return;
	}
	o->buf = buf;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
	for (i = 0; i < n; i++) {
		if (s[i] != '\n')
			continue;
		if ((map = conf_grow(o->map, &o->mapcap, o->nlines + 1,
		    sizeof(*map))) == NULL) {
			o->oom = true;
			return;
		}
		o->map = map;
		o->map[o->nlines++] = num;
	}
}

void
conf_out_printf(struct conf_out *o, int num, const char *fmt, ...)
{
	char	buf[400];
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		o->oom = true;		/* cannot happen with our formats */
	else
		conf_out_bytes(o, num, buf, n);
}

void
conf_out_quoted(struct conf_out *o, int num, const char *s)
{
	const unsigned char	*p;

	conf_out_bytes(o, num, "\"", 1);
	for (; *s != '\0'; s = (const char *)p) {
		for (p = (const unsigned char *)s; *p >= ' ' && *p < 0x7f &&
		    *p != '"' && *p != '\\'; p++)
			;
		conf_out_bytes(o, num, s, (size_t)((const char *)p - s));
		if (*p == '"' || *p == '\\') {
			conf_out_bytes(o, num, "\\", 1);
			conf_out_bytes(o, num, (const char *)p++, 1);
		} else if (*p != '\0')
			conf_out_printf(o, num, "\\x%02x", *p++);
	}
	conf_out_bytes(o, num, "\"", 1);
}

/* s with control characters (a newline would end the comment) as '?'. */
static void
out_printable(struct conf_out *o, int num, const char *s)
{
	for (; *s != '\0'; s++)
		conf_out_bytes(o, num, (unsigned char)*s < ' ' ? "?" : s, 1);
}

void
conf_out_comment(struct conf_out *o, int num, const char *indent,
    const char *what, const char *text)
{
	conf_out_printf(o, num, "%s# %s: ", indent, what);
	out_printable(o, num, text);
	conf_out_bytes(o, num, "\n", 1);
}

void
conf_out_header(struct conf_out *o, const char *what, const char *path,
    const char *intro)
{
	conf_out_printf(o, 0, "# ferryd.conf converted from %s%s",
	    what != NULL ? what : "", what != NULL && path != NULL ? " " : "");
	if (path != NULL)
		out_printable(o, 0, path);
	conf_out_printf(o, 0, " by ferryd %s.\n#\n", PACKAGE_VERSION);
	conf_out_bytes(o, 0, intro, strlen(intro));
	conf_out_printf(o, 0, "  Check the\n# file with \"ferryd -t -c "
	    "FILE\"; ferryd.conf(5) describes every setting.\n\n");
}

int
conf_out_finish(struct conf_out *o, struct conf_conv *conv)
{
	if (o->oom) {
		free(o->buf);
		free(o->map);
		memset(o, 0, sizeof(*o));
		return -1;
	}
	conv->text = o->buf;
	conv->linemap = o->map;
	conv->nlines = o->nlines;
	memset(o, 0, sizeof(*o));
	return 0;
}

void
conf_conv_free(struct conf_conv *conv)
{
	free(conv->text);
	free(conv->linemap);
	free(conv->warnings);
	memset(conv, 0, sizeof(*conv));
}
