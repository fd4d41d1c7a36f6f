/*
 * udp_io.c - a session's datagrams in batches (udp_io.h): to its backend
 * by sendmmsg or UDP_SEGMENT, the replies read by recvmmsg (runs read as
 * one by UDP_GRO kept whole) and sent to the client from the address it
 * wrote to, and what all that counts.
 */
#include "ferryd.h"

#include <string.h>
#include <netinet/udp.h>

#include "addr.h"
#include "event.h"
#include "log.h"
#include "proxy_proto.h"
#include "route.h"
#include "sock.h"
#include "stats.h"
#include "udp_backend.h"
#include "udp_cid.h"
#include "udp_io.h"
#include "udp_limit.h"
#include "udp_pace.h"
#include "udp_types.h"

/*
 * The counters of s's backend, or NULL: a backend the rule lost at a
 * reload.  A TCP backend still connecting counts the datagrams that
 * wait for it.
 */
struct stats_backend *
udp_io_stats_backend(const struct udp_session *s)
{
	if (s->backend == NULL || s->stranger)
		return NULL;
	return stats_backend(s->backend);
}

/*
 * The counters of the route s's backend is of (its destination's,
 * route.h), or a sink: no route, or a backend the rule lost.
 */
static struct stats_rule *
udp_io_stats_route(const struct udp_session *s)
{
	return s->rule->nroutes == 0 || udp_io_stats_backend(s) == NULL ?
	    &stats_sink_rule : stats_rule(rule_dest_of(s->rule, s->backend));
}

/* n datagrams of rule were not sent on. */
void
udp_io_dropped(const struct rule *rule, uint64_t n)
{
	stats_rule(rule)->dropped += n;
}

/* What the counters of s's rule and backend keep of s, which ends. */
void
udp_io_count_end(const struct udp_session *s, int64_t now)
{
	uint64_t us = stats_elapsed_us(s->started, now);

	hist_add(&stats_rule_hist(s->rule)->duration, us);
	if (udp_io_stats_backend(s) != NULL && (s->stream == NULL ||
	    s->stream->connect.connected))
		hist_add(&stats_backend_hist(s->backend)->duration, us);
}

#ifdef UDP_SEGMENT
/* Segments one GSO send may carry, and bytes in all (one skb). */
#define GSO_SEGMENTS_MAX	64
#define GSO_BYTES_MAX		65000

/* Cleared for good the first time the kernel refuses UDP_SEGMENT. */
static bool gso_works = true;

/* The bytes of the datagram mh carries. */
static size_t
msg_size(const struct msghdr *mh)
{
	size_t	len = 0, i;

	for (i = 0; i < mh->msg_iovlen; i++)
		len += mh->msg_iov[i].iov_len;
	return len;
}

/*
 * How many of the n datagrams (m, as udp_datagrams lays them out) can
 * leave as one GSO send: a run of equal sizes, the last possibly
 * shorter, within the kernel's limits.
 */
static int
gso_run(const struct mmsghdr *m, int n)
{
	size_t	size = msg_size(&m[0].msg_hdr), len, total = 0;
	int	k;

	if (!gso_works || size == 0)
		return 1;
	for (k = 0; k < n && k < GSO_SEGMENTS_MAX; k++) {
		len = msg_size(&m[k].msg_hdr);
		if (len > size || total + len > GSO_BYTES_MAX)
			break;
		total += len;
		if (len < size) {
			k++;		/* a shorter one ends the run */
			break;
		}
	}
	return k;
}

/*
 * Send the k datagrams of a run (gso_run) in one sendmsg that the kernel
 * cuts into them (UDP_SEGMENT): their iovecs follow each other.  0, or
 * -1 with errno.
 */
