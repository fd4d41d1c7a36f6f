/*
 * framing.h - datagrams carried in a byte stream, for rules whose two
 * sides differ in protocol (UDP clients of a TCP backend, TCP clients of
 * a UDP backend).  With FRAMING_NONE the bytes go raw, as rinetd and oi
 * carry them: what one read returns is one datagram.  With
 * FRAMING_LENGTH16 each datagram is a 2-byte big-endian length and the
 * payload (DNS over TCP, RFC 1035 4.2.2), so boundaries survive.
 *
 * Both directions keep what they could not finish beside the session:
 * a frame_in holds the bytes of frames read but not yet taken, a
 * frame_out the bytes the stream had no room for.  Neither allocates
 * while it is empty.
 */
#ifndef FERRYD_FRAMING_H
#define FERRYD_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/*
 * How datagrams travel in a stream when a rule's two sides differ in
 * protocol (UDP to TCP or TCP to UDP).
 */
enum rule_framing {
	FRAMING_NONE = 0,	/* raw bytes: one read makes one datagram */
	FRAMING_LENGTH16	/* a 2-byte big-endian length, then the payload */
};

/* The most a frame_out keeps for a stream that takes nothing. */
#define FRAME_OUT_MAX		(256 * 1024)
/* A read buffer for frame_in_read: a whole frame fits, and then some. */
#define FRAME_IN_BUFSIZE	(128 * 1024)

/*
 * Stream to datagrams: what was read and is not yet a datagram sent
 * (FRAMING_NONE: one datagram).  The buffer stays while a stream keeps
 * leaving part of a frame behind, and goes when nothing is held.
 */
struct frame_in {
	char		*held;
	uint32_t	 len, cap;
};

/*
 * Read what fd has and cut it into at most max datagrams: iov[i] points
 * into buf (FRAME_IN_BUFSIZE bytes), at most dgram_max bytes each for
 * FRAMING_NONE.  Returns how many (0: fd has nothing more yet); -1 at
 * the end of the stream (errno 0, also when it ends inside a frame) or
 * on an error (errno).  Call it again while it returns datagrams.
 */
int	frame_in_read(struct frame_in *in, int fd, int framing, char *buf,
    size_t dgram_max, struct iovec *iov, int max);

/*
 * iov[0..n) of the last frame_in_read could not be sent yet: hold them,
 * first in line for the next read.  0, or -1 (out of memory: lost).
 */
int	frame_in_unread(struct frame_in *in, int framing,
    const struct iovec *iov, int n);

/* Whether bytes are held. */
bool	frame_in_held(const struct frame_in *in);

void	frame_in_free(struct frame_in *in);

/* Datagrams to stream: the bytes the stream has not taken yet. */
struct frame_out {
	char	*buf;
	size_t	 len, off;	/* held: buf[off..len) */
};

/*
 * Write n datagrams to the stream fd as framing says; what fd has no room
 * for is held (FRAME_OUT_MAX at most, whole frames: the rest are
 * dropped).  Returns how many were written or held; -1 when fd failed
 * (errno).
 */
int	frame_out_write(struct frame_out *out, int fd, int framing,
    const struct iovec *iov, int n);

/* Hold n datagrams without writing (the stream is not connected yet). */
int	frame_out_hold(struct frame_out *out, int framing,
    const struct iovec *iov, int n);

/* Write what is held: 0 all of it, 1 some is still held, -1 (errno). */
int	frame_out_flush(struct frame_out *out, int fd);

/* Whether bytes are held. */
bool	frame_out_held(const struct frame_out *out);

void	frame_out_free(struct frame_out *out);

#endif
