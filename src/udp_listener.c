/*
 * udp_listener.c - receiving on a worker's UDP listening sockets.
 *
 * One recvmmsg(2) takes up to UDP_BATCH datagrams, each with its source
 * and, from IP_PKTINFO or IPV6_PKTINFO, the address it was sent to; each
 * goes to its session, which sends it on.  A datagram the kernel had to
 * cut (it cannot be, with buffers larger than any UDP payload) is
 * counted and dropped, never forwarded cut.  A full batch means a
 * backlog: it leaves paced (udp_pace.h), the socket unwatched between
 * batches, so that the receiver gets no burst larger than one.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"
#include "event.h"
#include "log.h"
#include "rule.h"
#include "stats.h"
#include "udp_io.h"
#include "udp_listener.h"
#include "udp_pace.h"
#include "udp_session.h"

/* Batches per wakeup before other sockets get their turn. */
#define RECV_ROUNDS	4
/* Batches read from each socket when the worker stops receiving. */
#define STOP_ROUNDS	64

struct udp_listener {
	STAILQ_ENTRY(udp_listener) link;
	int			 fd;
	int			 family;
	const struct rule	*rule;
	struct udp_listeners	*ul;
	struct udp_pace		 pace;
};

struct udp_listeners {
	struct event_loop	*loop;
	struct udp_sessions	*sessions;
	STAILQ_HEAD(, udp_listener) list;
	struct udp_pacer	*pacer;		/* the sessions' */
	bool			 stopped;	/* for good */
};

/* The destination of a received datagram, from its control messages. */
static void
dest_of(struct msghdr *mh, struct udp_from *from)
{
	struct cmsghdr *cm;

	memset(&from->local, 0, sizeof(from->local));
	from->ifindex = 0;
	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == IPPROTO_IP &&
		    cm->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			from->local.s6_addr[10] = from->local.s6_addr[11] =
			    0xff;
			memcpy(&from->local.s6_addr[12], &pi.ipi_addr, 4);
			from->ifindex = pi.ipi_ifindex;
		} else if (cm->cmsg_level == IPPROTO_IPV6 &&
		    cm->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			from->local = pi.ipi6_addr;
			from->ifindex = (int)pi.ipi6_ifindex;
		}
	}
}

/* A datagram the kernel cut (no room for it): counted, logged, dropped. */
static void
truncated(const struct udp_from *from)
{
	static struct log_limit	limit;
	char			client[ADDR_STRLEN];

	stats_rule(from->rule)->truncated++;
	log_limited_at(&limit, LOG_LEVEL_WARNING, "%s: a datagram from %s "
	    "was cut by the kernel: dropped", rule_log_name(from->rule),
	    addr_format(from->client, client, sizeof(client)));
}

/*
 * Receive up to rounds batches from l and forward them, pausing after a
 * full one where paced says so (then l's socket is not watched until the
 * pause ends).  Returns whether the socket may hold more and l is not
 * paused.
 */
static bool
listener_receive(struct udp_listener *l, int rounds, bool paced)
{
	int			 fd = l->fd;
	struct udp_sessions	*us = l->ul->sessions;
	char			*bufs = udp_sessions_buffers(us);
	struct mmsghdr		 m[UDP_BATCH];
	struct iovec		 iov[UDP_BATCH];
	struct sockaddr_in6	 src[UDP_BATCH];
	union {
		struct cmsghdr	 align;
		char		 buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
				     CMSG_SPACE(sizeof(struct in_pktinfo))];
	}			 ctl[UDP_BATCH];
	struct udp_from		 from[UDP_BATCH];
	struct iovec		 out[UDP_BATCH];
	int			 i, n, k, round;
	int64_t			 start;

	for (round = 0; round < rounds; round++) {
		start = paced ? udp_pace_now_ns() : 0;
		/* Every field recvmmsg reads is set here. */
		for (i = 0; i < UDP_BATCH; i++) {
			iov[i].iov_base = bufs + (size_t)i * UDP_DATAGRAM_MAX;
			iov[i].iov_len = UDP_DATAGRAM_MAX;
			m[i].msg_hdr.msg_name = &src[i];
			m[i].msg_hdr.msg_namelen = sizeof(src[i]);
			m[i].msg_hdr.msg_iov = &iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
			m[i].msg_hdr.msg_control = ctl[i].buf;
			m[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
		}
		n = recvmmsg(fd, m, UDP_BATCH, MSG_DONTWAIT, NULL);
		if (n == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				log_err("%s: cannot receive: %s",
				    rule_log_name(l->rule), strerror(errno));
			return false;
		}
		for (i = k = 0; i < n; i++) {
			from[k].rule = l->rule;
			from[k].lfd = fd;
			from[k].family = l->family;
			from[k].client = (const struct sockaddr *)&src[i];
			from[k].client_len = m[i].msg_hdr.msg_namelen;
			if (m[i].msg_hdr.msg_flags & MSG_TRUNC) {
				truncated(&from[k]);
				continue;
			}
			dest_of(&m[i].msg_hdr, &from[k]);
			out[k].iov_base = iov[i].iov_base;
			out[k].iov_len = m[i].msg_len;
			k++;
		}
		udp_sessions_forward(us, from, out, k);
		if (paced && udp_pace_batch(l->ul->pacer, &l->pace, fd,
		    n, UDP_BATCH, start)) {
			stats_rule(l->rule)->paced++;
			event_mask(l->ul->loop, fd, 0);
			return false;
		}
		if (n < UDP_BATCH)
			return false;
	}
	return true;
}

