/*
 * fuzz_sslh.c - libFuzzer harness for ferryd --sslh's converter, built
 * two ways.  FUZZ_SSLH_ARGV 0: the bytes are an sslh.cfg, given with -F.
 * FUZZ_SSLH_ARGV 1: the bytes are sslh's command line, one argument a
 * line, then after an empty line the file that -F names (whatever name
 * -F gives, so that no input reads another file).  libwrap's files are
 * looked for where there are none, so that no answer depends on this
 * machine's /etc.  Built with -DFERRYD_FUZZING, which resolves no host
 * name.
 *
 * Whatever the input, the converter answers.  A refusal says why, at a
 * line of sslh's file or an option of its command line.  A conversion
 * is ferryd.conf text that libconfig parses and that ferryd's own
 * loader takes, the round trip that ferryd --sslh makes at every start.
 * The loader may still refuse what sslh's settings mean (a backend that
 * is the listen address itself, a chroot that does not exist, a host
 * name this build does not resolve), at sslh's line; but never the
 * text's form (a setting unknown, of the wrong type or out of its set of
 * values): that is the converter writing what it should have refused
 * or written otherwise.  What ferryd -T writes of a loaded result loads
 * again and is written the same.
 */
#include "ferryd.h"

#include <libconfig.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "conf_fuzz.h"
#include "conf_sslh.h"

#ifndef FUZZ_SSLH_ARGV
#define FUZZ_SSLH_ARGV	0
#endif
#define ARGS_MAX	64	/* arguments taken from an input */
#define NO_HOSTS_DIR	"/nonexistent/ferryd-fuzz"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file -F names, made once. */
static char path[] = "/tmp/ferryd-fuzz-sslh.XXXXXX";
static int  fd = -1;

/* An answer that is not one: print what led to it, and abort. */
static void
fail(const char *what, const char *err, const char *text)
{
	fprintf(stderr, "fuzz_sslh: %s: %s\n%s\n", what, err,
	    text != NULL ? text : "");
	abort();
}

/* A refusal says where: "FILE:LINE: ", "FILE: " or the command line. */
static void
check_refusal(const char *err)
{
	size_t	n = strlen(path);

	if (strncmp(err, SSLH_CMDLINE ": ", strlen(SSLH_CMDLINE) + 2) == 0 ||
	    (strncmp(err, path, n) == 0 && err[n] == ':' && err[n + 1] != '\0'))
		return;
	fail("a refusal that does not say where", err, NULL);
}

/*
 * The command line: argv split from data (one a line, up to the empty
 * line), the rest written to the file.  0, or -1 when sslh_cmdline_parse
 * refused.
 */
static int
parse_args(const uint8_t *data, size_t size, struct sslh_cmdline *cl,
    char *err, size_t errlen)
{
	char	*copy, *argv[ARGS_MAX], *p, *end;
	size_t	 i, args = size, argc = 0;
	int	 rc;

	for (i = 0; i + 1 < size && args == size; i++)
		if (data[i] == '\n' && data[i + 1] == '\n')
			args = i;
	fuzz_put_file(fd, data + args + (args < size ? 2 : 0),
	    size - args - (args < size ? 2 : 0));
	if ((copy = malloc(args + 1)) == NULL)
		abort();
	memcpy(copy, data, args);
	copy[args] = '\0';
	for (p = copy, end = copy + args; args > 0 && argc < ARGS_MAX; ) {
		argv[argc++] = p;
		if ((p = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		*p++ = '\0';
	}
	rc = sslh_cmdline_parse((int)argc, argv, cl, err, errlen);
	free(copy);
	return rc;
}

/*
 * The loader's messages for a text whose form is wrong (conf_schema.c):
 * "unknown setting ..." or "\"KEY\" must be a string ...", after the
 * place.  Matched there only: the rest of a message quotes the input.
 */
static const char *const form_msgs[] = {
	"unknown setting", "a rule must be", "a route must be", NULL
};
static const char *const form_after_key[] = {
	" must be a string", " must be an integer", " must be one of",
	" must be true or false", " must be a list", " must be a group",
	" must be a number of seconds", " patterns must be strings", NULL
};

static bool
starts(const char *s, const char *const *prefixes)
{
	size_t	i;

	for (i = 0; prefixes[i] != NULL; i++)
		if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* The loader refused the converted text: where, and not for its form. */
static void
check_load_refusal(const char *err, const char *text)
{
	const char	*msg = err;

	check_refusal(err);
	if (strncmp(msg, path, strlen(path)) == 0) {
		msg += strlen(path) + 1;
		msg += strspn(msg, "0123456789");
		msg += *msg == ':';
	} else
		msg += strlen(SSLH_CMDLINE) + 1;
	msg += strspn(msg, " ");
	if (starts(msg, form_msgs))
		fail("the loader refused the converted text's form", err, text);
	if (*msg == '"') {
		msg += 1 + strspn(msg + 1, "abcdefghijklmnopqrstuvwxyz_0123456789");
		if (*msg == '"' && starts(msg + 1, form_after_key))
			fail("the loader refused the converted text's form",
			    err, text);
	}
}

/* The converted text is libconfig's syntax: else ferryd's own fault. */
static void
check_text(const struct conf_conv *conv)
{
	config_t	lc;

	config_init(&lc);
	if (!config_read_string(&lc, conv->text)) {
		fprintf(stderr, "line %d: %s\n", config_error_line(&lc),
		    config_error_text(&lc));
		fail("the converted text is not libconfig's", "", conv->text);
	}
	config_destroy(&lc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sslh_cmdline	 cl;
	struct conf_conv	 conv;
	struct conf		*cfg;
	char			 err[CONF_ERR_MAX];
	struct sslh_run		 run;

	if (fd == -1)
		fd = fuzz_temp_file(path);
	err[0] = '\0';
	memset(&cl, 0, sizeof(cl));
	if (FUZZ_SSLH_ARGV) {
		if (parse_args(data, size, &cl, err, sizeof(err)) == -1) {
			check_refusal(err);
			return 0;
		}
		if (cl.config != NULL) {
			free(cl.config);
			if ((cl.config = strdup(path)) == NULL)
				abort();
		}
	} else {
		fuzz_put_file(fd, data, size);
		if ((cl.config = strdup(path)) == NULL)
			abort();
	}
	cl.hosts_dir = NO_HOSTS_DIR;
	if (sslh_convert(&cl, &conv, &run, err, sizeof(err)) != 0) {
		check_refusal(err);
		sslh_cmdline_free(&cl);
		return 0;
	}
	check_text(&conv);
	if ((cfg = conf_load_sslh(&cl, NULL, err, sizeof(err))) == NULL)
		check_load_refusal(err, conv.text);
	else {
		fuzz_check_show(cfg);
		conf_free(cfg);
	}
	conf_conv_free(&conv);
	sslh_cmdline_free(&cl);
	return 0;
}
