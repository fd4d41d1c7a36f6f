/*
 * safefile.c - see safefile.h.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"

/*
 * The directory of path into dir (PATH_MAX bytes): 1, or 0 when path has
 * none ("name": the start directory's), or -1 with err (too long).
 */
static int
dir_of(const char *path, char *dir, const char *what, char *err,
    size_t errlen)
{
	const char	*slash = strrchr(path, '/');
	size_t		 len;

	if (slash == NULL)
		return 0;
	len = slash == path ? 1 : (size_t)(slash - path);
	if (len >= PATH_MAX) {
		snprintf(err, errlen, "cannot open %s %s: name too long", what,
		    path);
		return -1;
	}
	memcpy(dir, path, len);
	dir[len] = '\0';
	return 1;
}

/*
 * Whether the directory of path lets others swap the file: 0 when only
 * its owner may write it (or path has no directory: the start
 * directory, the admin's); 1 when others may write it but it is sticky
 * (/tmp): they cannot rename or remove what is not theirs, so a file of
 * ours (or root's) there is safe, and one of theirs is not; -1 with err
 * when others may swap any file in it.
 */
static int
dir_check(const char *path, const char *what, char *err, size_t errlen)
{
	char		 dir[PATH_MAX];
	struct stat	 st;
	int		 rc;

	if ((rc = dir_of(path, dir, what, err, errlen)) <= 0)
		return rc;
	if (stat(dir, &st) == -1) {
		snprintf(err, errlen, "cannot open %s %s: %s: %s", what, path,
		    dir, strerror(errno));
		return -1;
	}
	if (!(st.st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (st.st_mode & S_ISVTX)
		return 1;
	snprintf(err, errlen, "cannot open %s %s: its directory %s is "
	    "writable by %s and not sticky; use a directory only its owner "
	    "can write, or a sticky one such as /tmp", what, path, dir,
	    st.st_mode & S_IWOTH ? "everyone" : "its group");
	return -1;
}

/*
 * In a shared (sticky) directory, the file st may only be a regular file
 * of ours or root's: another user's could be read or grown at their will.
 * 0, or -1 with err.
 */
static int
shared_file_check(const char *path, const struct stat *st, const char *what,
    char *err, size_t errlen)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "cannot open %s %s: it is not a regular "
		    "file", what, path);
		return -1;
	}
	if (st->st_uid != geteuid() && st->st_uid != 0) {
		snprintf(err, errlen, "cannot open %s %s: it belongs to user "
		    "%lu, in a directory others can write to", what, path,
		    (unsigned long)st->st_uid);
		return -1;
	}
	/* A hard link another user made to a file of root's elsewhere. */
	if (st->st_nlink != 1) {
		snprintf(err, errlen, "cannot open %s %s: it has other names "
		    "(hard links), in a directory others can write to", what,
		    path);
		return -1;
	}
	return 0;
}

