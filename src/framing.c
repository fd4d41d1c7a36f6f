/*
 * framing.c - datagrams in a byte stream, raw or with a 2-byte length
 * before each (framing.h).
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bug.h"
#include "framing.h"

/* The most datagrams one frame_out_write takes. */
#define WRITE_BATCH	64

/* A frame's length prefix, and a frame's size with it. */
#define PREFIX		2

static size_t
frame_size(const char *p)
{
	return PREFIX + ((size_t)(unsigned char)p[0] << 8 |
	    (unsigned char)p[1]);
}

/* Whether p (len bytes) starts with a whole frame. */
static bool
frame_whole(const char *p, size_t len)
{
	return len >= PREFIX && len >= frame_size(p);
}

static void
prefix_put(unsigned char *p, size_t len)
{
	p[0] = (unsigned char)(len >> 8);
	p[1] = (unsigned char)len;
}

/*
 * Bytes read from fd into buf; 0 when it has none yet; -1 at its end
 * (errno 0) or on an error.
 */
static ssize_t
stream_recv(int fd, char *buf, size_t len)
{
	ssize_t	r;

	do
		r = recv(fd, buf, len, 0);
	while (r == -1 && errno == EINTR);
	if (r > 0)
		return r;
	if (r == 0) {
		errno = 0;
		return -1;
	}
	return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
}

/* Hold len bytes of p after what in holds already.  0, or -1. */
static int
in_hold(struct frame_in *in, const void *p, size_t len)
{
	char	*h;

	if (in->len + len > in->cap) {
		if ((h = realloc(in->held, in->len + len)) == NULL)
			return -1;
		in->held = h;
		in->cap = in->len + (uint32_t)len;
	}
	memcpy(in->held + in->len, p, len);
	in->len += (uint32_t)len;
	return 0;
}

int
frame_in_read(struct frame_in *in, int fd, int framing, char *buf,
    size_t dgram_max, struct iovec *iov, int max)
{
	size_t	len = in->len, off;
	ssize_t	r;
	int	n;

	BUG_ON(max == 0 || in->len > FRAME_IN_BUFSIZE);
	if (len > 0)
		memcpy(buf, in->held, len);
	in->len = 0;
	if (framing == FRAMING_NONE) {
		frame_in_free(in);
		if (len == 0 && (r = stream_recv(fd, buf, dgram_max <
		    FRAME_IN_BUFSIZE ? dgram_max : FRAME_IN_BUFSIZE)) <= 0)
			return (int)r;
		iov[0].iov_base = buf;
		iov[0].iov_len = len > 0 ? len : (size_t)r;
		return 1;
	}
	/* A whole frame fits in buf: if there is none yet, read. */
	if (!frame_whole(buf, len)) {
		if ((r = stream_recv(fd, buf + len, FRAME_IN_BUFSIZE - len)) < 0)
			return -1;	/* held bytes of a frame cut short: lost */
		len += (size_t)r;
	}
	for (n = 0, off = 0; n < max && frame_whole(buf + off, len - off);
	    n++) {
		iov[n].iov_base = buf + off + PREFIX;
		iov[n].iov_len = frame_size(buf + off) - PREFIX;
		off += frame_size(buf + off);
	}
	if (off == len)
		frame_in_free(in);	/* nothing left in hand */
	else if (in_hold(in, buf + off, len - off) == -1)
		return -1;	/* ENOMEM: the stream cannot go on */
	return n;
}

int
frame_in_unread(struct frame_in *in, int framing, const struct iovec *iov,
    int n)
{
	struct frame_in	 front = { NULL, 0, 0 };
	unsigned char	 prefix[PREFIX];
	int		 i;

	/* Raw, a read is one datagram: at most that one comes back. */
	BUG_ON(framing == FRAMING_NONE && (n > 1 || in->len != 0));
	for (i = 0; i < n; i++) {
		prefix_put(prefix, iov[i].iov_len);
		if ((framing == FRAMING_LENGTH16 &&
		    in_hold(&front, prefix, PREFIX) == -1) ||
		    in_hold(&front, iov[i].iov_base, iov[i].iov_len) == -1) {
			frame_in_free(&front);
			return -1;
		}
	}
	if (in->len > 0 && in_hold(&front, in->held, in->len) == -1) {
		frame_in_free(&front);
		return -1;
	}
	frame_in_free(in);
	*in = front;
	return 0;
}