static int
gso_send(int fd, const struct mmsghdr *m, int k)
{
	struct msghdr	mh;
	union {
		struct cmsghdr	align;
		char		buf[CMSG_SPACE(sizeof(uint16_t))];
	}		ctl;
	struct cmsghdr	*cm;
	uint16_t	size = (uint16_t)msg_size(&m[0].msg_hdr);

	memset(&mh, 0, sizeof(mh));
	memset(&ctl, 0, sizeof(ctl));
	mh.msg_iov = m[0].msg_hdr.msg_iov;
	mh.msg_iovlen = (size_t)k * m[0].msg_hdr.msg_iovlen;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = sizeof(ctl.buf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(size));
	memcpy(CMSG_DATA(cm), &size, sizeof(size));
	return sendmsg(fd, &mh, 0) == -1 ? -1 : 0;
}

/*
 * gso_send() failed with err.  Returns true when the run should go out
 * one by one instead: the kernel or device has no UDP_SEGMENT (off for
 * good), or this session's route cannot take segments of this size
 * (EINVAL: larger than its MTU; off for this session).
 */
static bool
gso_refused(struct udp_session *s, int err)
{
	if (err == EINVAL) {
		s->no_gso = true;
		return true;
	}
	if (err == EIO || err == ENOPROTOOPT || err == EOPNOTSUPP) {
		gso_works = false;
		log_info("UDP segmentation offload (UDP_SEGMENT) unavailable "
		    "(%s): sending datagrams one by one", strerror(err));
		return true;
	}
	return false;
}
#endif

void
udp_datagrams(struct mmsghdr *m, struct iovec *parts, const struct iovec *iov,
    int n, const unsigned char *hdr, size_t hlen)
{
	int	i;

	memset(m, 0, (size_t)n * sizeof(m[0]));
	for (i = 0; i < n; i++) {
		if (hlen == 0) {
			/* No header: the datagrams' own iovecs, no copy. */
			m[i].msg_hdr.msg_iov = (struct iovec *)(uintptr_t)&iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
			continue;
		}
		parts[2 * i].iov_base = (void *)(uintptr_t)hdr;
		parts[2 * i].iov_len = hlen;
		parts[2 * i + 1] = iov[i];
		m[i].msg_hdr.msg_iov = &parts[2 * i];
		m[i].msg_hdr.msg_iovlen = 2;
	}
}

/*
 * send_proxy: the v2 header that tells s's backend of its client and of
 * the address the client wrote to, into buf; its length.
 */
size_t
udp_io_proxy_header(const struct udp_session *s, unsigned char *buf)
{
	struct sockaddr_in6	local;

	memset(&local, 0, sizeof(local));
	local.sin6_family = AF_INET6;
	local.sin6_addr = s->key.local;		/* IPv4 mapped */
	local.sin6_port = htons((uint16_t)addr_port((const struct sockaddr *)
	    &s->rule->listen_addr.ss));
	return proxy_header(PROXY_V2, false, (const struct sockaddr *)
	    &s->client, (const struct sockaddr *)&local, buf);
}

/*
 * k datagrams (iov) of s went to its backend: counted, and the wait for
 * its reply starts unless it had started.
 */
void
udp_io_sent(struct udp_session *s, const struct iovec *iov, int k)
{
	struct stats_rule	*sr = stats_rule(s->rule);
	struct stats_backend	*sb = udp_io_stats_backend(s);
	uint64_t		 bytes = 0;
	int			 i;

	for (i = 0; i < k; i++)
		bytes += iov[i].iov_len;
	s->bytes_in += bytes;
	sr->datagrams_in += (uint64_t)k;
	udp_io_stats_route(s)->datagrams_in += (uint64_t)k;
	sr->bytes_in += bytes;
	if (sb != NULL)
		sb->bytes_in += bytes;
	if (s->asked_us == 0 && k > 0)
		s->asked_us = stats_now_us();
}

/*
 * Send n datagrams (iov) to s's backend, each after its PROXY header
 * where the rule sends one, in as few calls as the kernel takes them:
 * runs of equal size as one GSO send where the kernel has UDP_SEGMENT,
 * the rest in sendmmsg.  An ICMP error from an earlier datagram comes
 * back as a send's error, with the datagram not sent: report it, send it
 * again.  A datagram too large for UDP with its header is lost, and
 * counted.  Returns whether any left (s was active).
 */
