/*
 * fuzz_proxy.c - libFuzzer harness for the PROXY header reader
 * (proxy_parse in src/proxy_proto.c): any bytes, any length.  Besides
 * the sanitizers' checks, what it returns must hold together: never more
 * than it was given or than a header may be, addresses only of IP
 * families, and every shorter prefix of a whole header asking for more.
 *
 * make fuzz FUZZ_SECONDS=N runs it with clang's libFuzzer; make check
 * replays the corpus in tests/fuzz/proxy with any compiler (replay.c).
 */
#include "ferryd.h"

#include <stdlib.h>
#include <string.h>

#include "proxy_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_info	 info;
	const char		*why;
	unsigned char		*copy;
	int			 rc;

	/* An exact copy: reading one byte past it is caught. */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	rc = proxy_parse(copy, size, &info, &why);
	if (rc == PROXY_PARSE_BAD && why == NULL)
		abort();
	if (rc > 0) {
		if ((size_t)rc > size || (size_t)rc > PROXY_IN_MAX ||
		    (info.version == PROXY_V1 && rc > PROXY_V1_MAX))
			abort();
		if (info.has_addresses && ((info.src.ss_family != AF_INET &&
		    info.src.ss_family != AF_INET6) ||
		    info.src.ss_family != info.dst.ss_family))
			abort();
		/* One byte less of a whole header is never whole nor bad. */
		if (proxy_parse(copy, (size_t)rc - 1, &info, &why) !=
		    PROXY_PARSE_MORE)
			abort();
	}
	free(copy);
	return 0;
}
