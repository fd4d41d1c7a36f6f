/*
 * test_framing.c - unit tests of datagrams in a stream (framing.c), over
 * socketpairs: length16 frames that arrive a byte at a time come out
 * whole; frames read but not sent go back in line first; the end of the
 * stream, also inside a frame; raw reads cut at the largest datagram;
 * writes the stream has no room for are held whole and flushed in
 * order, and past FRAME_OUT_MAX whole frames are dropped, never parts.
 */
#include "ferryd.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "framing.h"
#include "testlib.h"

static char buf[FRAME_IN_BUFSIZE];

static void
pair(int sv[2], int sndbuf)
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1) {
		perror("socketpair");
		exit(2);
	}
	(void)fcntl(sv[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(sv[1], F_SETFL, O_NONBLOCK);
	if (sndbuf > 0)
		(void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf,
		    sizeof(sndbuf));
}

/* The bytes of datagram i of a test: its size, its content. */
static size_t
size_of(int i)
{
	return (size_t)(i * 7919) % 3000;
}

static unsigned char
byte_of(int i, size_t j)
{
	return (unsigned char)(i * 31 + j);
}

static bool
dgram_is(const struct iovec *v, int i)
{
	size_t j;

	if (v->iov_len != size_of(i))
		return false;
	for (j = 0; j < v->iov_len; j++)
		if (((unsigned char *)v->iov_base)[j] != byte_of(i, j))
			return false;
	return true;
}

/* Frames 0..n-1 as length16 bytes into out; returns the length. */
static size_t
encode(int n, unsigned char *out)
{
	size_t	len = 0, j;
	int	i;

	for (i = 0; i < n; i++) {
		out[len++] = (unsigned char)(size_of(i) >> 8);
		out[len++] = (unsigned char)size_of(i);
		for (j = 0; j < size_of(i); j++)
			out[len++] = byte_of(i, j);
	}
	return len;
}

static void
test_in_bytewise(void)
{
	static unsigned char	 stream[40 * 3002];
	struct frame_in		 in = { NULL, 0, 0 };
	struct iovec		 iov[64];
	size_t			 len = encode(40, stream), k;
	int			 sv[2], n, got = 0, bad = 0, i;

	pair(sv, 0);
	for (k = 0; k < len; k++) {
		if (write(sv[1], stream + k, 1) != 1)
			bad++;
		while ((n = frame_in_read(&in, sv[0], FRAMING_LENGTH16, buf,
		    65507, iov, 64)) > 0)
			for (i = 0; i < n; i++)
				bad += !dgram_is(&iov[i], got++);
		if (n == -1)
			bad++;
	}
	check(got == 40 && bad == 0 && !frame_in_held(&in),
	    "length16 in: 40 frames sent a byte at a time come out whole "
	    "(%d, %d wrong)", got, bad);
	/* Half a frame, then the end: the end is reported. */
	(void)write(sv[1], "\0\5ab", 4);
	close(sv[1]);
	n = frame_in_read(&in, sv[0], FRAMING_LENGTH16, buf, 65507, iov, 64);
	if (n == 0)
		n = frame_in_read(&in, sv[0], FRAMING_LENGTH16, buf, 65507,
		    iov, 64);
	check(n == -1 && errno == 0, "length16 in: the end inside a frame is "
	    "the end (%d)", n);
	frame_in_free(&in);
	close(sv[0]);
}

static void
test_in_batches_and_unread(void)
{
	static unsigned char	 stream[200 * 3002];
	struct frame_in		 in = { NULL, 0, 0 };
	struct iovec		 iov[16];
	size_t			 len = encode(200, stream), off = 0;
	ssize_t			 w;
	int			 sv[2], n, got = 0, bad = 0, i, keep, rounds = 0;

	pair(sv, 0);
	/* 16 at most per call; each time the last 3 go back in line. */
	while (got < 200 && rounds++ < 100000) {
		if (off < len && (w = write(sv[1], stream + off, len - off)) > 0)
			off += (size_t)w;
		if ((n = frame_in_read(&in, sv[0], FRAMING_LENGTH16, buf,
		    65507, iov, 16)) <= 0) {
			bad += n == -1;
			continue;
		}
		keep = n > 3 ? n - 3 : n;
		for (i = 0; i < keep; i++)
			bad += !dgram_is(&iov[i], got++);
		if (keep < n && frame_in_unread(&in, FRAMING_LENGTH16,
		    iov + keep, n - keep) == -1)
			bad++;
	}
	check(got == 200 && bad == 0, "length16 in: batches of 16, the last "
	    "3 of each unread: all 200 in order (%d, %d wrong)", got, bad);
	frame_in_free(&in);
	close(sv[0]);
	close(sv[1]);
}

static void
test_in_raw(void)
{
	static char		 big[100000];
	struct frame_in		 in = { NULL, 0, 0 };
	struct iovec		 iov[4], v;
	size_t			 total = 0;
	int			 sv[2], n, max = 0;

	pair(sv, 1 << 20);
	memset(big, 'x', sizeof(big));
	(void)write(sv[1], big, sizeof(big));
	while ((n = frame_in_read(&in, sv[0], FRAMING_NONE, buf, 65507, iov,
	    4)) > 0) {
		total += iov[0].iov_len;
		if ((int)iov[0].iov_len > max)
			max = (int)iov[0].iov_len;
		if (n != 1)
			max = -1;
	}
	check(total == sizeof(big) && max > 0 && max <= 65507,
	    "raw in: one datagram per read, none over 65507 bytes (%zu, "
	    "largest %d)", total, max);
	v.iov_base = (void *)"again";
	v.iov_len = 5;
	(void)frame_in_unread(&in, FRAMING_NONE, &v, 1);
	n = frame_in_read(&in, sv[0], FRAMING_NONE, buf, 65507, iov, 4);
	check(n == 1 && iov[0].iov_len == 5 &&
	    memcmp(iov[0].iov_base, "again", 5) == 0,
	    "raw in: an unread datagram comes back whole, first");
	frame_in_free(&in);
	close(sv[0]);
	close(sv[1]);
}

/* Read the frames fd has; each must be datagram *next, in order. */
static int
drain_frames(struct frame_in *in, int fd, int *next, int *bad)
{
	struct iovec	iov[64];
	int		n, i, got = 0;

	while ((n = frame_in_read(in, fd, FRAMING_LENGTH16, buf, 65507, iov,
	    64)) > 0)
		for (i = 0; i < n; i++, got++)
			*bad += !dgram_is(&iov[i], (*next)++);
	return got;
}

static void
test_out_held_and_flushed(void)
{
	static unsigned char	 data[64][3000];
	struct frame_out	 out = { NULL, 0, 0 };
	struct frame_in		 in = { NULL, 0, 0 };
	struct iovec		 iov[64];
	int			 sv[2], i, taken, next = 0, bad = 0, got = 0;
	int			 rounds = 0, r;
	size_t			 j;

	pair(sv, 4096);
	for (i = 0; i < 64; i++) {
		for (j = 0; j < size_of(i); j++)
			data[i][j] = byte_of(i, j);
		iov[i].iov_base = data[i];
		iov[i].iov_len = size_of(i);
	}
	taken = frame_out_write(&out, sv[0], FRAMING_LENGTH16, iov, 64);
	check(taken == 64 && frame_out_held(&out),
	    "length16 out: a small socket buffer takes part; the rest is held "
	    "(%d taken)", taken);
	while (rounds++ < 10000 && (r = frame_out_flush(&out, sv[0])) == 1)
		got += drain_frames(&in, sv[1], &next, &bad);
	got += drain_frames(&in, sv[1], &next, &bad);
	check(got == 64 && bad == 0 && !frame_out_held(&out) &&
	    !frame_in_held(&in),
	    "length16 out: flushed, the other end reads all 64 frames whole, "
	    "in order (%d, %d wrong)", got, bad);
	frame_in_free(&in);
	frame_out_free(&out);
	close(sv[0]);
	close(sv[1]);
}

static void
test_out_bounded(void)
{
	static unsigned char	 big[60000];
	struct frame_out	 out = { NULL, 0, 0 };
	struct frame_in		 in = { NULL, 0, 0 };
	struct iovec		 iov[64];
	int			 sv[2], i, taken = 0, n, got = 0, bad = 0;
	int			 rounds = 0;

	pair(sv, 4096);
	for (i = 0; i < 20; i++) {
		iov[i].iov_base = big;
		iov[i].iov_len = sizeof(big);
	}
	/* Nobody reads: the socket fills, then the frame_out. */
	for (i = 0; i < 10; i++)
		if ((n = frame_out_write(&out, sv[0], FRAMING_LENGTH16, iov,
		    20)) >= 0)
			taken += n;
	check(taken < 200 && out.len - out.off <= FRAME_OUT_MAX,
	    "length16 out: a stream that takes nothing holds at most "
	    "FRAME_OUT_MAX; the rest is dropped (%d of 200 taken, %zu held)",
	    taken, out.len - out.off);
	do {
		while ((n = frame_in_read(&in, sv[1], FRAMING_LENGTH16, buf,
		    65507, iov, 64)) > 0)
			for (i = 0; i < n; i++, got++)
				bad += iov[i].iov_len != sizeof(big);
	} while (rounds++ < 10000 && frame_out_flush(&out, sv[0]) != 0);
	while ((n = frame_in_read(&in, sv[1], FRAMING_LENGTH16, buf, 65507,
	    iov, 64)) > 0)
		for (i = 0; i < n; i++, got++)
			bad += iov[i].iov_len != sizeof(big);
	check(got == taken && bad == 0 && !frame_in_held(&in),
	    "length16 out: what was taken arrives as whole frames (%d of %d, "
	    "%d wrong)", got, taken, bad);
	frame_in_free(&in);
	frame_out_free(&out);
	close(sv[0]);
	close(sv[1]);
}

int
main(void)
{
	test_in_bytewise();
	test_in_batches_and_unread();
	test_in_raw();
	test_out_held_and_flushed();
	test_out_bounded();
	return test_summary();
}
