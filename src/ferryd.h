/*
 * ferryd.h - included first by every source file: the build configuration
 * and the few system headers everything uses.
 */
#ifndef FERRYD_H
#define FERRYD_H

#include "autoconf.h"	/* from configure: HAVE_*, PACKAGE_* */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The buffer every helper writes its error into ("FILE:LINE: problem",
 * "cannot bind ADDR: reason"), whatever the layer.
 */
#define CONF_ERR_MAX 512

#endif