bool
udp_io_send(struct udp_session *s, const struct iovec *iov, int n)
{
	struct mmsghdr		 m[UDP_BATCH];
	struct iovec		 parts[2 * UDP_BATCH];
	unsigned char		 hdr[PROXY_HEADER_MAX];
	struct iovec		 kept[UDP_BATCH];
	size_t			 hlen = 0;
	int			 sent = 0, lost = 0, r, errors = 0;

	if (udp_limited(s)) {
		memcpy(kept, iov, (size_t)n * sizeof(*iov));
		n = udp_limit(s, RATE_IN, kept, NULL, n);
		iov = kept;
	}
	if (s->rule->send_proxy != PROXY_OFF)
		hlen = udp_io_proxy_header(s, hdr);
	udp_datagrams(m, parts, iov, n, hdr, hlen);
	while (sent < n) {
#ifdef UDP_SEGMENT
		if (!s->no_gso && (r = gso_run(m + sent, n - sent)) > 1) {
			if (gso_send(s->fd, m + sent, r) == 0) {
				udp_io_sent(s, iov + sent, r);
				sent += r;
				continue;
			}
			if (errno == EINTR)
				continue;
			if (udp_unreachable(errno) && errors++ < n) {
				udp_backend_session_error(s, errno);
				continue;
			}
			if (!gso_refused(s, errno))
				break;	/* full: lost, and counted */
		}
#endif
		r = sendmmsg(s->fd, m + sent, (unsigned)(n - sent), 0);
		if (r > 0) {
			udp_io_sent(s, iov + sent, r);
			sent += r;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && udp_unreachable(errno) && errors++ < n) {
			udp_backend_session_error(s, errno);
			continue;
		}
		if (r == -1 && errno == EMSGSIZE) {
			lost++;
			sent++;
			continue;
		}
		break;		/* full (EAGAIN): these are lost, and counted */
	}
	udp_io_dropped(s->rule, (uint64_t)(n - sent + lost));
	return sent > lost;
}

/* The control message that sends a reply from the address s's client wrote to. */
union reply_control {
	struct cmsghdr	align;
	/* The source address, and room for UDP_SEGMENT (reply_segments). */
	char		buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
			    CMSG_SPACE(sizeof(uint16_t))];
};

static size_t
reply_control(const struct udp_session *s, union reply_control *ctl)
{
	struct cmsghdr *cm = &ctl->align;

	memset(ctl, 0, sizeof(*ctl));
	if (s->family == AF_INET6) {
		struct in6_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		pi.ipi6_addr = s->key.local;
		pi.ipi6_ifindex = (unsigned)s->ifindex;
		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
	} else {
		struct in_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		memcpy(&pi.ipi_spec_dst, &s->key.local.s6_addr[12], 4);
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
	}
	return cm->cmsg_len;
}

#ifdef UDP_SEGMENT
/*
 * mh (with s's control message) is to carry a run of datagrams of seg
 * bytes: its control, in ctl, gets UDP_SEGMENT beside the source.
 */
static void
reply_control_gso(const struct udp_session *s, struct msghdr *mh,
    union reply_control *ctl, uint16_t seg)
{
	struct cmsghdr	*cm;
	size_t		 first = CMSG_SPACE(reply_control(s, ctl) -
			    CMSG_LEN(0));

	mh->msg_control = ctl->buf;
	mh->msg_controllen = sizeof(ctl->buf);
	cm = CMSG_NXTHDR(mh, CMSG_FIRSTHDR(mh));
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(seg));
	memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
	mh->msg_controllen = first + CMSG_SPACE(sizeof(seg));
}
#else
static void
reply_control_gso(const struct udp_session *s, struct msghdr *mh,
    union reply_control *ctl, uint16_t seg)
{
	(void)s;
	(void)mh;
	(void)ctl;
	(void)seg;
}
#endif

/* Whether a run of replies read as one may leave as one, for s. */
static bool
reply_gso_usable(const struct udp_session *s)
{
#ifdef UDP_SEGMENT
	return gso_works && !s->no_gso;
#else
	(void)s;
	return false;
#endif
}

