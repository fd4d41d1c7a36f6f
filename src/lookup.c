/*
 * lookup.c - getaddrinfo() recorded and replayed (lookup.h).
 *
 * An answer is kept as the question (node, service, the hints' family,
 * socket type and flags) and what came back: getaddrinfo's code and the
 * addresses in order.  Saved, each is a record of fixed-size fields and
 * the strings and addresses after them, in host byte order: the bytes
 * only ever travel to our own child's parent.
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "lookup.h"

struct answer {
	char			*node, *service;	/* NULL: not given */
	int			 family, socktype, flags;
	int			 rc;
	size_t			 naddrs;
	struct sockaddr_storage	*addrs;
	socklen_t		*lens;
	int			*socktypes, *protocols;
};

static enum lookup_mode	 mode;
static struct answer	*answers;
static size_t		 nanswers;

/*
 * The answers loaded for replaying, indexed by their question: a reload
 * of 5,000 rules asks some 10,000 questions of as many answers, and a
 * walk of them all for each took half a second of the master's time.
 * Open addressing; a slot holds an answer's index + 1 (0: empty).
 * Without it (no memory), answer_find walks the answers.
 */
static uint32_t		*slots;
static size_t		 nslots;	/* a power of two, or 0 */

static void
answer_free(struct answer *a)
{
	free(a->node);
	free(a->service);
	free(a->addrs);
	free(a->lens);
	free(a->socktypes);
	free(a->protocols);
}

static void
answers_free(void)
{
	size_t i;

	for (i = 0; i < nanswers; i++)
		answer_free(&answers[i]);
	free(answers);
	answers = NULL;
	nanswers = 0;
	free(slots);
	slots = NULL;
	nslots = 0;
}

void
lookup_record(void)
{
	answers_free();
	mode = LOOKUP_RECORD;
}

void
lookup_offline(void)
{
	answers_free();
	mode = LOOKUP_OFFLINE;
}

void
lookup_live(void)
{
	answers_free();
	mode = LOOKUP_LIVE;
}

static bool
same_string(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* FNV-1a of n bytes at p, going on from h. */
static uint64_t
hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n-- > 0)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

/* A question's hash: a NULL string hashes as nothing, "" as its NUL. */
static uint64_t
question_hash(const char *node, const char *service, int family,
    int socktype, int flags)
{
	int		v[3] = { family, socktype, flags };
	uint64_t	h = 0xcbf29ce484222325ULL;

	h = hash_bytes(h, node, node != NULL ? strlen(node) + 1 : 0);
	h = hash_bytes(h, service, service != NULL ? strlen(service) + 1 : 0);
	return hash_bytes(h, v, sizeof(v));
}

/* Whether a answers this question. */
static bool
answer_is(const struct answer *a, const char *node, const char *service,
    const struct addrinfo *hints)
{
	return same_string(a->node, node) &&
	    same_string(a->service, service) &&
	    a->family == hints->ai_family &&
	    a->socktype == hints->ai_socktype && a->flags == hints->ai_flags;
}

/*
 * Index the answers (after lookup_load).  A question asked again (5,000
 * rules with one backend ask it 5,000 times) is indexed once, with its
 * first answer, as a walk would find it: its runs of slots stay short.
 */
static void
index_build(void)
{
	const struct answer	*a;
	struct addrinfo		 q;
	size_t			 n = 16, i, j;

	while (n < 2 * nanswers)
		n *= 2;
	if ((slots = calloc(n, sizeof(*slots))) == NULL)
		return;
	nslots = n;
	memset(&q, 0, sizeof(q));
	for (i = 0; i < nanswers; i++) {
		a = &answers[i];
		q.ai_family = a->family;
		q.ai_socktype = a->socktype;
		q.ai_flags = a->flags;
		j = question_hash(a->node, a->service, a->family, a->socktype,
		    a->flags) & (n - 1);
		while (slots[j] != 0 &&
		    !answer_is(&answers[slots[j] - 1], a->node, a->service, &q))
			j = (j + 1) & (n - 1);
		if (slots[j] == 0)
			slots[j] = (uint32_t)i + 1;
	}
}

