/*
 * conf_rinetd.h - reading rinetd.conf: rinetd's syntax converted to the
 * equivalent ferryd.conf text, with a map from the lines of that text back
 * to the lines of the rinetd file, so that whatever the loader finds wrong
 * later is still reported at the rinetd line it came from.
 */
#ifndef FERRYD_CONF_RINETD_H
#define FERRYD_CONF_RINETD_H

#include <stdbool.h>
#include <stddef.h>

struct rinetd_conv {
	char	*text;		/* libconfig text, NUL-terminated */
	int	*linemap;	/* linemap[i]: rinetd line of text line i + 1 */
	size_t	 nlines;	/* lines in text (and entries in linemap) */
};

/*
 * The whole file at path as a NUL-terminated string (free() it), read
 * as conf_file_read() reads it, or NULL with its error in err; a NUL
 * byte in the file is an error at its line.
 */
char *rinetd_read(const char *path, char *err, size_t errlen);

/*
 * Whether text is clearly a rinetd.conf: its first line that is neither
 * blank nor a comment is a rinetd forwarding rule or allow, deny, logfile,
 * pidlogfile or logcommon, written as rinetd writes them.
 */
bool rinetd_detect(const char *text);

/*
 * Convert text, read from path, into out.  Every line of text is checked
 * for rinetd's syntax, UDP rules are refused, allow and deny patterns are
 * compiled; host names are left for the loader to resolve.  The result
 * carries a header comment and each rinetd line as a comment above the
 * setting made from it (what ferryd --convert prints).  Returns 0, or -1
 * with "PATH:LINE: problem" in err.
 */
int  rinetd_convert(const char *path, const char *text,
    struct rinetd_conv *out, char *err, size_t errlen);

void rinetd_conv_free(struct rinetd_conv *conv);

#endif