/* The kernel refused a run of replies as one (err): send them one by one? */
static bool
reply_gso_refused(struct udp_session *s, int err)
{
#ifdef UDP_SEGMENT
	return gso_refused(s, err);
#else
	(void)s;
	(void)err;
	return false;
#endif
}

/* How many datagrams a reply of len bytes cut at seg (0: none) carries. */
static uint64_t
reply_count(size_t len, uint16_t seg)
{
	return seg == 0 || len <= seg ? 1 : (len + seg - 1) / seg;
}

/*
 * A run of equal-size replies read as one (UDP_GRO) that cannot leave as
 * one: send its datagrams, seg bytes each but the last, in batches.
 */
static void
reply_split(struct udp_session *s, const struct iovec *run, uint16_t seg)
{
	struct iovec	 iov[UDP_BATCH];
	char		*base = run->iov_base;
	size_t		 off = 0;
	int		 k;

	while (off < run->iov_len) {
		for (k = 0; k < UDP_BATCH && off < run->iov_len; k++) {
			iov[k].iov_base = base + off;
			iov[k].iov_len = run->iov_len - off < seg ?
			    run->iov_len - off : seg;
			off += iov[k].iov_len;
		}
		udp_io_reply(s, iov, NULL, k);
	}
}

/* k datagrams of bytes went to s's client. */
static void
count_replies(struct udp_session *s, uint64_t k, uint64_t bytes)
{
	struct stats_rule	*sr = stats_rule(s->rule);
	struct stats_backend	*sb = udp_io_stats_backend(s);

	sr->datagrams_out += k;
	udp_io_stats_route(s)->datagrams_out += k;
	sr->bytes_out += bytes;
	if (sb != NULL)
		sb->bytes_out += bytes;
}

/*
 * Send n replies (iov) to s's client through the listening socket, in
 * sendmmsg batches.  seg[i] (seg may be NULL), where not 0, says iov[i]
 * is a run of datagrams of that size read as one (UDP_GRO): it leaves as
 * one message the kernel cuts again (UDP_SEGMENT), or one by one where
 * that is refused.  What the client's side has no room for is lost, and
 * counted; so is a datagram too large for it.
 */
void
udp_io_reply(struct udp_session *s, const struct iovec *iov,
    const uint16_t *seg, int n)
{
	struct mmsghdr		 out[UDP_BATCH];
	union reply_control	 ctl, gso[UDP_BATCH];
	size_t			 ctl_len = reply_control(s, &ctl);
	int			 i, sent, r;
	uint64_t		 us_since;

	if (s->asked_us != 0) {
		/* The first reply since the client's datagram. */
		us_since = (uint64_t)(stats_now_us() - s->asked_us);
		hist_add(&stats_rule_hist(s->rule)->reply, us_since);
		if (s->backend != NULL && !s->stranger)
			hist_add(&stats_backend_hist(s->backend)->reply,
			    us_since);
		s->asked_us = 0;
	}
	memset(out, 0, (size_t)n * sizeof(out[0]));
	for (i = 0; i < n; i++) {
		out[i].msg_hdr.msg_name = &s->client;
		out[i].msg_hdr.msg_namelen = s->client_len;
		out[i].msg_hdr.msg_iov = (struct iovec *)(uintptr_t)&iov[i];
		out[i].msg_hdr.msg_iovlen = 1;
		out[i].msg_hdr.msg_control = ctl.buf;
		out[i].msg_hdr.msg_controllen = ctl_len;
		if (seg != NULL && seg[i] != 0)
			reply_control_gso(s, &out[i].msg_hdr, &gso[i], seg[i]);
		s->bytes_out += iov[i].iov_len;
	}
	for (sent = 0; sent < n; sent += r) {
		if ((r = sendmmsg(s->lfd, out + sent, (unsigned)(n - sent),
		    MSG_DONTWAIT)) > 0) {
			for (i = sent; i < sent + r; i++)
				count_replies(s, reply_count(iov[i].iov_len,
				    seg != NULL ? seg[i] : 0), iov[i].iov_len);
			continue;
		}
		if (r == -1 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r == -1 && seg != NULL && seg[sent] != 0 &&
		    reply_gso_refused(s, errno)) {
			reply_split(s, &iov[sent], seg[sent]);
			r = 1;
			continue;
		}
		if (r == -1 && errno == EMSGSIZE) {
			udp_io_dropped(s->rule, 1);	/* this one only */
			r = 1;
			continue;
		}
		/* The client's side is full: lose these. */
		for (i = sent; i < n; i++)
			udp_io_dropped(s->rule, reply_count(iov[i].iov_len,
			    seg != NULL ? seg[i] : 0));
		break;
	}
}