bool
frame_in_held(const struct frame_in *in)
{
	return in->len > 0;
}

void
frame_in_free(struct frame_in *in)
{
	free(in->held);
	in->held = NULL;
	in->len = in->cap = 0;
}

/* Hold len bytes of p; 0, or -1 when that would pass FRAME_OUT_MAX. */
static int
out_hold(struct frame_out *out, const void *p, size_t len)
{
	if (out->len - out->off + len > FRAME_OUT_MAX)
		return -1;
	if (out->buf == NULL) {
		if ((out->buf = malloc(FRAME_OUT_MAX)) == NULL)
			return -1;
		out->len = out->off = 0;
	} else if (out->len + len > FRAME_OUT_MAX) {
		memmove(out->buf, out->buf + out->off, out->len - out->off);
		out->len -= out->off;
		out->off = 0;
	}
	BUG_ON(out->off > out->len || out->len + len > FRAME_OUT_MAX);
	memcpy(out->buf + out->len, p, len);
	out->len += len;
	return 0;
}

int
frame_out_hold(struct frame_out *out, int framing, const struct iovec *iov,
    int n)
{
	unsigned char	prefix[PREFIX];
	size_t		extra = framing == FRAMING_LENGTH16 ? PREFIX : 0;
	int		i;

	for (i = 0; i < n; i++) {
		/* Whole frames only: the prefix and payload go together. */
		if (out->len - out->off + extra + iov[i].iov_len >
		    FRAME_OUT_MAX)
			break;
		prefix_put(prefix, iov[i].iov_len);
		if ((extra > 0 && out_hold(out, prefix, extra) == -1) ||
		    out_hold(out, iov[i].iov_base, iov[i].iov_len) == -1)
			break;
	}
	return i;
}

int
frame_out_write(struct frame_out *out, int fd, int framing,
    const struct iovec *iov, int n)
{
	struct iovec	 v[2 * WRITE_BATCH];
	unsigned char	 prefix[WRITE_BATCH][PREFIX];
	struct msghdr	 mh;
	size_t		 total = 0, done, size;
	ssize_t		 r;
	int		 i, nv = 0;

	if (frame_out_held(out))
		return frame_out_hold(out, framing, iov, n);	/* in order */
	if (n > WRITE_BATCH)
		n = WRITE_BATCH;
	for (i = 0; i < n; i++) {
		if (framing == FRAMING_LENGTH16) {
			prefix_put(prefix[i], iov[i].iov_len);
			v[nv].iov_base = prefix[i];
			v[nv++].iov_len = PREFIX;
			total += PREFIX;
		}
		v[nv++] = iov[i];
		total += iov[i].iov_len;
	}
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = v;
	mh.msg_iovlen = (size_t)nv;
	do
		r = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (r == -1 && errno == EINTR);
	if (r == -1) {
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		r = 0;
	}
	if ((size_t)r == total)
		return n;
	/* Hold the rest of the frame cut short, then whole frames. */
	BUG_ON((size_t)r > total);
	done = (size_t)r;
	for (i = 0; i < n; i++) {
		size = iov[i].iov_len + (framing == FRAMING_LENGTH16 ?
		    PREFIX : 0);
		if (done < size)
			break;
		done -= size;
	}
	if (done > 0) {
		if (framing == FRAMING_LENGTH16 && done < PREFIX &&
		    out_hold(out, prefix[i] + done, PREFIX - done) == -1)
			return -1;
		if (framing == FRAMING_LENGTH16)
			done = done < PREFIX ? 0 : done - PREFIX;
		if (out_hold(out, (char *)iov[i].iov_base + done,
		    iov[i].iov_len - done) == -1)
			return -1;
		i++;
	}
	return i + frame_out_hold(out, framing, iov + i, n - i);
}

int
frame_out_flush(struct frame_out *out, int fd)
{
	ssize_t	r;

	while (out->off < out->len) {
		r = send(fd, out->buf + out->off, out->len - out->off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (r == -1) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 1 : -1;
		}
		out->off += (size_t)r;
		BUG_ON(out->off > out->len);
	}
	frame_out_free(out);
	return 0;
}

bool
frame_out_held(const struct frame_out *out)
{
	return out->off < out->len;
}

void
frame_out_free(struct frame_out *out)
{
	free(out->buf);
	out->buf = NULL;
	out->len = out->off = 0;
}