static void
listener_on_ready(struct event_loop *loop, int fd, int events, void *data)
{
	(void)events;
	if (listener_receive(data, RECV_ROUNDS, true))
		event_defer(loop, fd);
}

/* l's pause is over: watch its socket again (what waits makes it ready). */
static void
listener_resume(void *data)
{
	struct udp_listener *l = data;

	if (!l->ul->stopped)
		event_mask(l->ul->loop, l->fd, EV_READ);
}

struct udp_listeners *
udp_listeners_new(struct event_loop *loop, struct udp_sessions *sessions)
{
	struct udp_listeners *ul = calloc(1, sizeof(*ul));

	if (ul == NULL)
		return NULL;
	ul->pacer = udp_sessions_pacer(sessions);
	ul->loop = loop;
	ul->sessions = sessions;
	STAILQ_INIT(&ul->list);
	return ul;
}

int
udp_listener_add(struct udp_listeners *ul, int fd, const struct rule *rule)
{
	struct udp_listener *l;

	if (udp_sessions_buffers(ul->sessions) == NULL ||
	    (l = calloc(1, sizeof(*l))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	l->fd = fd;
	l->family = rule->listen_addr.ss.ss_family;
	l->rule = rule;
	l->ul = ul;
	udp_pace_init(&l->pace, listener_resume, l);
	/* Watched from udp_listeners_start() on. */
	if (event_set(ul->loop, fd, 0, listener_on_ready, l) == -1) {
		free(l);
		return -1;
	}
	udp_sessions_listener(ul->sessions, rule, fd);
	STAILQ_INSERT_TAIL(&ul->list, l, link);
	return 0;
}

void
udp_listeners_start(struct udp_listeners *ul)
{
	struct udp_listener *l;

	if (ul->stopped)
		return;
	STAILQ_FOREACH(l, &ul->list, link)
		if (event_mask(ul->loop, l->fd, EV_READ) == -1)
			log_err("%s: cannot watch listening socket: %s",
			    rule_log_name(l->rule), strerror(errno));
}

void
udp_listeners_close(struct udp_listeners *ul)
{
	struct udp_listener *l;

	ul->stopped = true;
	while ((l = STAILQ_FIRST(&ul->list)) != NULL) {
		udp_pace_cancel(ul->pacer, &l->pace);
		event_close(ul->loop, l->fd);
		close(l->fd);
		STAILQ_REMOVE_HEAD(&ul->list, link);
		free(l);
	}
}

void
udp_listeners_stop(struct udp_listeners *ul)
{
	struct udp_listener *l;

	ul->stopped = true;
	STAILQ_FOREACH(l, &ul->list, link) {
		udp_pace_cancel(ul->pacer, &l->pace);
		event_mask(ul->loop, l->fd, 0);
		/*
		 * What is queued here now: a retired slot's socket gets no
		 * more (listen_set_steer), and its last datagrams must not
		 * go with it.  Bounded: a shared socket keeps filling.
		 */
		(void)listener_receive(l, STOP_ROUNDS, false);
	}
}
