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
	char	 *text;		/* libconfig text, NUL-terminated */
	int	 *linemap;	/* linemap[i]: rinetd line of text line i + 1 */
	int	 *filemap;	/* filemap[i]: ... in files[filemap[i]] */
	size_t	  nlines;	/* lines in text (and entries in the maps) */
	char	**files;	/* the rinetd file, then the ones included */
	size_t	  nfiles;
	char	 *warnings;	/* "FILE:LINE: ...\n" each, or NULL */
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
 * pidlogfile, logcommon or one of rinetd-uv's words, written as rinetd
 * writes them; or rinetd-uv's YAML form, which rinetd_convert() refuses
 * with the way out.
 */
bool rinetd_detect(const char *text);

/*
 * Convert text, read from path, into out.  Every line of text is checked
 * for rinetd's and rinetd-uv's syntax, included files are read (globs,
 * relative to the including file, at most 10 deep, none twice), allow
 * and deny patterns are compiled; host names are left for the loader to
 * resolve.  The result carries a header comment and each rinetd line as
 * a comment above the setting made from it (what ferryd --convert
 * prints); words kept only with a warning leave it in out->warnings.
 * Returns 0, or -1 with "FILE:LINE: problem" in err.
 */
int  rinetd_convert(const char *path, const char *text,
    struct rinetd_conv *out, char *err, size_t errlen);

void rinetd_conv_free(struct rinetd_conv *conv);

#endif