/* The answer kept for this question, or NULL. */
static const struct answer *
answer_find(const char *node, const char *service,
    const struct addrinfo *hints)
{
	size_t i;

	if (nslots == 0) {
		for (i = 0; i < nanswers; i++)
			if (answer_is(&answers[i], node, service, hints))
				return &answers[i];
		return NULL;
	}
	i = question_hash(node, service, hints->ai_family, hints->ai_socktype,
	    hints->ai_flags) & (nslots - 1);
	for (; slots[i] != 0; i = (i + 1) & (nslots - 1))
		if (answer_is(&answers[slots[i] - 1], node, service, hints))
			return &answers[slots[i] - 1];
	return NULL;
}

/* A node of our own, holding its address (freed with it). */
static struct addrinfo *
node_new(const struct sockaddr *sa, socklen_t len, int socktype,
    int protocol)
{
	struct addrinfo *ai;

	if (len > sizeof(struct sockaddr_storage) || (ai = calloc(1,
	    sizeof(*ai) + sizeof(struct sockaddr_storage))) == NULL)
		return NULL;
	ai->ai_addr = (struct sockaddr *)(void *)(ai + 1);
	memcpy(ai->ai_addr, sa, len);
	ai->ai_addrlen = len;
	ai->ai_family = sa->sa_family;
	ai->ai_socktype = socktype;
	ai->ai_protocol = protocol;
	return ai;
}

void
lookup_free(struct addrinfo *res)
{
	struct addrinfo *next;

	for (; res != NULL; res = next) {
		next = res->ai_next;
		free(res);
	}
}

/* An answer as a list of our own nodes; rc, or EAI_MEMORY. */
static int
answer_list(const struct answer *a, struct addrinfo **res)
{
	struct addrinfo	**tail = res;
	size_t		  i;

	*res = NULL;
	if (a->rc != 0)
		return a->rc;
	for (i = 0; i < a->naddrs; i++) {
		if ((*tail = node_new((const struct sockaddr *)(const void *)
		    &a->addrs[i], a->lens[i],
		    a->socktypes[i], a->protocols[i])) == NULL) {
			lookup_free(*res);
			*res = NULL;
			return EAI_MEMORY;
		}
		tail = &(*tail)->ai_next;
	}
	return a->naddrs > 0 ? 0 : EAI_NONAME;
}

/* Keep the question and rc with res's addresses; -1 when out of memory. */
static int
answer_keep(const char *node, const char *service,
    const struct addrinfo *hints, int rc, const struct addrinfo *res)
{
	struct answer		*v, *a;
	const struct addrinfo	*ai;
	size_t			 n = 0;

	for (ai = res; ai != NULL; ai = ai->ai_next)
		n += ai->ai_addrlen <= sizeof(struct sockaddr_storage);
	if ((v = realloc(answers, (nanswers + 1) * sizeof(*v))) == NULL)
		return -1;
	answers = v;
	a = &answers[nanswers];
	memset(a, 0, sizeof(*a));
	a->family = hints->ai_family;
	a->socktype = hints->ai_socktype;
	a->flags = hints->ai_flags;
	a->rc = rc;
	if ((node != NULL && (a->node = strdup(node)) == NULL) ||
	    (service != NULL && (a->service = strdup(service)) == NULL) ||
	    (n > 0 && ((a->addrs = calloc(n, sizeof(*a->addrs))) == NULL ||
	    (a->lens = calloc(n, sizeof(*a->lens))) == NULL ||
	    (a->socktypes = calloc(n, sizeof(int))) == NULL ||
	    (a->protocols = calloc(n, sizeof(int))) == NULL)))
		goto fail;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(struct sockaddr_storage))
			continue;
		memcpy(&a->addrs[a->naddrs], ai->ai_addr, ai->ai_addrlen);
		a->lens[a->naddrs] = ai->ai_addrlen;
		a->socktypes[a->naddrs] = ai->ai_socktype;
		a->protocols[a->naddrs++] = ai->ai_protocol;
	}
	nanswers++;
	return 0;