/*
 * Replies: read what the backend sent, in batches, and send each back to
 * the client from the address it wrote to.  Returns how many were read.
 */
int
udp_io_replies(struct udp_session *s, int fd)
{
	struct udp_sessions	*us = s->owner;
	struct mmsghdr		 in[UDP_BATCH];
	struct iovec		 iov[UDP_BATCH];
	union {
		struct cmsghdr	 align;
		char		 buf[CMSG_SPACE(sizeof(int))];
	}			 gro[UDP_BATCH];
	uint16_t		 seg[UDP_BATCH];
	size_t			 size;
	int			 n, i, rounds, first, nread, got = 0;
	int64_t			 start;

	/* A bounded number of batches per wakeup, for fairness. */
	for (rounds = 0; rounds < 4; rounds++) {
		start = udp_pace_now_ns();
		memset(in, 0, sizeof(in));
		for (i = 0; i < UDP_BATCH; i++) {
			iov[i].iov_base = us->bufs + (size_t)i * UDP_DATAGRAM_MAX;
			iov[i].iov_len = UDP_DATAGRAM_MAX;
			in[i].msg_hdr.msg_iov = &iov[i];
			in[i].msg_hdr.msg_iovlen = 1;
			in[i].msg_hdr.msg_control = gro[i].buf;
			in[i].msg_hdr.msg_controllen = sizeof(gro[i].buf);
		}
		n = recvmmsg(fd, in, UDP_BATCH, MSG_DONTWAIT, NULL);
		if (n == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return got;
			/* ICMP for an earlier datagram: the error is cleared. */
			udp_backend_session_error(s, errno);
			continue;
		}
		got += nread = n;
		for (i = 0; i < n; i++) {
			if (in[i].msg_hdr.msg_flags & MSG_TRUNC)
				stats_rule(s->rule)->truncated++;
			iov[i].iov_len = in[i].msg_len;
			size = sock_gro_size(&in[i].msg_hdr);
			seg[i] = size == 0 || in[i].msg_len <= size ||
			    size > UINT16_MAX ? 0 : (uint16_t)size;
		}
		udp_cid_replies(s, iov, seg, n);	/* the server's CIDs */
		if (udp_limited(s))
			n = udp_limit(s, RATE_OUT, iov, seg, n);
		/*
		 * A run of replies read as one (UDP_GRO) goes on as one where
		 * the kernel cuts it again for us, else one by one, in order.
		 */
		for (i = 0, first = 0; i < n; i++) {
			if (seg[i] == 0 || reply_gso_usable(s))
				continue;
			if (i > first)
				udp_io_reply(s, iov + first, seg + first,
				    i - first);
			reply_split(s, &iov[i], seg[i]);
			first = i + 1;
		}
		if (n > first)
			udp_io_reply(s, iov + first, seg + first, n - first);
		/* A backlog: the client gets it paced (udp_pace.h). */
		if (udp_pace_batch(us->pacer, &s->pace, fd, nread, UDP_BATCH,
		    start)) {
			stats_rule(s->rule)->paced++;
			(void)event_mask(us->loop, fd, 0);
			return got;
		}
		if (nread < UDP_BATCH)
			return got;
	}
	event_defer(us->loop, fd);
	return got;
}