int
safefile_mkdir(const char *path, mode_t mode, const char *what, char *err,
    size_t errlen)
{
	char		 dir[PATH_MAX], whatdir[64];
	struct stat	 st;
	int		 rc;

	/* The start directory, or "/": there. */
	if ((rc = dir_of(path, dir, what, err, errlen)) <= 0 ||
	    strcmp(dir, "/") == 0)
		return rc < 0 ? -1 : 0;
	if (stat(dir, &st) == 0 || errno != ENOENT)
		return 0;	/* safefile_open says what is wrong with it */
	/*
	 * Made only where no one else could have made it first (in /tmp,
	 * another user could: name a file there, not a directory).
	 */
	snprintf(whatdir, sizeof(whatdir), "%s directory", what);
	if ((rc = dir_check(dir, whatdir, err, errlen)) == -1)
		return -1;
	if (rc == 1) {
		snprintf(err, errlen, "cannot create the directory %s of %s "
		    "%s: others can write to the directory it would be in",
		    dir, what, path);
		return -1;
	}
	if (mkdir(dir, mode) == -1) {
		if (errno == EEXIST)
			return 0;	/* made meanwhile: as if it were there */
		snprintf(err, errlen, "cannot create the directory %s of %s "
		    "%s: %s", dir, what, path, strerror(errno));
		return -1;
	}
	/* The umask (UMask=0077 in the unit) must not decide the mode. */
	if (chmod(dir, mode) == -1) {
		snprintf(err, errlen, "cannot set the mode of %s, the directory "
		    "of %s %s: %s", dir, what, path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * open(2), telling in *made whether O_CREAT made the file: an O_EXCL
 * open first, then one of what is there.
 */
static int
open_made(const char *path, int flags, mode_t mode, bool *made)
{
	int fd;

	*made = false;
	if (!(flags & O_CREAT) || (flags & O_EXCL))
		return open(path, flags, mode);
	if ((fd = open(path, flags | O_EXCL, mode)) != -1) {
		*made = true;
		return fd;
	}
	return errno == EEXIST ? open(path, flags, mode) : -1;
}

int
safefile_open(const char *path, int flags, mode_t mode, const char *what,
    char *err, size_t errlen)
{
	struct stat	st;
	int		fd, shared;
	bool		made;

	if ((shared = dir_check(path, what, err, errlen)) == -1)
		return -1;
	/*
	 * In a shared directory, without blocking: a FIFO someone put
	 * there would hang the open until shared_file_check refuses it.
	 */
	fd = open_made(path, flags | O_NOFOLLOW | O_CLOEXEC |
	    (shared ? O_NONBLOCK : 0), mode, &made);
	if (fd == -1) {
		snprintf(err, errlen, "cannot open %s %s: %s", what, path,
		    errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return -1;
	}
	/*
	 * A file made here has the mode asked, whatever the umask
	 * (UMask=0077 in the unit would make a log 0600 where the page
	 * says 0640); one that was there keeps the administrator's.
	 */
	if (made && fchmod(fd, mode) == -1) {
		snprintf(err, errlen, "cannot set the mode of %s %s: %s", what,
		    path, strerror(errno));
		close(fd);
		return -1;
	}
	if (shared && (fstat(fd, &st) == -1 ||
	    shared_file_check(path, &st, what, err, errlen) == -1 ||
	    (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL,
	    fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1))) {
		close(fd);
		return -1;
	}
	return fd;
}

int
safefile_check(const char *path, bool makes_dir, const char *what, char *err,
    size_t errlen)
{
	char		dir[PATH_MAX], whatdir[64];
	struct stat	st;
	int		shared;

	/* A missing directory safefile_mkdir() would make: judge that. */
	if (makes_dir && dir_of(path, dir, what, err, errlen) == 1 &&
	    strcmp(dir, "/") != 0 && stat(dir, &st) == -1 && errno == ENOENT) {
		snprintf(whatdir, sizeof(whatdir), "%s directory", what);
		if ((shared = dir_check(dir, whatdir, err, errlen)) == 1)
			snprintf(err, errlen, "cannot create the directory %s of "
			    "%s %s: others can write to the directory it would "
			    "be in", dir, what, path);
		return shared == 0 ? 0 : -1;
	}
	if ((shared = dir_check(path, what, err, errlen)) == -1)
		return -1;
	if (lstat(path, &st) == -1)
		return 0;	/* made by the open, or its error then */
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "cannot open %s %s: it is a symbolic "
		    "link", what, path);
		return -1;
	}
	return shared ? shared_file_check(path, &st, what, err, errlen) : 0;
}

/* All len bytes at data to fd: 0, or -1 with errno (ENOSPC if short). */
static int
write_all(int fd, const char *data, size_t len)
{
	ssize_t	n;
	size_t	off = 0;

	while (off < len) {
		if ((n = write(fd, data + off, len - off)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

/*
 * The rename that put path in place is an entry of its directory: it
 * reaches the disk when the directory is synced, not before, and a
 * power cut in between brings back the old file.  0, or 1 with err.
 */
static int
dir_sync(const char *path, const char *what, char *err, size_t errlen)
{
	char	 dir[PATH_MAX];
	int	 fd, rc, saved;

	if ((rc = dir_of(path, dir, what, err, errlen)) == -1)
		return 1;
	if (rc == 0)
		strcpy(dir, ".");
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		goto fail;
	/* EINVAL: a file system with nothing to sync in a directory. */
	rc = fsync(fd) == -1 && errno != EINVAL ? -1 : 0;
	saved = errno;
	close(fd);
	if (rc == 0)
		return 0;
	errno = saved;
fail:
	snprintf(err, errlen, "%s %s was written but its directory %s was "
	    "not synced: %s; the change may not outlast a power cut", what,
	    path, dir, strerror(errno));
	return 1;
}

/*
 * data to a new PATH.tmp, then renamed over path; with sync, the file
 * reaches the disk before the rename and the directory after it.
 */
static int
replace(const char *path, const char *data, size_t len, mode_t mode,
    bool sync, const char *what, char *err, size_t errlen)
{
	char	tmp[PATH_MAX];
	int	fd, saved;

	if (dir_check(path, what, err, errlen) == -1)
		return -1;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		snprintf(err, errlen, "cannot write %s %s: name too long", what,
		    path);
		return -1;
	}
	/* O_EXCL after unlink: never through a link someone left there. */
	(void)unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, mode)) == -1)
		goto fail;
	if (write_all(fd, data, len) == -1 || (sync && fsync(fd) == -1)) {
		saved = errno;
		close(fd);
		errno = saved;
		goto fail_unlink;
	}
	if (close(fd) == 0 && rename(tmp, path) == 0)
		return sync ? dir_sync(path, what, err, errlen) : 0;
fail_unlink:
	saved = errno;
	(void)unlink(tmp);
	errno = saved;
fail:
	snprintf(err, errlen, "cannot write %s %s: %s", what, path,
	    strerror(errno));
	return -1;
}

int
safefile_replace(const char *path, const char *data, size_t len, mode_t mode,
    const char *what, char *err, size_t errlen)
{
	return replace(path, data, len, mode, true, what, err, errlen);
}

int
safefile_replace_unsynced(const char *path, const char *data, size_t len,
    mode_t mode, const char *what, char *err, size_t errlen)
{
	return replace(path, data, len, mode, false, what, err, errlen);
}