fail:
	answer_free(a);
	return -1;
}

/* getaddrinfo's list as our own nodes; 0, or EAI_MEMORY. */
static int
list_copy(const struct addrinfo *from, struct addrinfo **res)
{
	struct addrinfo	**tail = res;

	*res = NULL;
	for (; from != NULL; from = from->ai_next) {
		if (from->ai_addrlen > sizeof(struct sockaddr_storage))
			continue;
		if ((*tail = node_new(from->ai_addr, from->ai_addrlen,
		    from->ai_socktype, from->ai_protocol)) == NULL) {
			lookup_free(*res);
			*res = NULL;
			return EAI_MEMORY;
		}
		tail = &(*tail)->ai_next;
	}
	return 0;
}

/*
 * Offline: a numeric address is looked up as usual (no query is made for
 * one); a name gets 192.0.2.1, with the service's port.
 */
static int
offline_answer(const char *node, const char *service,
    const struct addrinfo *hints, struct addrinfo **res)
{
	struct addrinfo	 h = *hints, *live = NULL;
	int		 rc;

	h.ai_flags |= AI_NUMERICHOST;
	rc = getaddrinfo(node, service, &h, &live);
	if (rc == EAI_NONAME && node != NULL && hints->ai_family != AF_INET6) {
		h.ai_family = AF_INET;
		rc = getaddrinfo("192.0.2.1", service, &h, &live);
	}
	if (rc == 0)
		rc = list_copy(live, res);
	if (live != NULL)
		freeaddrinfo(live);
	return rc;
}

int
lookup_getaddrinfo(const char *node, const char *service,
    const struct addrinfo *hints, struct addrinfo **res)
{
	const struct answer	*a;
	struct addrinfo		*live = NULL;
	int			 rc;

	*res = NULL;
	if (mode == LOOKUP_REPLAY) {
		a = answer_find(node, service, hints);
		return a != NULL ? answer_list(a, res) : EAI_AGAIN;
	}
	if (mode == LOOKUP_OFFLINE)
		return offline_answer(node, service, hints, res);
	rc = getaddrinfo(node, service, hints, &live);
	if (mode == LOOKUP_RECORD &&
	    answer_keep(node, service, hints, rc, rc == 0 ? live : NULL) == -1)
		rc = EAI_MEMORY;
	else if (rc == 0)
		rc = list_copy(live, res);
	if (live != NULL)
		freeaddrinfo(live);
	return rc;
}

/*
 * Saving and loading: a growing buffer written, a cursor read, each
 * field copied whole (the bytes are this machine's, for this machine).
 */
struct wbuf {
	uint8_t	*p;
	size_t	 len, cap;
	bool	 failed;
};

