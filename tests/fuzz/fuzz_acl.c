/*
 * fuzz_acl.c - libFuzzer harness for the patterns of allow and deny
 * (acl_compile in src/acl.c) and the port ranges of listen
 * (addr_split_range in src/addr.c): the first byte picks the list, the
 * rest is the pattern.  A pattern compiled is then matched against a few
 * clients of each family; one refused leaves the list as it was and
 * says why.
 */
#include "ferryd.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
client(struct sockaddr_storage *ss, const char *addr)
{
	struct sockaddr_in	*sin = (void *)ss;
	struct sockaddr_in6	*sin6 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1)
		sin->sin_family = AF_INET;
	else {
		sin6->sin6_family = AF_INET6;
		inet_pton(AF_INET6, addr, &sin6->sin6_addr);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const clients[] = { "127.0.0.1", "10.1.2.3",
	    "192.168.1.200", "::1", "2001:db8::7", "::ffff:10.0.0.1" };
	struct sockaddr_storage	 ss;
	struct acl		 acl;
	char			*pattern, err[256], base[256];
	unsigned		 n;
	size_t			 i;

	if (size == 0)
		return 0;
	if ((pattern = malloc(size)) == NULL)
		return 0;
	memcpy(pattern, data + 1, size - 1);
	pattern[size - 1] = '\0';
	memset(&acl, 0, sizeof(acl));
	err[0] = '\0';
	if (acl_compile(&acl, data[0] & 1 ? ACL_DENY : ACL_ALLOW, pattern, err,
	    sizeof(err)) == -1) {
		if (err[0] == '\0' || !acl_is_empty(&acl))
			abort();
	} else
		for (i = 0; i < sizeof(clients) / sizeof(clients[0]); i++) {
			client(&ss, clients[i]);
			(void)acl_permits(&acl, NULL, (struct sockaddr *)&ss);
		}
	acl_free(&acl);
	if (addr_split_range(pattern, base, sizeof(base), &n, err,
	    sizeof(err)) == 0 && (n < 1 || n > 65535))
		abort();
	free(pattern);
	return 0;
}
