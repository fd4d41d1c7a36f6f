/*
 * acl.h - allow and deny rules for client addresses, with rinetd's
 * semantics.
 *
 * Patterns are compiled when the configuration is loaded, so that checking
 * a client costs no system call and no allocation: a worker may call
 * acl_permits() for every accepted connection.
 */
#ifndef FERRYD_ACL_H
#define FERRYD_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/*
 * One compiled pattern: an address block (a single address is a block of
 * 32 or 128 bits) or a wildcard matched against the address as text.
 */
struct acl_pattern {
	char		*text;		/* as written (wildcards in lower case) */
	int		 family;	/* AF_INET, AF_INET6; AF_UNSPEC: wildcard */
	int		 prefix;	/* leading bits of addr that must match */
	uint8_t		 addr[16];	/* network byte order, host bits zero */
};

/* The allow and deny lists of one level (global, or one rule). */
struct acl {
	struct acl_pattern	*allow;
	size_t			 nallow, capallow;	/* used, room for */
	struct acl_pattern	*deny;
	size_t			 ndeny, capdeny;
};

enum acl_list {
	ACL_ALLOW,
	ACL_DENY
};

/*
 * Compile pattern and append it to acl's allow or deny list.  A pattern is
 * an address ("192.0.2.1", "2001:db8::1"), a CIDR block ("10.0.0.0/8",
 * "2001:db8::/32") or a rinetd wildcard ("192.168.1.*", "10.0.?.1",
 * "fe80:*"; '*' matches any run of characters, '?' any one).  Host names
 * are refused.  Returns 0, or -1 with the reason in err (acl unchanged).
 * A zeroed struct acl is a valid empty one.
 */
int  acl_compile(struct acl *acl, enum acl_list list, const char *pattern,
    char *err, size_t errlen);

/*
 * Whether client may connect through a rule, as rinetd decides it: the
 * global level first, then the rule's.  At each level, when there is at
 * least one allow pattern the client must match one of them, and a client
 * matching any deny pattern is refused.  global or rule may be NULL (no
 * patterns).  An IPv4-mapped IPv6 client (::ffff:a.b.c.d) matches IPv4
 * patterns, wildcards as "a.b.c.d", and IPv6 blocks as itself.
 */
bool acl_permits(const struct acl *global, const struct acl *rule,
    const struct sockaddr *client);

/* Why acl_permits() says no: rinetd logs the two cases apart. */
enum acl_verdict {
	ACL_PERMITTED = 0,
	ACL_NOT_ALLOWED,	/* a level has allow patterns, none matched */
	ACL_DENIED		/* a deny pattern matched */
};

/* acl_permits(), with the reason: enum acl_verdict. */
int  acl_verdict(const struct acl *global, const struct acl *rule,
    const struct sockaddr *client);

/* True when acl has no pattern at all: every client is permitted. */
bool acl_is_empty(const struct acl *acl);

/* Free the lists; acl is left empty and may be reused. */
void acl_free(struct acl *acl);

#endif