static void
put(struct wbuf *w, const void *v, size_t n)
{
	uint8_t	*p;
	size_t	 cap;

	if (w->failed)
		return;
	if (w->len + n > w->cap) {
		for (cap = w->cap > 0 ? w->cap : 256; cap < w->len + n;
		    cap *= 2)
			continue;
		if ((p = realloc(w->p, cap)) == NULL) {
			w->failed = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->len, v, n);
	w->len += n;
}

static void
put_int(struct wbuf *w, int64_t v)
{
	put(w, &v, sizeof(v));
}

/* A string as its length (-1: NULL) and its bytes. */
static void
put_string(struct wbuf *w, const char *s)
{
	put_int(w, s != NULL ? (int64_t)strlen(s) : -1);
	if (s != NULL)
		put(w, s, strlen(s));
}

uint8_t *
lookup_save(size_t *len)
{
	const struct answer	*a;
	struct wbuf		 w = { NULL, 0, 0, false };
	size_t			 i, j;

	put_int(&w, (int64_t)nanswers);
	for (i = 0; i < nanswers; i++) {
		a = &answers[i];
		put_string(&w, a->node);
		put_string(&w, a->service);
		put_int(&w, a->family);
		put_int(&w, a->socktype);
		put_int(&w, a->flags);
		put_int(&w, a->rc);
		put_int(&w, (int64_t)a->naddrs);
		for (j = 0; j < a->naddrs; j++) {
			put_int(&w, a->lens[j]);
			put_int(&w, a->socktypes[j]);
			put_int(&w, a->protocols[j]);
			put(&w, &a->addrs[j], a->lens[j]);
		}
	}
	if (w.failed) {
		free(w.p);
		return NULL;
	}
	*len = w.len;
	return w.p;
}

struct rbuf {
	const uint8_t	*p;
	size_t		 left;
	bool		 failed;
};

static void
get(struct rbuf *r, void *v, size_t n)
{
	if (r->failed || n > r->left) {
		r->failed = true;
		memset(v, 0, n);
		return;
	}
	memcpy(v, r->p, n);
	r->p += n;
	r->left -= n;
}

/* An int64 within [min, max]; otherwise the buffer is not whole. */
static int64_t
get_int(struct rbuf *r, int64_t min, int64_t max)
{
	int64_t v;

	get(r, &v, sizeof(v));
	if (v < min || v > max) {
		r->failed = true;
		return min;
	}
	return v;
}

/* A string put by put_string, malloc'd (NULL when it was NULL). */
static char *
get_string(struct rbuf *r)
{
	int64_t	 n = get_int(r, -1, 4096);
	char	*s;

	if (n < 0 || r->failed)
		return NULL;
	if ((s = malloc((size_t)n + 1)) == NULL) {
		r->failed = true;
		return NULL;
	}
	get(r, s, (size_t)n);
	s[n] = '\0';
	return s;
}

/* The next answer of r into a; false when r is not whole. */
static bool
answer_get(struct rbuf *r, struct answer *a)
{
	size_t n, j;

	a->node = get_string(r);
	a->service = get_string(r);
	a->family = (int)get_int(r, INT32_MIN, INT32_MAX);
	a->socktype = (int)get_int(r, INT32_MIN, INT32_MAX);
	a->flags = (int)get_int(r, INT32_MIN, INT32_MAX);
	a->rc = (int)get_int(r, INT32_MIN, INT32_MAX);
	n = (size_t)get_int(r, 0, 1024);
	if (r->failed || (n > 0 && ((a->addrs = calloc(n,
	    sizeof(*a->addrs))) == NULL || (a->lens = calloc(n,
	    sizeof(*a->lens))) == NULL || (a->socktypes = calloc(n,
	    sizeof(int))) == NULL || (a->protocols = calloc(n,
	    sizeof(int))) == NULL)))
		return false;
	for (j = 0; j < n && !r->failed; j++, a->naddrs++) {
		a->lens[j] = (socklen_t)get_int(r, 0,
		    sizeof(struct sockaddr_storage));
		a->socktypes[j] = (int)get_int(r, INT32_MIN, INT32_MAX);
		a->protocols[j] = (int)get_int(r, INT32_MIN, INT32_MAX);
		get(r, &a->addrs[j], a->lens[j]);
	}
	return !r->failed;
}

int
lookup_load(const uint8_t *buf, size_t len)
{
	struct rbuf	r = { buf, len, false };
	size_t		n;

	answers_free();
	mode = LOOKUP_REPLAY;
	n = (size_t)get_int(&r, 0, 1 << 20);
	if (r.failed || (n > 0 &&
	    (answers = calloc(n, sizeof(*answers))) == NULL))
		return -1;
	/* Each one counted as soon as it holds anything to free. */
	while (nanswers < n && answer_get(&r, &answers[nanswers++]))
		continue;
	if (r.failed || r.left != 0)
		return -1;
	index_build();
	return 0;
}
