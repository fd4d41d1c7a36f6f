/*
 * conf_load.c - the loader's front door: a configuration file read in
 * the syntax asked for, or the one it turns out to be (libconfig, else
 * rinetd's), or sslh's from its command line.  The reading of each
 * syntax is in conf.c (libconfig), conf_rinetd*.c and conf_sslh*.c.
 */
#include "ferryd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "conf.h"
#include "conf_file.h"
#include "conf_rinetd.h"
#include "conf_schema.h"

/* Whether the file at path reads as a rinetd.conf. */
static bool
is_rinetd_file(const char *path)
{
	char	 err[CONF_ERR_MAX], *text;
	bool	 yes;

	if ((text = rinetd_read(path, err, sizeof(err))) == NULL)
		return false;
	yes = rinetd_detect(text);
	free(text);
	return yes;
}

struct conf *
conf_load(const char *path, char *err, size_t errlen)
{
	return conf_load_syntax(path, CONF_SYNTAX_AUTO, err, errlen);
}

struct conf *
conf_load_syntax(const char *path, int syntax, char *err, size_t errlen)
{
	struct conf_loader	 ld = { path, err, errlen, NULL, false };
	struct conf_text text;
	struct conf	*cfg;

	if (syntax == CONF_SYNTAX_RINETD)
		return conf_load_rinetd(path, err, errlen);
	if (conf_text_read(path, &text, err, errlen) == -1)
		return NULL;
	ld.text = &text;
	cfg = conf_load_text(&ld, CONF_SYNTAX_LIBCONFIG, &text);
	conf_text_free(&text);
	/* Only a file libconfig cannot parse at all may be rinetd's. */
	if (cfg == NULL && syntax == CONF_SYNTAX_AUTO && ld.syntax_error &&
	    is_rinetd_file(path))
		cfg = conf_load_rinetd(path, err, errlen);
	return cfg;
}

struct conf *
conf_load_rinetd(const char *path, char *err, size_t errlen)
{
	struct conf_loader		 ld = { path, err, errlen, NULL,
	    false };
	struct rinetd_conv	 conv;
	struct conf_text	 ctext;
	struct conf		*cfg = NULL;
	char			*text;

	if ((text = rinetd_read(path, err, errlen)) == NULL)
		return NULL;
	if (rinetd_convert(path, text, &conv, err, errlen) == 0) {
		conf_warn_lines(conv.warnings);
		if (conf_text_from_lines(conv.files, conv.nfiles, conv.text,
		    conv.filemap, conv.linemap, conv.nlines, &ctext) == 0) {
			ld.text = &ctext;
			cfg = conf_load_text(&ld, CONF_SYNTAX_RINETD, &ctext);
			conf_text_free(&ctext);
		} else
			snprintf(err, errlen, "%s: out of memory", path);
		rinetd_conv_free(&conv);
	}
	free(text);
	return cfg;
}

struct conf *
conf_load_as(const char *path, int syntax, const struct sslh_cmdline *sslh,
    char *err, size_t errlen)
{
	if (sslh != NULL)
		return conf_load_sslh(sslh, NULL, err, errlen);
	if (syntax == CONF_SYNTAX_SSLH) {
		snprintf(err, errlen, "%s: sslh's settings need its command "
		    "line: give it after --sslh", path);
		return NULL;
	}
	return conf_load_syntax(path, syntax, err, errlen);
}
