/*
 * udp_pass.c - datagrams passed between workers at a reload that changes
 * the number of workers (udp_pass.h).
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "ipc.h"
#include "udp_pass.h"
#include "udp_types.h"

/* How long an old worker waits for room on its channel. */
#define PASS_WAIT_MS	500

/* A datagram kept until the worker may receive: header, then bytes. */
struct udp_kept {
	STAILQ_ENTRY(udp_kept)	link;
	size_t			len;
	char			msg[];
};

void
udp_pass_init(struct udp_pass *p)
{
	p->chan = -1;
	p->go = false;
	STAILQ_INIT(&p->kept);
	p->kept_bytes = 0;
}

size_t
udp_passed_make(char *msg, uint32_t rule, const struct udp_from *from,
    const struct iovec *iov)
{
	struct udp_passed	 h;

	if (from->client_len > sizeof(h.client) ||
	    iov->iov_len > UDP_DATAGRAM_MAX)
		return 0;
	memset(&h, 0, sizeof(h));
	h.rule = rule;
	h.client_len = (uint32_t)from->client_len;
	memcpy(&h.client, from->client, from->client_len);
	h.local = from->local;
	h.ifindex = from->ifindex;
	h.len = (uint32_t)iov->iov_len;
	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), iov->iov_base, iov->iov_len);
	return sizeof(h) + iov->iov_len;
}

int
udp_pass_send(struct udp_pass *p, uint32_t rule, const struct udp_from *from,
    const struct iovec *iov)
{
	static char	msg[UDP_PASSED_MAX];
	size_t		len = udp_passed_make(msg, rule, from, iov);

	return len == 0 ? -1 : ipc_send_wait(p->chan, IPC_UDP_DATAGRAM, msg,
	    len, NULL, 0, PASS_WAIT_MS);
}

int
udp_pass_run(struct udp_pass *p, uint32_t rule, const struct udp_from *from,
    const struct iovec *iov, int n)
{
	int i, lost = 0;

	for (i = 0; i < n; i++)
		lost += udp_pass_send(p, rule, from, &iov[i]) == -1;
	return lost;
}

unsigned
udp_passed_port(const struct udp_passed *h)
{
	/* sin_port and sin6_port are at the same place. */
	return ntohs(h->client.sin6_port);
}

bool
udp_pass_take(struct udp_pass *p, udp_pass_deliver_fn *deliver, void *arg,
    const void *msg, size_t len)
{
	struct udp_kept *k;

	if (p->go)
		return deliver(arg, msg, len);
	if (p->kept_bytes + len > UDP_PASS_KEPT_MAX ||
	    (k = malloc(sizeof(*k) + len)) == NULL)
		return false;
	k->len = len;
	memcpy(k->msg, msg, len);
	STAILQ_INSERT_TAIL(&p->kept, k, link);
	p->kept_bytes += len;
	return true;
}

int
udp_pass_go(struct udp_pass *p, udp_pass_deliver_fn *deliver, void *arg)
{
	struct udp_kept	*k;
	int		 lost = 0;

	p->go = true;
	while ((k = STAILQ_FIRST(&p->kept)) != NULL) {
		STAILQ_REMOVE_HEAD(&p->kept, link);
		p->kept_bytes -= k->len;
		lost += !deliver(arg, k->msg, k->len);
		free(k);
	}
	return lost;
}

void
udp_pass_free(struct udp_pass *p)
{
	struct udp_kept *k;

	while ((k = STAILQ_FIRST(&p->kept)) != NULL) {
		STAILQ_REMOVE_HEAD(&p->kept, link);
		free(k);
	}
	p->kept_bytes = 0;
}
