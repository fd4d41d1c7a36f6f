/*
 * test_config.c - unit tests for conf_load().
 *
 * Valid files are checked field by field; invalid ones must be refused with
 * the exact "FILE:LINE:" of the offending setting and a message that says
 * what is wrong.  Files are written to a fresh mkdtemp() directory, which
 * is removed at the end.  Prints "ok N - ..." / "not ok N - ..." lines and
 * exits 1 if anything failed.
 */
#include "ferryd.h"

#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <unistd.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "addr.h"
#include "conf.h"
#include "conf_file.h"
#include "conf_schema.h"
#include "conf_syntax.h"
#include "framing.h"
#include "log.h"
#include "rule.h"
#include "testlib.h"

/* A one-line valid rules list, for files that test something else. */
#define RULES \
	"rules = ( { listen = \"127.0.0.1:18080\"; " \
	"connect = \"127.0.0.1:18081\"; } );\n"

static const struct bad_case bad_cases[] = {
	{ "syntax error", "workers = 2;\nbacklog = ;\n" RULES,
	    2, "syntax error: expected a value for \"backlog\"" },
	/* libconfig's bare "syntax error", said with what was expected. */
	{ "syntax: ';' in a list",
	    "rules = ( { listen = \"127.0.0.1:18080\";\n"
	    "  connect = \"127.0.0.1:18081\"; } ;\n",
	    2, "expected ',' or the ')' of the list opened at line 1, found ';'" },
	{ "syntax: ',' missing between rules",
	    "rules = ( { listen = \"127.0.0.1:18080\"; connect = \"a:1\"; }\n"
	    "  { listen = \"127.0.0.1:18082\"; connect = \"a:1\"; } );\n",
	    2, "expected ',' or the ')' of the list opened at line 1, found '{'" },
	{ "syntax: a list never closed",
	    "workers = 2;\nrules = ( { listen = \"127.0.0.1:18080\";\n"
	    "  connect = \"127.0.0.1:18081\"; }\n",
	    4, "the list opened at line 2, found the end of the file" },
	{ "syntax: a '}' too many", RULES "}\n",
	    2, "expected a setting (NAME = VALUE;), found '}' (nothing is open)" },
	{ "syntax: a '\"' missing",
	    "workers = 2;\nlog_file = \"/tmp/x.log;\nbacklog = 5;\n"
	    "log_level = \"info\";\n" RULES,
	    2, "a string runs over the end of this line: a '\"' is missing" },
	{ "syntax: '==' for '='", "workers == 2;\n" RULES,
	    1, "expected a value for \"workers\" (a number, true, false, a "
	    "\"string\", [ ], ( ) or { }), found '='" },
	{ "syntax: no '='", "\nworkers 2;\n" RULES,
	    2, "expected '=' after \"workers\", found '2'" },
	{ "syntax: an address not quoted",
	    "rules = ( { listen = 127.0.0.1:18080; connect = \"a:1\"; } );\n",
	    1, "found '127.0.0.1' (not a number; an address, a path or a name "
	    "is a string, in double quotes)" },
	{ "syntax: a unit", "idle_timeout = 30s;\n" RULES,
	    1, "found '30s' (a number with a unit; numbers are bare" },
	{ "syntax: single quotes", "log_level = 'info';\n" RULES,
	    1, "found a single quote (strings take double quotes)" },
	{ "syntax: a word", "workers = auto;\n" RULES,
	    1, "found 'auto' (a word: text is a string, in double quotes)" },
	{ "syntax: a trailing ','", "allow = [ \"::1\", ];\n" RULES,
	    1, "expected another element after ',' in the array opened at "
	    "line 1 (the last one takes no ',')" },
	{ "duplicate setting", "backlog = 1;\nbacklog = 2;\n" RULES,
	    2, "duplicate setting" },
	{ "unknown top-level setting", "workers = 2;\n\nfoo = 1;\n" RULES,
	    3, "unknown setting \"foo\"" },
	{ "unknown rule setting",
	    "rules = (\n  {\n    listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n    weight = 3;\n  }\n);\n",
	    5, "unknown setting \"weight\"" },
	{ "misspelled top-level setting", RULES "bakclog = 10;\n",
	    2, "did you mean \"backlog\"" },
	{ "misspelled rule setting",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    conect = \"127.0.0.1:18081\"; }\n);\n",
	    3, "did you mean \"connect\"" },
	{ "top-level-only setting in a rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; "
	    "connect = \"127.0.0.1:18081\";\n    backlog = 5; }\n);\n",
	    3, "only be set at the top level" },
	{ "rule setting at top level",
	    "# comment\nlisten = \"127.0.0.1:80\";\n" RULES,
	    2, "only be set inside a rule" },
	{ "string for integer key", "\n\n\nbacklog = \"10\";\n" RULES,
	    4, "\"backlog\" must be an integer (got a string)" },
	{ "integer for string key", RULES "\nlog_level = 3;\n",
	    3, "\"log_level\" must be a string (got an integer)" },
	{ "float for integer key", "workers = 2;\nmax_connections = 10.5;\n"
	    RULES, 2, "\"max_connections\" must be an integer (got a float)" },
	{ "boolean for duration", "\n\nidle_timeout = true;\n" RULES,
	    3, "\"idle_timeout\" must be a number of seconds" },
	{ "string for duration", RULES "connect_timeout = \"5s\";\n",
	    2, "\"connect_timeout\" must be a number of seconds" },
	{ "string for size in a rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n    buffer_size = \"64k\"; }\n"
	    ");\n", 4, "\"buffer_size\" must be an integer" },
	{ "integer for address",
	    "rules = (\n  {\n    listen = 8080;\n"
	    "    connect = \"127.0.0.1:18081\"; }\n);\n",
	    3, "\"listen\" must be a string" },
	{ "integer for user", "\nuser = 0;\n" RULES,
	    2, "\"user\" must be a string" },
	{ "workers 0", "# c\nworkers = 0;\n" RULES,
	    2, "\"workers\" must be between 1 and 256 (got 0)" },
	{ "workers 100000", "\n\n\n\nworkers = 100000;\n" RULES,
	    5, "between 1 and 256 (got 100000)" },
	{ "backlog 0", "workers = 1;\n\nbacklog = 0;\n" RULES,
	    3, "\"backlog\" must be between 1 and 65535 (got 0)" },
	{ "buffer_size 10 in a rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n    buffer_size = 10; }\n);\n",
	    4, "\"buffer_size\" must be between 1024 and 67108864 (got 10)" },
	{ "int64 out of range", RULES "max_connections = 2000000L;\n",
	    2, "between 1 and 1000000 (got 2000000)" },
	/* libconfig 1.5 alone would read these as 1 and accept them. */
	{ "integer beyond 32 bits", "\nmax_connections = 4294967297;\n" RULES,
	    2, "between 1 and 1000000 (got 4294967297)" },
	{ "hex integer beyond 32 bits", RULES "/* 1 */ backlog = 0x100000001;\n",
	    2, "between 1 and 65535 (got 4294967297)" },
	{ "negative integer beyond 32 bits",
	    "rules = ( { listen = \"127.0.0.1:18080\";\n"
	    "  connect = \"127.0.0.1:18081\";\n"
	    "  sndbuf = -4294967295; } );\n",
	    3, "between 0 and 67108864 (got -4294967295)" },
	{ "duration beyond 32 bits", RULES "idle_timeout = 4294967296;\n",
	    2, "(got 4294967296)" },
	{ "negative idle_timeout", "\nidle_timeout = -1;\n" RULES,
	    2, "\"idle_timeout\" must be between 0 and" },
	{ "negative float shutdown_timeout", RULES "shutdown_timeout = -0.5;\n",
	    2, "(got -0.5)" },
	{ "shutdown_timeout too long", RULES "shutdown_timeout = 86401;\n",
	    2, "between 0 and 86400 seconds" },
	{ "stats_listen on a rule's port", "stats_listen = \"127.0.0.1:18080\";\n"
	    RULES, 1, "\"stats_listen\" \"127.0.0.1:18080\" is taken by the "
	    "listen address \"127.0.0.1:18080\" of the rule at line 2" },
	{ "stats_listen on a wildcard over a rule's port",
	    "stats_listen = \"0.0.0.0:18080\";\n" RULES, 1,
	    "is taken by the listen address \"127.0.0.1:18080\"" },
	{ "stats_listen within a rule's dual-stack wildcard",
	    "stats_listen = \"127.0.0.1:18080\";\nrules = ( { listen = "
	    "\"[::]:18080\"; ipv6_only = false;\n  connect = "
	    "\"192.0.2.1:80\"; } );\n", 1, "is taken by the listen address "
	    "\"[::]:18080\"" },
	{ "watchdog_timeout under a second", RULES "watchdog_timeout = 0.05;\n",
	    2, "\"watchdog_timeout\" must be 0 (no watchdog) or between 1 and "
	    "3600 seconds (got 0.05)" },
	{ "watchdog_timeout too long", RULES "watchdog_timeout = 3601;\n",
	    2, "between 0 and 3600 seconds (got 3601)" },
	{ "connect_timeout 0", "\n\n\n\n\nconnect_timeout = 0;\n" RULES,
	    6, "\"connect_timeout\" must be between 0.001 and 3600 seconds "
	    "(got 0)" },
	{ "connect_timeout rounding to 0 ms in a rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect_timeout = 0.0004;\n"
	    "    connect = \"127.0.0.1:18081\"; }\n);\n",
	    3, "(got 0.0004)" },
	{ "workers \"many\"", "\nworkers = \"many\";\n" RULES,
	    2, "\"workers\" must be \"auto\" or a number" },
	{ "workers float", "workers = 2.5;\n" RULES,
	    1, "\"workers\" must be \"auto\" or an integer (got a float)" },
	{ "bad log_level", "workers = 2;\nlog_level = \"verbose\";\n" RULES,
	    2, "must be one of \"err\", \"warning\"" },
	{ "bad event_backend", RULES "\n\nevent_backend = \"kqueue\";\n",
	    4, "must be one of \"auto\", \"epoll\", \"poll\"" },
	{ "missing rules", "workers = 2;\nbacklog = 5;\n",
	    0, "missing required setting \"rules\"" },
	{ "empty rules list", "workers = 2;\n\nrules = ( );\n",
	    3, "\"rules\" is empty" },
	{ "rules is a string", "\nrules = \"127.0.0.1:80\";\n",
	    2, "\"rules\" must be a list" },
	{ "rules is a group",
	    "rules = {\n  listen = \"127.0.0.1:18080\";\n"
	    "  connect = \"127.0.0.1:18081\";\n};\n",
	    1, "must be a list of rules" },
	/*
	 * libconfig dates a scalar list element by the token after it, so
	 * the string here has its comma on the same line.
	 */
	{ "rule is a string",
	    "rules = (\n  \"127.0.0.1:18082\",\n  { listen = \"127.0.0.1:18080\"; "
	    "connect = \"127.0.0.1:18081\"; }\n);\n",
	    2, "a rule must be a group" },
	{ "rule is an integer", "workers = 1;\nrules = ( 5 );\n",
	    2, "(got an integer)" },
	{ "missing listen",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; "
	    "connect = \"127.0.0.1:18081\"; },\n  {\n"
	    "    connect = \"127.0.0.1:18083\";\n  }\n);\n",
	    3, "missing required setting \"listen\"" },
	{ "missing connect",
	    "\nrules = (\n  {\n    listen = \"127.0.0.1:18080\";\n  }\n);\n",
	    3, "missing required setting \"connect\"" },
	{ "address without port",
	    "rules = (\n  {\n    listen = \"127.0.0.1\";\n"
	    "    connect = \"127.0.0.1:18081\";\n  }\n);\n",
	    3, "missing port" },
	{ "port 99999",
	    "rules = (\n  {\n    listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:99999\";\n  }\n);\n",
	    4, "port 99999 in address \"127.0.0.1:99999\" must be between 1 "
	    "and 65535" },
	{ "port 0",
	    "rules = (\n  { listen = \"127.0.0.1:0\";\n"
	    "    connect = \"127.0.0.1:18081\"; }\n);\n",
	    2, "must be between 1 and 65535" },
	{ "garbage address",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"1.2.3.4.5:80\"; }\n);\n",
	    3, "cannot resolve \"1.2.3.4.5:80\"" },
	{ "unknown service name",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:no-such-service\"; }\n);\n",
	    3, "cannot resolve" },
	{ "IPv6 address without brackets",
	    "rules = (\n  {\n    listen = \"::1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n  }\n);\n",
	    3, "must be written as \"[addr]:port\"" },
	{ "IPv4 address in brackets",
	    "rules = (\n  {\n    listen = \"[127.0.0.1]:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n  }\n);\n",
	    3, "is not an IPv6 address" },
	{ "unresolvable hostname",
	    "rules = (\n  {\n    listen = \"127.0.0.1:18080\";\n\n"
	    "    connect = \"nonexistent.invalid:80\";\n  }\n);\n",
	    5, "cannot resolve \"nonexistent.invalid:80\"" },
	{ "duplicate listen address",
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18090\"; },\n"
	    "  { listen = \"127.0.0.1:18081\"; connect = \"127.0.0.1:18090\"; },\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18091\"; }\n"
	    ");\n",
	    4, "listen address \"127.0.0.1:18080\" is already used by the rule "
	    "at line 2" },
	{ "duplicate listen address written differently",
	    "rules = (\n  { listen = \"0.0.0.0:18080\";\n"
	    "    connect = \"127.0.0.1:18090\"; },\n"
	    "  { listen = \"*:18080\";\n    connect = \"127.0.0.1:18091\"; }\n"
	    ");\n",
	    4, "already used by the rule at line 2" },
	{ "unknown user", "\nuser = \"nosuchuser-ferryd\";\n" RULES,
	    2, "unknown user \"nosuchuser-ferryd\"" },
	{ "unknown group", "\n\ngroup = \"nosuchgroup-ferryd\";\n" RULES,
	    3, "unknown group \"nosuchgroup-ferryd\"" },
	{ "relative pidfile", "workers = 1;\npidfile = \"run/ferryd.pid\";\n"
	    RULES, 2, "\"pidfile\" must be an absolute path" },
	{ "relative log_file", RULES "log_file = \"ferryd.log\";\n",
	    2, "\"log_file\" must be an absolute path" },
	{ "empty log_file", RULES "\nlog_file = \"\";\n",
	    3, "\"log_file\" must be an absolute path" },
	/* allow and deny */
	{ "IPv4 prefix over 32", "workers = 1;\nallow = [ \"10.0.0.0/33\" ];\n"
	    RULES, 2, "\"allow\": \"10.0.0.0/33\": the prefix length after "
	    "'/' must be a number from 0 to 32" },
	{ "IPv6 prefix over 128 in a rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n"
	    "    deny = [ \"2001:db8::/129\" ]; }\n);\n",
	    4, "from 0 to 128" },
	{ "CIDR without prefix length", RULES "deny = \"10.0.0.0/\";\n",
	    2, "must be a number from 0 to 32" },
	{ "CIDR with a bad address", "\n" RULES "allow = \"10.0.0/8\";\n",
	    3, "\"10.0.0\" is not an IPv4 or IPv6 address" },
	{ "CIDR with host bits", RULES "allow = [ \"10.0.0.1/8\" ];\n",
	    2, "did you mean \"10.0.0.0/8\"?" },
	{ "empty pattern", RULES "\n\nallow = [ \"\" ];\n",
	    4, "\"allow\": empty pattern" },
	{ "bad wildcard character", RULES "deny = [ \"192.168.x.*\" ];\n",
	    2, "may only contain digits, a-f, '.', ':', '*' and '?' (not 'x')" },
	{ "host name pattern", "allow = \"localhost\";\n" RULES,
	    1, "host names are not allowed" },
	{ "pattern that is not a string", RULES "allow = [ 10 ];\n",
	    2, "\"allow\" patterns must be strings (got an integer)" },
	{ "allow is a group", RULES "allow = { a = 1; };\n",
	    2, "\"allow\" must be a list of patterns" },
	{ "bad pattern in the middle of a list",
	    RULES "deny = (\n  \"10.0.0.0/8\",\n  \"10.0.0.0/99\",\n"
	    "  \"192.168.0.0/16\"\n);\n",
	    4, "\"deny\": \"10.0.0.0/99\"" },
	/* access_log, access_log_format */
	{ "relative access_log", RULES "access_log = \"access.log\";\n",
	    2, "\"access_log\" must be an absolute path" },
	{ "bad access_log_format", "\naccess_log_format = \"combined\";\n"
	    RULES, 2, "\"access_log_format\" must be one of \"rinetd\", "
	    "\"common\", \"rinetd-exact\", \"common-exact\", \"json\", "
	    "\"sslh\", \"sslh-numeric\" (got \"combined\")" },
	/* syslog_ident, syslog_facility */
	{ "syslog_ident with a space", RULES "syslog_ident = \"my sslh\";\n",
	    2, "\"syslog_ident\" must be 1 to 32 letters, digits, '.', '_' or "
	    "'-'" },
	{ "empty syslog_ident", RULES "syslog_ident = \"\";\n", 2,
	    "\"syslog_ident\" must be 1 to 32" },
	{ "unknown syslog_facility", RULES "syslog_facility = \"kernel\";\n",
	    2, "\"syslog_facility\" must be one of \"auth\", \"authpriv\"" },
	{ "integer access_log_format", RULES "access_log_format = 1;\n",
	    2, "must be a string (got an integer)" },
	{ "access_log in a rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    access_log = \"/tmp/a.log\";\n"
	    "    connect = \"127.0.0.1:18081\"; }\n);\n",
	    3, "can only be set at the top level" },
	/* source */
	{ "source with a port",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n"
	    "    source = \"127.0.0.3:5000\"; }\n);\n",
	    4, "\"source\": \"127.0.0.3:5000\" must be an address without a "
	    "port" },
	{ "IPv6 source for an IPv4 backend",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    source = \"::1\";\n"
	    "    connect = \"127.0.0.1:18081\"; }\n);\n",
	    3, "\"source\" \"::1\" is not an IPv4 address, as the connect "
	    "address \"127.0.0.1:18081\" is" },
	{ "IPv4 source for an IPv6 backend",
	    "rules = (\n  { listen = \"[::1]:18080\";\n"
	    "    connect = \"[::1]:18081\";\n\n"
	    "    source = \"127.0.0.1\"; }\n);\n",
	    5, "is not an IPv6 address" },
	{ "unresolvable source",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n"
	    "    source = \"nonexistent.invalid\"; }\n);\n",
	    4, "\"source\": cannot resolve \"nonexistent.invalid\"" },
	{ "source prefix too large",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\"; source = [ \"127.0.0.0/16\" ]; }\n);\n",
	    3, "\"source\": \"127.0.0.0/16\" holds more than 256 addresses" },
	{ "source prefix malformed",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\"; source = \"127.0.0.0/2x\"; }\n);\n",
	    3, "\"source\": \"127.0.0.0/2x\" is not an address prefix" },
	{ "source list of numbers",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\"; source = [ 1, 2 ]; }\n);\n",
	    3, "items of \"source\" must be address strings" },
	{ "max_sessions_per_client on TCP",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\"; max_sessions_per_client = 2; }\n);\n",
	    3, "\"max_sessions_per_client\" is not a setting of TCP rules" },
	{ "empty source",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\"; source = \"\"; }\n);\n",
	    3, "\"source\": missing address" },
	{ "source at top level", "source = \"127.0.0.1\";\n" RULES,
	    1, "can only be set inside a rule" },
	/* Ports: digits only, or a service name; getaddrinfo() takes more. */
	{ "port +0", "rules = ( { listen = \"127.0.0.1:+0\";\n"
	    "  connect = \"127.0.0.1:18081\"; } );\n",
	    1, "port \"+0\" in address \"127.0.0.1:+0\" is neither" },
	{ "port +99999 in connect", "rules = ( { listen = \"127.0.0.1:18080\";"
	    "\n  connect = \"127.0.0.1:+99999\"; } );\n",
	    2, "port \"+99999\" in address" },
	{ "port with a blank", "rules = ( { listen = \"127.0.0.1: 65536\";\n"
	    "  connect = \"127.0.0.1:18081\"; } );\n",
	    1, "port \" 65536\" in address" },
	{ "port -1", "rules = ( { listen = \"127.0.0.1:-1\";\n"
	    "  connect = \"127.0.0.1:18081\"; } );\n",
	    1, "port \"-1\" in address" },
	{ "port 1e3", "rules = ( { listen = \"127.0.0.1:18080\";\n"
	    "  connect = \"127.0.0.1:1e3\"; } );\n",
	    2, "port \"1e3\" in address" },
	/* Port ranges. */
	{ "a port range backwards", "rules = ( { listen = \"127.0.0.1:20-10\";\n"
	    "  connect = \"127.0.0.1:18081\"; } );\n",
	    1, "to a higher one" },
	{ "a port range from 0", "rules = ( { listen = \"127.0.0.1:0-10\";\n"
	    "  connect = \"127.0.0.1:18081\"; } );\n",
	    1, "within 1..65535" },
	{ "a port range past 65535", "rules = ( { listen = \"127.0.0.1:65530-65540\";"
	    "\n  connect = \"127.0.0.1:18081\"; } );\n",
	    1, "within 1..65535" },
	{ "a port range with a letter", "rules = ( { listen = \"127.0.0.1:10-2x\";"
	    "\n  connect = \"127.0.0.1:18081\"; } );\n",
	    1, "two port numbers" },
	{ "connect range of another length", "rules = ( { listen = "
	    "\"127.0.0.1:18000-18009\";\n  connect = \"127.0.0.1:19000-19008\"; } );\n",
	    2, "has 9 ports and listen 10" },
	{ "connect range for one listen port", "rules = ( { listen = "
	    "\"127.0.0.1:18000\";\n  connect = \"127.0.0.1:19000-19008\"; } );\n",
	    2, "as long as listen's" },
	{ "a port of a range used again", "rules = (\n { listen = "
	    "\"127.0.0.1:18000-18009\"; connect = \"127.0.0.1:19000\"; },\n"
	    " { listen = \"127.0.0.1:18005\"; connect = \"127.0.0.1:19000\"; } );\n",
	    3, "\"127.0.0.1:18005\" is already used by the rule at line 2" },
	{ "a range forwarding to itself", "rules = (\n { listen = "
	    "\"127.0.0.1:18000-18009\";\n connect = \"127.0.0.1:18000-18009\"; } );\n",
	    2, "rule forwards to itself" },
	/* keepalive. */
	{ "keepalive on a UDP rule", "rules = ( { listen = \"127.0.0.1:18000\";\n"
	    "  connect = \"127.0.0.1:18081\"; protocol = \"udp\";\n"
	    "  keepalive = { idle = 60; }; } );\n", 3, "not a setting of UDP rules" },
	{ "keepalive count 0", "keepalive = {\n count = 0; };\n"
	    "rules = ( { listen = \"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\"; } );\n",
	    2, "count" },
	{ "a route's keepalive on the client's leg", "rules = ( { listen = "
	    "\"127.0.0.1:18000\";\n  routes = ( { name = \"a\"; connect = "
	    "\"127.0.0.1:18081\";\n  keepalive = { legs = \"client\"; }; "
	    "} ); } );\n", 3, "a route's keepalive is on its backend" },
	{ "keepalive legs unknown", "keepalive = { legs = \"server\"; };\n"
	    "rules = ( { listen = \"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\"; } );\n",
	    1, "legs" },
	{ "keepalive idle under a second", "keepalive = { idle = 0.5; };\n"
	    "rules = ( { listen = \"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\"; } );\n",
	    1, "idle" },
	/* accept_proxy. */
	{ "proxy_timeout without accept_proxy", "rules = ( { listen = "
	    "\"127.0.0.1:18000\";\n  connect = \"127.0.0.1:18081\";\n"
	    "  proxy_timeout = 2; } );\n", 3, "needs accept_proxy = true" },
	{ "accept_proxy_from without accept_proxy", "rules = ( { listen = "
	    "\"127.0.0.1:18000\";\n  connect = \"127.0.0.1:18081\";\n"
	    "  accept_proxy_from = \"10.0.0.0/8\"; } );\n", 3,
	    "needs accept_proxy = true" },
	{ "accept_proxy on a UDP rule", "rules = ( { listen = \"127.0.0.1:18000\";\n"
	    "  connect = \"127.0.0.1:18081\"; protocol = \"udp\";\n"
	    "  accept_proxy = true; } );\n", 3, "not a setting of UDP rules" },
	{ "a bad accept_proxy_from pattern", "rules = ( { listen = "
	    "\"127.0.0.1:18000\";\n  connect = \"127.0.0.1:18081\"; accept_proxy = true;\n"
	    "  accept_proxy_from = \"10.0.0.0/33\"; } );\n", 3, "accept_proxy_from" },
	{ "accept_proxy and allow without accept_proxy_from", "rules = (\n"
	    " { listen = \"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\";\n"
	    "  accept_proxy = true; allow = \"10.0.0.0/8\"; } );\n", 2,
	    "needs accept_proxy_from" },
	{ "accept_proxy and a global deny without accept_proxy_from",
	    "deny = \"10.0.0.0/8\";\nrules = (\n { listen = \"127.0.0.1:18000\";"
	    " connect = \"127.0.0.1:18081\";\n  accept_proxy = true; } );\n", 3,
	    "needs accept_proxy_from" },
	{ "accept_proxy \"maybe\"", "rules = ( { listen = \"127.0.0.1:18000\";\n"
	    "  connect = \"127.0.0.1:18081\"; accept_proxy = \"maybe\"; } );\n",
	    2, "must be true, false or \"optional\"" },
	/* send_proxy. */
	{ "send_proxy pass without accept_proxy", "rules = ( { listen = "
	    "\"127.0.0.1:18000\";\n  connect = \"127.0.0.1:18081\";\n"
	    "  send_proxy = \"pass\"; } );\n", 3, "it needs accept_proxy" },
	{ "a route's send_proxy pass without accept_proxy", "rules = ( {\n"
	    "  listen = \"127.0.0.1:18000\";\n  routes = (\n"
	    "    { name = \"s\"; protocol = \"ssh\"; connect = \"127.0.0.1:22\";\n"
	    "      send_proxy = \"pass\"; } ); } );\n", 5,
	    "it needs accept_proxy" },
	{ "send_proxy pass to UDP", "rules = ( { listen = \"127.0.0.1:18000\";\n"
	    "  connect = \"127.0.0.1:18081\"; connect_protocol = \"udp\";\n"
	    "  accept_proxy = \"optional\"; send_proxy = \"pass\"; } );\n", 3,
	    "is for TCP to TCP rules" },
	{ "send_proxy v3", "rules = ( { listen = \"127.0.0.1:18000\";\n"
	    "  connect = \"127.0.0.1:18081\"; send_proxy = \"v3\"; } );\n",
	    2, "send_proxy" },
	{ "send_proxy v1 on a UDP rule", "rules = ( { listen = \"127.0.0.1:18000\";\n"
	    "  connect = \"127.0.0.1:18081\"; protocol = \"udp\";\n"
	    "  send_proxy = \"v1\"; } );\n", 3, "a UDP rule needs \"v2\"" },
	{ "send_proxy v1 on a TCP-to-UDP rule", "rules = ( { listen = "
	    "\"127.0.0.1:18000\";\n  connect = \"127.0.0.1:18081\"; "
	    "connect_protocol = \"udp\";\n  send_proxy = \"v1\"; } );\n", 3,
	    "a TCP-to-UDP rule needs \"v2\"" },
	/* name. */
	{ "two rules of one name", "rules = (\n { name = \"a\"; listen = "
	    "\"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\"; },\n"
	    " { name = \"a\"; listen = \"127.0.0.1:18001\"; connect = "
	    "\"127.0.0.1:18081\"; } );\n", 3,
	    "rule name \"a\" is already that of the rule at line 2" },
	{ "a name that is another rule's listen", "rules = (\n { listen = "
	    "\"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\"; },\n"
	    " { name = \"127.0.0.1:18000\"; listen = \"127.0.0.1:18001\"; "
	    "connect = \"127.0.0.1:18081\"; } );\n", 3,
	    "named by its listen address" },
	{ "a name with a space", "rules = ( { name = \"my rule\";\n"
	    "  listen = \"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\"; } );\n",
	    1, "' ' is not allowed" },
	{ "an empty name", "rules = ( { name = \"\";\n"
	    "  listen = \"127.0.0.1:18000\"; connect = \"127.0.0.1:18081\"; } );\n",
	    1, "1 to 64 characters" },
#if defined(IP_TRANSPARENT) && defined(IPV6_TRANSPARENT)
	/* transparent (elsewhere, any use is refused first). */
	{ "transparent with source", "rules = ( { listen = \"127.0.0.1:18000\";\n"
	    "  connect = \"127.0.0.1:18081\"; source = \"127.0.0.2\";\n"
	    "  transparent = true; } );\n", 3, "set one of them" },
	{ "transparent to a backend of another family", "rules = ( { listen = "
	    "\"127.0.0.1:18000\";\n  connect = \"[::1]:18081\";\n"
	    "  transparent = true; } );\n", 3, "no backend is of the clients' "
	    "address family" },
	{ "a route's transparent to a backend of another family",
	    "rules = ( { listen = \"127.0.0.1:18000\";\n  routes = (\n"
	    "    { name = \"s\"; protocol = \"ssh\"; connect = \"[::1]:22\";\n"
	    "      transparent = true; } ); } );\n", 4, "no backend is of the "
	    "clients' address family" },
	{ "a rule's transparent, a route of another family",
	    "rules = ( { listen = \"127.0.0.1:18000\"; transparent = true;\n"
	    "  routes = (\n"
	    "    { name = \"s\"; protocol = \"ssh\"; connect = \"[::1]:22\"; }"
	    " ); } );\n", 1, "no backend is of the clients' address family" },
	{ "a route's transparent to a Unix backend",
	    "rules = ( { listen = \"[::]:18000\"; ipv6_only = false;\n"
	    "  routes = (\n"
	    "    { name = \"s\"; protocol = \"ssh\"; connect = \"unix:/x\";\n"
	    "      transparent = true; } ); } );\n", 4, "a Unix backend has no "
	    "use for" },
	{ "a route's transparent with the rule's source",
	    "rules = ( { listen = \"127.0.0.1:18000\"; source = \"127.0.0.2\";\n"
	    "  routes = (\n"
	    "    { name = \"s\"; protocol = \"ssh\"; connect = \"127.0.0.1:22\";\n"
	    "      transparent = true; } ); } );\n", 4, "set one of them" },
	{ "transparent not a boolean", "rules = ( { listen = \"127.0.0.1:18000\";\n"
	    "  connect = \"127.0.0.1:18081\";\n  transparent = \"yes\"; } );\n",
	    3, "transparent" },
	{ "transparent and accept_proxy without accept_proxy_from",
	    "rules = (\n { listen = \"127.0.0.1:18000\"; connect = "
	    "\"127.0.0.1:18081\";\n  accept_proxy = true; transparent = true; } );\n",
	    2, "accept_proxy with transparent needs accept_proxy_from" },
#endif
	/* Rules whose connections would come back to them. */
	{ "rule forwarding to itself",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18080\"; }\n);\n",
	    2, "rule forwards to itself: connect \"127.0.0.1:18080\"" },
	{ "rule forwarding to its wildcard listener",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; "
	    "connect = \"127.0.0.1:18081\"; },\n"
	    "  { listen = \"0.0.0.0:18082\";\n"
	    "    connect = \"127.0.0.2:18082\"; }\n);\n",
	    3, "rule forwards to itself" },
	{ "rule forwarding to its dual-stack listener",
	    "rules = (\n  { listen = \"[::]:18082\"; ipv6_only = false;\n"
	    "    connect = \"127.0.0.1:18082\"; }\n);\n",
	    2, "rule forwards to itself" },
	{ "rule forwarding to its IPv6 wildcard listener",
	    "rules = (\n  { listen = \"[::]:18082\";\n"
	    "    connect = \"[::1]:18082\"; }\n);\n",
	    2, "rule forwards to itself" },
	{ "two rules forwarding to each other",
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18090\"; },\n"
	    "  { listen = \"127.0.0.1:18081\"; connect = \"127.0.0.1:18082\"; },\n"
	    "  { listen = \"127.0.0.1:18082\"; connect = \"127.0.0.1:18081\"; }\n"
	    ");\n",
	    3, "rules forward in a loop: line 3 -> line 4 -> line 3" },
	{ "three rules in a loop",
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18081\"; },\n"
	    "  { listen = \"127.0.0.1:18081\"; connect = \"127.0.0.1:18082\"; },\n"
	    "  { listen = \"0.0.0.0:18082\"; connect = \"localhost:18080\"; }\n"
	    ");\n",
	    2, "line 2 -> line 3 -> line 4 -> line 2" },
	/* Files whose directory does not exist. */
	{ "log_file in a missing directory",
	    RULES "\nlog_file = \"/nonexistent-ferryd-dir/ferryd.log\";\n",
	    3, "\"log_file\": cannot use directory /nonexistent-ferryd-dir: "
	    "No such file or directory" },
	{ "access_log in a missing directory",
	    "access_log = \"/nonexistent-ferryd-dir/a/access.log\";\n" RULES,
	    1, "\"access_log\": cannot use directory" },
	/*
	 * The master makes a pidfile's own directory right under the
	 * run-state directory only; not two, nor elsewhere.
	 */
	{ "pidfile two missing directories down",
	    RULES "pidfile = \"" RUNSTATEDIR "/nonexistent-ferryd-dir/ferryd/"
	    "ferryd.pid\";\n", 2, "\"pidfile\": cannot use directory "
	    RUNSTATEDIR "/nonexistent-ferryd-dir" },
	{ "pidfile in a missing directory elsewhere",
	    RULES "pidfile = \"/nonexistent-ferryd-dir/ferryd.pid\";\n",
	    2, "\"pidfile\": cannot use directory /nonexistent-ferryd-dir: "
	    "No such file or directory" },
	{ "pidfile under a file", RULES "pidfile = \"/dev/null/ferryd.pid\";\n",
	    2, "\"pidfile\": /dev/null is not a directory" },
	/* ipv6_only */
	{ "ipv6_only with an IPv4 listen address",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    ipv6_only = false;\n"
	    "    connect = \"127.0.0.1:18081\"; }\n);\n",
	    3, "\"ipv6_only\" is only valid with an IPv6 listen address" },
	{ "ipv6_only not a boolean",
	    "rules = (\n  { listen = \"[::]:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n"
	    "    ipv6_only = \"no\"; }\n);\n",
	    4, "\"ipv6_only\" must be true or false (got a string)" },
	{ "dual-stack listener overlapping an IPv4 one",
	    "rules = (\n"
	    "  { listen = \"0.0.0.0:18080\"; connect = \"127.0.0.1:18090\"; },\n"
	    "  { listen = \"[::]:18080\"; connect = \"127.0.0.1:18090\";\n"
	    "    ipv6_only = false; }\n);\n",
	    3, "listen address \"[::]:18080\" overlaps \"0.0.0.0:18080\" of "
	    "the rule at line 2" },
	/* protocol and UDP */
	{ "unknown protocol",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\"; protocol = \"sctp\"; }\n);\n",
	    3, "\"protocol\" must be one of \"tcp\", \"udp\" (got \"sctp\")" },
	{ "session_timeout in a TCP rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n    session_timeout = 5; }\n);\n",
	    4, "\"session_timeout\" is not a setting of TCP rules" },
	{ "splice in a UDP rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; protocol = \"udp\";\n"
	    "    connect = \"127.0.0.1:18081\";\n    splice = \"on\"; }\n);\n",
	    4, "\"splice\" is not a setting of UDP rules (this rule has "
	    "protocol = \"udp\")" },
	{ "queue_timeout in a UDP rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; protocol = \"udp\";\n"
	    "    connect = \"127.0.0.1:18081\";\n    queue_timeout = 2; }\n);\n",
	    4, "\"queue_timeout\" is not a setting of UDP rules" },
	{ "queue_max of 0",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n    queue_max = 0; }\n);\n",
	    4, "\"queue_max\" must be between 1 and 1000000 (got 0)" },
	{ "slow_start in a connect item, too long",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = ( { address = \"127.0.0.1:18081\";\n"
	    "      slow_start = 7200; } ); }\n);\n",
	    4, "\"slow_start\" must be between 0 and 3600 seconds (got 7200)" },
	{ "two UDP rules on one address",
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18090\";"
	    " protocol = \"udp\"; },\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18091\";"
	    " protocol = \"udp\"; }\n);\n",
	    3, "listen address \"127.0.0.1:18080\" is already used by the rule "
	    "at line 2" },
	/* UDP to TCP, TCP to UDP */
	{ "unknown connect_protocol",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\"; connect_protocol = \"tcp6\"; }\n);\n",
	    3, "\"connect_protocol\" must be one of \"tcp\", \"udp\" (got \"tcp6\")" },
	{ "unknown framing",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; protocol = \"udp\";\n"
	    "    connect = \"127.0.0.1:18081\"; connect_protocol = \"tcp\";\n"
	    "    framing = \"length32\"; }\n);\n",
	    4, "\"framing\" must be one of \"none\", \"length16\" (got \"length32\")" },
	{ "framing where both sides are UDP",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; protocol = \"udp\";\n"
	    "    connect = \"127.0.0.1:18081\";\n    framing = \"length16\"; }\n);\n",
	    4, "\"framing\" is not a setting of UDP rules (this rule has "
	    "protocol = \"udp\")" },
	{ "idle_timeout in a UDP-to-TCP rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; protocol = \"udp\";\n"
	    "    connect = \"127.0.0.1:18081\"; connect_protocol = \"tcp\";\n"
	    "    idle_timeout = 5; }\n);\n",
	    4, "\"idle_timeout\" is not a setting of UDP-to-TCP rules (this "
	    "rule has protocol = \"udp\" and connect_protocol = \"tcp\")" },
	{ "max_sessions in a TCP-to-UDP rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\"; connect_protocol = \"udp\";\n"
	    "    max_sessions = 5; }\n);\n",
	    4, "\"max_sessions\" is not a setting of TCP-to-UDP rules" },
	{ "connect_timeout in a TCP-to-UDP rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\"; connect_protocol = \"udp\";\n"
	    "    connect_timeout = 5; }\n);\n",
	    4, "\"connect_timeout\" is not a setting of TCP-to-UDP rules" },
	{ "a loop through both protocols",
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18090\";"
	    " protocol = \"udp\"; connect_protocol = \"tcp\"; },\n"
	    "  { listen = \"127.0.0.1:18090\"; connect = \"127.0.0.1:18080\";"
	    " connect_protocol = \"udp\"; }\n);\n",
	    2, "rules forward in a loop: line 2 -> line 3 -> line 2" },
	{ "session_timeout below a second",
	    "session_timeout = 0.5;\n" RULES,
	    1, "\"session_timeout\" must be between 1 and 86400 seconds" },
	{ "max_sessions zero", RULES "max_sessions = 0;\n",
	    2, "\"max_sessions\" must be between 1 and" },
	{ "max_connections_per_client below 0",
	    "max_connections_per_client = -1;\n" RULES,
	    1, "\"max_connections_per_client\" must be between 0 and" },
	{ "connection_rate over its 16 bits",
	    "rules = (\n  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18081\";\n"
	    "    connection_rate = 65536; }\n);\n",
	    4, "\"connection_rate\" must be between 0 and 65535" },
	{ "connection_rate not a number",
	    "connection_rate = \"fast\";\n" RULES, 1, "\"connection_rate\"" },
	{ "max_connections_per_client in a UDP rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; protocol = \"udp\";\n"
	    "    connect = \"127.0.0.1:18081\";\n"
	    "    max_connections_per_client = 2; }\n);\n",
	    4, "\"max_connections_per_client\" is not a setting of UDP rules" },
	{ "connection_rate in a UDP-to-TCP rule",
	    "rules = (\n  { listen = \"127.0.0.1:18080\"; protocol = \"udp\";\n"
	    "    connect = \"127.0.0.1:18081\"; connect_protocol = \"tcp\";\n"
	    "    connection_rate = 2; }\n);\n",
	    4, "\"connection_rate\" is not a setting of UDP-to-TCP rules" },
};

/* Who we run as, copied: getpwnam() in conf_load() reuses static storage. */
struct ident {
	char	user[256];
	char	group[256];
	uid_t	uid;
	gid_t	gid;
};

/*
 * TCP and UDP on one port; what UDP rules inherit; a UDP rule forwarding
 * to a TCP rule's address (and back) is no loop.
 */
static void
test_udp(void)
{
	struct conf	*cfg;
	char		 path[1024];

	cfg = load_good("udp.conf",
	    "session_timeout = 30;\n"
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18090\"; },\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18095\";\n"
	    "    protocol = \"udp\"; },\n"
	    "  { listen = \"127.0.0.1:18090\"; connect = \"127.0.0.1:18080\";\n"
	    "    protocol = \"udp\"; max_sessions = 10; session_timeout = 2.5; }\n"
	    ");\n", path, sizeof(path), "TCP and UDP rules on one port");
	if (cfg == NULL)
		return;
	check(cfg->rules[0].protocol == RULE_TCP &&
	    cfg->rules[1].protocol == RULE_UDP, "protocol: tcp by default, "
	    "udp when asked");
	check(cfg->rules[1].session_timeout == 30000 &&
	    cfg->rules[1].max_sessions == DEFAULT_MAX_SESSIONS,
	    "a UDP rule inherits session_timeout and max_sessions");
	check(cfg->rules[2].session_timeout == 2500 &&
	    cfg->rules[2].max_sessions == 10, "... or sets its own");
	check(cfg->rules[0].connect_protocol == RULE_TCP &&
	    cfg->rules[1].connect_protocol == RULE_UDP,
	    "connect_protocol: the rule's protocol by default");
	conf_free(cfg);

	cfg = load_good("cross.conf",
	    "session_timeout = 30;\n"
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18090\";\n"
	    "    protocol = \"udp\"; connect_protocol = \"tcp\";\n"
	    "    framing = \"length16\"; connect_timeout = 2;\n"
	    "    max_sessions = 7; },\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18091\";\n"
	    "    connect_protocol = \"udp\"; session_timeout = 4; }\n"
	    ");\n", path, sizeof(path), "UDP-to-TCP and TCP-to-UDP rules");
	if (cfg == NULL)
		return;
	check(cfg->rules[0].protocol == RULE_UDP &&
	    cfg->rules[0].connect_protocol == RULE_TCP &&
	    cfg->rules[0].framing == FRAMING_LENGTH16 &&
	    cfg->rules[0].connect_timeout == 2000 &&
	    cfg->rules[0].max_sessions == 7 &&
	    cfg->rules[0].session_timeout == 30000,
	    "UDP to TCP: framing, connect_timeout, sessions");
	check(cfg->rules[1].protocol == RULE_TCP &&
	    cfg->rules[1].connect_protocol == RULE_UDP &&
	    cfg->rules[1].framing == FRAMING_NONE &&
	    cfg->rules[1].session_timeout == 4000,
	    "TCP to UDP: raw by default, session_timeout");
	conf_free(cfg);
}

/*
 * max_connections_per_client and connection_rate: top-level defaults
 * that TCP rules inherit and may set to 0; UDP listeners take none.
 */
static void
test_client_limits(void)
{
	struct conf	*cfg;
	char		 path[1024];
	uint64_t	 web_key;

	cfg = load_good("clientlimit.conf",
	    "rules = (\n"
	    "  { name = \"web\"; listen = \"127.0.0.1:18080\";\n"
	    "    connect = \"127.0.0.1:18090\"; },\n"
	    "  { listen = \"127.0.0.1:18081\"; connect = \"127.0.0.1:18090\";\n"
	    "    max_connections_per_client = 0; connection_rate = 7; },\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18095\";\n"
	    "    protocol = \"udp\"; },\n"
	    "  { listen = \"127.0.0.1:18082\"; connect = \"127.0.0.1:18095\";\n"
	    "    connect_protocol = \"udp\"; }\n"
	    ");\n"
	    "max_connections_per_client = 4;\n"
	    "connection_rate = 20;\n", path, sizeof(path),
	    "limits per client at the top level and in rules");
	if (cfg == NULL)
		return;
	check(cfg->rules[0].max_connections_per_client == 4 &&
	    cfg->rules[0].connection_rate == 20,
	    "a TCP rule inherits the limits per client");
	check(cfg->rules[1].max_connections_per_client == 0 &&
	    cfg->rules[1].connection_rate == 7, "... or sets its own, 0 too");
	check(cfg->rules[2].max_connections_per_client == 0 &&
	    cfg->rules[2].connection_rate == 0,
	    "a UDP listener takes no limit per client");
	check(cfg->rules[3].max_connections_per_client == 4 &&
	    cfg->rules[3].connection_rate == 20,
	    "a TCP-to-UDP rule inherits them");
	check(cfg->rules[0].client_key != 0 &&
	    cfg->rules[0].client_key != cfg->rules[1].client_key,
	    "each rule has its own key in the tables");
	web_key = cfg->rules[0].client_key;
	conf_free(cfg);

	cfg = load_good("clientlimit2.conf",
	    "rules = ( { name = \"web\"; listen = \"127.0.0.1:18083\";\n"
	    "    connect = \"127.0.0.1:18091\"; } );\n", path, sizeof(path),
	    "the same name elsewhere");
	if (cfg == NULL)
		return;
	check(cfg->rules[0].max_connections_per_client == 0 &&
	    cfg->rules[0].connection_rate == 0, "no limit per client by default");
	check(cfg->rules[0].client_key == web_key,
	    "a rule is known by its name: the same key at another address");
	conf_free(cfg);
}

/* UDP listeners count sessions per client: their own settings. */
static void
test_udp_client_limits(void)
{
	struct conf	*cfg;
	char		 path[1024];

	cfg = load_good("udpclient.conf",
	    "max_connections_per_client = 4;\n"
	    "max_sessions_per_client = 9;\n"
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18095\";\n"
	    "    protocol = \"udp\"; },\n"
	    "  { listen = \"127.0.0.1:18081\"; connect = \"127.0.0.1:18095\";\n"
	    "    protocol = \"udp\"; max_sessions_per_client = 0;\n"
	    "    session_rate = 3; }\n"
	    ");\n", path, sizeof(path), "limits per client of UDP listeners");
	if (cfg == NULL)
		return;
	check(cfg->rules[0].max_connections_per_client == 9 &&
	    cfg->rules[0].connection_rate == 0,
	    "a UDP listener takes max_sessions_per_client, not the TCP limit");
	check(cfg->rules[1].max_connections_per_client == 0 &&
	    cfg->rules[1].connection_rate == 3,
	    "... or sets its own, session_rate too");
	conf_free(cfg);
}

/* source: one address, or a pool of addresses and prefixes. */
static void
test_sources(void)
{
	struct conf		*cfg;
	const struct rule	*r;
	const struct sockaddr_in *a;
	char			 path[1024];

	cfg = load_good("sources.conf",
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\";\n"
	    "    connect = [ \"127.0.0.1:18090\", \"[::1]:18090\" ];\n"
	    "    source = [ \"127.0.0.8/30\", \"127.0.0.9\", \"::1\" ]; }\n"
	    ");\n", path, sizeof(path), "a source pool");
	if (cfg == NULL)
		return;
	r = &cfg->rules[0];
	check(streq(r->source, "127.0.0.8/30, 127.0.0.9, ::1"),
	    "the pool as written, joined");
	check(r->source_pool[0] != NULL && r->source_pool[0]->n == 4 &&
	    r->source_pool[1] != NULL && r->source_pool[1]->n == 1,
	    "a /30 is 4 addresses, a repeated one counts once");
	a = (const void *)&r->source_pool[0]->addr[3].ss;
	check(a->sin_family == AF_INET && a->sin_port == 0 &&
	    a->sin_addr.s_addr == htonl(0x7f00000b), "... 127.0.0.8 to .11");
	check(r->upstream.nbackends == 2 &&
	    r->upstream.backends[0].pool != r->upstream.backends[1].pool &&
	    r->upstream.backends[0].has_source &&
	    r->upstream.backends[1].has_source,
	    "each backend takes the pool of its family");
	conf_free(cfg);
}

/* Unix-domain addresses and the settings of a Unix listener. */
static const struct bad_case unix_bad_cases[] = {
	{ "two rules on one socket", "rules = (\n"
	    "  { listen = \"unix:/run/a.sock\"; connect = \"127.0.0.1:80\"; },\n"
	    "  { listen = \"unix:/run/a.sock\"; connect = \"127.0.0.1:81\"; } );\n",
	    3, "is already used by the rule at line 2" },
	{ "a rule forwarding to its own socket", "rules = (\n"
	    "  { listen = \"unix:@loop\"; connect = \"unix:@loop\"; } );\n", 2,
	    "forwards to itself" },
	{ "a path too long", "rules = ( { listen = \"unix:/"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"; connect = \"127.0.0.1:80\";"
	    " } );\n", 1, "1 to 106 bytes" },
	{ "mode on a TCP listener", "rules = ( { listen = \"127.0.0.1:80-81\";"
	    " connect = \"unix:/run/a.sock\"; mode = \"0600\"; } );\n", 1,
	    "is for a listen address" },
	{ "source with a Unix backend", "rules = ( { listen = \"127.0.0.1:80\";"
	    " connect = \"unix:/run/a.sock\"; source = \"127.0.0.1\"; } );\n", 1,
	    "cannot apply to" },
	{ "send_proxy v1 for Unix clients", "rules = ( { listen = "
	    "\"unix:/run/a.sock\"; connect = \"127.0.0.1:80\"; send_proxy = "
	    "\"v1\"; } );\n", 1, "use \"v2\"" },
	{ "an unknown owner", "rules = ( { listen = \"unix:/run/a.sock\"; "
	    "connect = \"127.0.0.1:80\"; owner = \"no-such-user-here\"; } );\n", 1,
	    "unknown user" },
	{ "defer_accept on a Unix listener", "rules = ( { listen = "
	    "\"unix:/run/a.sock\"; connect = \"127.0.0.1:80\"; defer_accept = "
	    "3; } );\n", 1, "is a TCP socket's option" },
	{ "tcp_fastopen_connect to a Unix backend", "rules = ( { listen = "
	    "\"127.0.0.1:80\"; connect = \"unix:/run/a.sock\"; "
	    "tcp_fastopen_connect = true; } );\n", 1, "is a TCP connect's "
	    "option" },
	{ "send_proxy v1 in a route of a Unix listener", "rules = ( { listen ="
	    " \"unix:/run/a.sock\";\n routes = ( { name = \"a\"; send_proxy ="
	    " \"v1\"; connect = \"127.0.0.1:80\"; } ); } );\n", 2,
	    "\"send_proxy\" = \"v1\" cannot describe a Unix client" },
	{ "balance hash in a route of a Unix listener", "rules = ( { listen ="
	    " \"unix:/run/a.sock\"; routes = (\n { name = \"a\"; balance = "
	    "\"hash\";\n connect = ( \"127.0.0.1:80\", \"127.0.0.2:80\" ); } );"
	    " } );\n", 2, "\"balance\" = \"hash\" picks by the client's address" },
	{ "an empty allow_gid", "rules = ( { listen = \"unix:/run/a.sock\"; "
	    "connect = \"127.0.0.1:80\"; allow_gid = [ ]; } );\n", 1,
	    "must list 1 to" },
};

static void
test_unix(void)
{
	struct conf		*cfg;
	const struct rule	*r;
	char			 path[1024], text[ADDR_STRLEN];

	cfg = load_good("unix.conf", "rules = (\n"
	    "  { listen = \"unix:/run/ferryd-t/a.sock\"; connect = ( "
	    "\"127.0.0.1:80\", \"unix:@b\" );\n"
	    "    mode = \"0640\"; owner = \"root\"; group = 0;\n"
	    "    allow_uid = ( 0, \"root\", 1000 ); allow_gid = 100; },\n"
	    "  { listen = \"unix:@front\"; connect = \"unix:/run/ferryd-t/c\"; }"
	    " );\n", path, sizeof(path), "Unix listeners and backends");
	if (cfg == NULL)
		return;
	r = cfg->rules;
	check(r[0].listen_addr.ss.ss_family == AF_UNIX &&
	    streq(addr_unix_path(&r[0].listen_addr), "/run/ferryd-t/a.sock") &&
	    r[0].unix_sock.mode == 0640 && r[0].unix_sock.owner == 0 &&
	    r[0].unix_sock.group == 0, "a socket file with mode, owner, group");
	check(r[0].unix_sock.nallow_uid == 3 && r[0].unix_sock.allow_uid[2] ==
	    1000 && r[0].unix_sock.nallow_gid == 1 &&
	    r[0].unix_sock.allow_gid[0] == 100, "allow_uid and allow_gid");
	check(streq(addr_format((const void *)&r[0].upstream.backends[1].addr.ss,
	    text, sizeof(text)), "unix:@b") && addr_unix_path(
	    &r[0].upstream.backends[1].addr) == NULL,
	    "an abstract backend: %s, no file", text);
	check(r[1].unix_sock.mode == 0666 && r[1].unix_sock.owner == -1 &&
	    r[1].unix_sock.nallow_uid == 0 && streq(r[1].name, "unix:@front"),
	    "defaults: mode 0666, no owner, everyone; named by its listen");
	check(conf_has_unix_backends(cfg), "the sandbox hears of Unix backends");
	conf_free(cfg);
	/* The top level's allow does not judge a Unix listener's clients. */
	cfg = load_good("unix-proxy.conf", "allow = \"127.0.0.1\";\n"
	    "rules = ( { listen = \"unix:@in\"; connect = \"127.0.0.1:80\";\n"
	    "    accept_proxy = true; } );\n", path, sizeof(path),
	    "a Unix listener with accept_proxy beside a top-level allow");
	conf_free(cfg);
	check_bad_cases(unix_bad_cases, sizeof(unix_bad_cases) /
	    sizeof(unix_bad_cases[0]), "bad-unix.conf", conf_load);
}

/* A port range is a rule per port, sharing what does not change. */
static void
test_port_ranges(void)
{
	struct conf		*cfg;
	const struct rule	*r;
	char			 path[1024];

	cfg = load_good("ranges.conf", "rules = (\n"
	    "  { listen = \"127.0.0.1:20000-20999\"; connect = ( "
	    "\"127.0.0.1:30000-30999\", \"127.0.0.2:80\" ); },\n"
	    "  { listen = \"127.0.0.1:21000\"; connect = \"127.0.0.1:80\"; } );\n",
	    path, sizeof(path), "a range of 1,000 ports and a single one");
	if (cfg == NULL)
		return;
	check(cfg->nrules == 1001, "1,001 rules (%zu)", cfg->nrules);
	r = &cfg->rules[999];
	check(strcmp(r->listen, "127.0.0.1:20999") == 0 &&
	    addr_port((const void *)&r->listen_addr.ss) == 20999 &&
	    r->range_first == &cfg->rules[0] && r->line == 2,
	    "the last port's rule: %s, of the first's line", r->listen);
	check(addr_port((const void *)&r->upstream.backends[0].addr.ss) ==
	    30999 && addr_port((const void *)&r->upstream.backends[1].addr.ss) ==
	    80, "port i goes to port i of a connect range, a single port stays");
	check(cfg->nbackends == 2001 && r->upstream.backends[1].id == 1999,
	    "each port's backends are backends of their own");
	check(cfg->rules[1000].range_first == NULL &&
	    cfg->rules[1000].line == 3, "the next rule is itself");
	check(strcmp(r->name, "127.0.0.1:20000-20999") == 0 && !r->name_given &&
	    strcmp(rule_log_name(r), "127.0.0.1:20999") == 0,
	    "a range is named by its listen as written; its ports log as "
	    "themselves");
	check(cfg->nrule_stats == 2 && r->stat == 0 && cfg->rules[1000].stat == 1,
	    "a range counts as one rule");
	check(cfg->nbackend_stats == 3 && r->upstream.backends[1].stat == 1 &&
	    cfg->rules[1000].upstream.backends[0].stat == 2,
	    "... and its ports' backends as the range's");
	conf_free(cfg);
}

static void
test_names(void)
{
	struct conf	*cfg;
	char		 path[1024];

	cfg = load_good("names.conf", "rules = (\n"
	    "  { name = \"web-1\"; listen = \"127.0.0.1:20000\"; "
	    "connect = \"127.0.0.1:80\"; },\n"
	    "  { listen = \"127.0.0.1:20001\"; connect = \"127.0.0.1:80\"; },\n"
	    "  { listen = \"127.0.0.1:20001\"; connect = \"127.0.0.1:80\"; "
	    "protocol = \"udp\"; } );\n",
	    path, sizeof(path), "rule names");
	if (cfg == NULL)
		return;
	check(strcmp(cfg->rules[0].name, "web-1") == 0 &&
	    cfg->rules[0].name_given &&
	    strcmp(rule_log_name(&cfg->rules[0]), "web-1") == 0,
	    "a name as written, in log lines too");
	check(strcmp(cfg->rules[1].name, "127.0.0.1:20001") == 0 &&
	    strcmp(cfg->rules[2].name, "127.0.0.1:20001/udp") == 0,
	    "no name: the listen address, /udp for UDP (%s, %s)",
	    cfg->rules[1].name, cfg->rules[2].name);
	conf_free(cfg);
}

static void
test_bad_cases(void)
{
	check_bad_cases(bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]),
	    "bad.conf", conf_load);
}

static void
test_missing_file(void)
{
	char		 path[PATH_MAX], want[PATH_MAX + 32];
	char		 err[CONF_ERR_MAX];
	struct conf	*cfg;

	snprintf(path, sizeof(path), "%s/does-not-exist.conf", tmpdir);
	snprintf(want, sizeof(want), "cannot open %s: ", path);
	cfg = conf_load(path, err, sizeof(err));
	check(cfg == NULL && strncmp(err, want, strlen(want)) == 0 &&
	    strstr(err, "No such file") != NULL, "missing file is refused");
	printf("#   got \"%s\"\n", err);
	conf_free(cfg);

	snprintf(want, sizeof(want), "cannot read %s: ", tmpdir);
	cfg = conf_load(tmpdir, err, sizeof(err));
	check(cfg == NULL && strncmp(err, want, strlen(want)) == 0 &&
	    strstr(err, "directory") != NULL, "directory is refused");
	printf("#   got \"%s\"\n", err);
	conf_free(cfg);
}

/* Errors in an @include'd file name that file, found next to the main one. */
static void
test_include(void)
{
	char		 path[PATH_MAX], inc[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	write_conf("inc-good.conf", "backlog = 7;\n", inc, sizeof(inc));
	cfg = load_good("main-good.conf", "@include \"inc-good.conf\"\n" RULES,
	    path, sizeof(path), "include");
	check(cfg != NULL && cfg->backlog == 7,
	    "include: relative @include is found next to the main file");
	conf_free(cfg);

	write_conf("inc-bad.conf", "workers = 1;\nbacklog = 0;\n", inc,
	    sizeof(inc));
	cfg = load_text("main-bad.conf", RULES "@include \"inc-bad.conf\"\n",
	    path, sizeof(path), err, sizeof(err));
	check_error("error in an included file", cfg, inc, 2, err,
	    "\"backlog\" must be between");

	write_conf("inc-syntax.conf", "\n\nworkers = ;\n", inc, sizeof(inc));
	cfg = load_text("main-syntax.conf", "@include \"inc-syntax.conf\"\n"
	    RULES, path, sizeof(path), err, sizeof(err));
	check_error("syntax error in an included file", cfg, inc, 3, err,
	    "syntax error");
}

/* Load main.conf's text; check that it is refused at path:line. */
static void
include_refused(const char *desc, const char *text, int line,
    const char *keyword)
{
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	cfg = load_text("inc-main.conf", text, path, sizeof(path), err,
	    sizeof(err));
	check_error(desc, cfg, path, line, err, keyword);
}

/*
 * @include is expanded by the loader, not by libconfig, which calls
 * exit(2) on a directory or "" and reads FIFOs and devices forever.
 */
static void
test_include_safety(void)
{
	char		 path[PATH_MAX], dir[PATH_MAX], a[PATH_MAX];
	char		 b[PATH_MAX], fifo[PATH_MAX], err[CONF_ERR_MAX];
	char		 name[32], text[64];
	struct conf	*cfg;
	int		 i;

	snprintf(dir, sizeof(dir), "%s/conf.d", tmpdir);
	if (mkdir(dir, 0700) == -1)
		perror(dir);
	write_conf("conf.d/20-b.conf", "\nbacklog = 20;\n", a, sizeof(a));
	write_conf("conf.d/10-a.conf", "max_connections = 10;\n", b,
	    sizeof(b));
	write_conf("conf.d/ignored.txt", "backlog = ;\n", path, sizeof(path));
	cfg = load_good("inc-dir.conf", "# c\n@include \"conf.d\"\n" RULES,
	    path, sizeof(path), "include a directory");
	check(cfg != NULL && cfg->backlog == 20 && cfg->max_connections == 10,
	    "@include of a directory reads its *.conf files");
	conf_free(cfg);
	write_conf("conf.d/20-b.conf", "\nbacklog = 0;\n", a, sizeof(a));
	cfg = load_text("inc-dir.conf", "@include \"conf.d\"\n" RULES, path,
	    sizeof(path), err, sizeof(err));
	check_error("error in a file of an included directory", cfg, a, 2,
	    err, "\"backlog\" must be between");
	write_conf("conf.d/20-b.conf", "\n\n\nbacklog = ;\n", a, sizeof(a));
	cfg = load_text("inc-dir.conf", "@include \"conf.d\"\n" RULES, path,
	    sizeof(path), err, sizeof(err));
	check_error("syntax error in a file of an included directory", cfg,
	    a, 4, err, "syntax error");
	unlink(a);
	unlink(b);
	unlink(path);
	snprintf(path, sizeof(path), "%s/conf.d/ignored.txt", tmpdir);
	unlink(path);
	if (rmdir(dir) == -1)
		perror(dir);

	include_refused("@include \"\"", RULES "\n@include \"\"\n", 3,
	    "@include \"\": empty file name");
	include_refused("@include of a missing file",
	    RULES "@include \"nothere.conf\"\n", 2, "cannot open");
	include_refused("@include of /dev/zero", "@include \"/dev/zero\"\n"
	    RULES, 1, "/dev/zero: not a regular file");
	snprintf(fifo, sizeof(fifo), "%s/fifo.conf", tmpdir);
	if (mkfifo(fifo, 0600) == -1)
		perror(fifo);
	include_refused("@include of a FIFO", "\n@include \"fifo.conf\"\n"
	    RULES, 2, "fifo.conf: not a regular file");
	cfg = conf_load(fifo, err, sizeof(err));
	check_error("a FIFO as the config file", cfg, fifo, 0, err,
	    "not a regular file");
	cfg = conf_load("/dev/zero", err, sizeof(err));
	check_error("/dev/zero as the config file", cfg, "/dev/zero", 0, err,
	    "not a regular file");
	unlink(fifo);
	include_refused("@include of itself",
	    RULES "@include \"inc-main.conf\"\n", 2, "includes itself");
	include_refused("@include without quotes", RULES "@include x.conf\n",
	    2, "must be followed by a file name");
	/* An @include in a comment or a string is not one. */
	cfg = load_good("inc-comment.conf", "/* a comment\n@include \"x\"\n*/\n"
	    "# @include \"x\"\n// @include \"x\"\npidfile = \"/a\n"
	    "@include \\\"x\\\"\n\";\n" RULES, path, sizeof(path),
	    "include in a comment");
	check(cfg != NULL && cfg->backlog == DEFAULT_BACKLOG,
	    "@include inside a comment is left alone");
	conf_free(cfg);

	/* deep-0.conf includes deep-1.conf ... deep-11.conf. */
	for (i = 0; i <= 11; i++) {
		snprintf(name, sizeof(name), "deep-%d.conf", i);
		snprintf(text, sizeof(text), "@include \"deep-%d.conf\"\n",
		    i + 1);
		write_conf(name, i < 11 ? text : "backlog = 3;\n", a,
		    sizeof(a));
	}
	snprintf(a, sizeof(a), "%s/deep-9.conf", tmpdir);
	cfg = load_text("inc-deep.conf", "@include \"deep-0.conf\"\n" RULES,
	    path, sizeof(path), err, sizeof(err));
	check_error("@include nested too deep", cfg, a, 1, err,
	    "nested deeper than 10");
	cfg = load_good("inc-deep.conf", "@include \"deep-2.conf\"\n" RULES,
	    path, sizeof(path), "include nested 10 deep");
	check(cfg != NULL && cfg->backlog == 3, "@include nested 10 deep");
	conf_free(cfg);
}

/* A NUL byte would end libconfig's string: the rest would be unread. */
static void
test_nul_byte(void)
{
	static const char text[] = RULES "backlog = 5;\n\0backlog = ;\n";
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	write_bytes("nul.conf", text, sizeof(text) - 1, path, sizeof(path));
	cfg = conf_load(path, err, sizeof(err));
	check_error("NUL byte in the file", cfg, path, 3, err, "NUL byte");
}

/* A chain of rules that ends outside is no loop. */
static void
test_chain(void)
{
	char		 path[PATH_MAX];
	struct conf	*cfg;

	cfg = load_good("chain.conf", "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18081\"; },\n"
	    "  { listen = \"0.0.0.0:18081\"; connect = \"127.0.0.1:18082\"; },\n"
	    "  { listen = \"[::]:18082\"; connect = \"127.0.0.1:18083\"; },\n"
	    "  { listen = \"[::1]:18083\"; connect = \"127.0.0.1:18080\"; }\n"
	    ");\n", path, sizeof(path), "chain");
	check(cfg != NULL && cfg->nrules == 4,
	    "a chain of rules ending outside is accepted");
	conf_free(cfg);
}

/* A sparse file of 16 MiB + 1 is refused before anything is read. */
static void
test_huge_file(void)
{
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;
	int		 fd;

	snprintf(path, sizeof(path), "%s/huge.conf", tmpdir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1 ||
	    ftruncate(fd, 16 * 1024 * 1024 + 1) == -1 || close(fd) == -1)
		perror(path);
	cfg = conf_load(path, err, sizeof(err));
	check_error("file larger than 16 MiB", cfg, path, 0, err,
	    "larger than 16777216 bytes");
}

/* The current user and its primary group; -1 if either has no name. */
static int
ident_get(struct ident *id)
{
	struct passwd	*pw;
	struct group	*gr;

	if ((pw = getpwuid(getuid())) == NULL)
		return -1;
	snprintf(id->user, sizeof(id->user), "%s", pw->pw_name);
	id->uid = pw->pw_uid;
	id->gid = pw->pw_gid;
	if ((gr = getgrgid(id->gid)) == NULL)
		return -1;
	snprintf(id->group, sizeof(id->group), "%s", gr->gr_name);
	return 0;
}

static void
check_rule_addr(const struct rule *r, int family, int lport, int cport,
    const char *desc)
{
	check(r->listen_addr.ss.ss_family == family &&
	    r->upstream.backends[0].addr.ss.ss_family == family &&
	    r->listen_addr.len > 0 && r->upstream.backends[0].addr.len > 0,
	    "%s: address family", desc);
	check(port_of(&r->listen_addr) == lport, "%s: listen port", desc);
	check(port_of(&r->upstream.backends[0].addr) == cport, "%s: connect port", desc);
}

static void
check_full(const struct conf *cfg, const char *path, const struct ident *id)
{
	const struct rule	*r0 = &cfg->rules[0], *r1 = &cfg->rules[1];

	check(streq(cfg->path, path), "full: path");
	check(cfg->workers == 3, "full: workers = 3");
	check(streq(cfg->user, id->user) && cfg->uid == id->uid,
	    "full: user and uid");
	check(streq(cfg->group, id->group) && cfg->gid == id->gid,
	    "full: group and gid");
	check(streq(cfg->pidfile, "/run/ferryd-test.pid"), "full: pidfile");
	check(streq(cfg->log_file, "/var/log/ferryd-test.log"),
	    "full: log_file");
	check(cfg->log_level == LOG_LEVEL_DEBUG, "full: log_level");
	check(streq(cfg->event_backend, "poll"), "full: event_backend");
	check(cfg->buffer_size == 16384, "full: buffer_size");
	check(cfg->connect_timeout == 2000, "full: connect_timeout in ms");
	check(cfg->idle_timeout == 120250, "full: float idle_timeout in ms");
	check(cfg->shutdown_timeout == 5000, "full: shutdown_timeout in ms");
	check(cfg->backlog == 128, "full: backlog");
	check(cfg->max_connections == 1000, "full: max_connections");
	check(cfg->nrules == 2, "full: two rules");

	check(streq(r0->listen, "127.0.0.1:18080") &&
	    streq(r0->connect, "127.0.0.1:18081"), "full: rule 1 strings");
	check_rule_addr(r0, AF_INET, 18080, 18081, "full: rule 1");
	check(r0->line == 12, "full: rule 1 line");
	check(r0->buffer_size == 16384 && r0->connect_timeout == 2000 &&
	    r0->idle_timeout == 120250,
	    "full: rule 1 inherits globals set after the rules");

	check(streq(r1->listen, "[::1]:18082") &&
	    streq(r1->connect, "[::1]:18083"), "full: rule 2 strings");
	check_rule_addr(r1, AF_INET6, 18082, 18083, "full: rule 2");
	check(r1->line == 13, "full: rule 2 line");
	check(r1->buffer_size == 4096, "full: rule 2 buffer_size override");
	check(r1->connect_timeout == 500, "full: rule 2 connect_timeout 0.5");
	check(r1->idle_timeout == 30000, "full: rule 2 idle_timeout override");
}

/* Every setting, globals written after the rules that inherit them. */
static void
test_full(void)
{
	char		 text[2048], path[PATH_MAX];
	struct conf	*cfg;
	struct ident	 id;

	if (ident_get(&id) == -1) {
		check(0, "full: cannot find the current user and group");
		return;
	}
	snprintf(text, sizeof(text),
	    "# every setting\n"					/* 1 */
	    "workers = 3;\n"
	    "user = \"%s\";\n"
	    "group = \"%s\";\n"
	    "pidfile = \"/run/ferryd-test.pid\";\n"		/* 5 */
	    "log_file = \"/var/log/ferryd-test.log\";\n"
	    "log_level = \"debug\";\n"
	    "event_backend = \"poll\";\n"
	    "backlog = 128;\n"
	    "max_connections = 1000;\n"				/* 10 */
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18081\"; },\n"
	    "  {\n"
	    "    listen = \"[::1]:18082\";\n"
	    "    connect = \"[::1]:18083\";\n"			/* 15 */
	    "    buffer_size = 4096;\n"
	    "    connect_timeout = 0.5;\n"
	    "    idle_timeout = 30;\n"
	    "  }\n"
	    ");\n"						/* 20 */
	    "buffer_size = 16384;\n"
	    "connect_timeout = 2;\n"
	    "idle_timeout = 120.25;\n"
	    "shutdown_timeout = 5;\n",
	    id.user, id.group);
	if ((cfg = load_good("full.conf", text, path, sizeof(path),
	    "full")) == NULL)
		return;
	check_full(cfg, path, &id);
	conf_free(cfg);
}

static void
check_defaults(const struct conf *cfg)
{
	const struct rule	*r = &cfg->rules[0];

	check(cfg->workers >= 1 && cfg->workers <= MAX_WORKERS,
	    "defaults: workers \"auto\" is 1..MAX_WORKERS (%d)", cfg->workers);
	check(cfg->user == NULL && cfg->group == NULL && cfg->pidfile == NULL &&
	    cfg->log_file == NULL,
	    "defaults: no user, group, pidfile, log_file");
	check(cfg->log_level == LOG_LEVEL_INFO, "defaults: log_level info");
	check(streq(cfg->event_backend, "auto"),
	    "defaults: event_backend auto");
	check(cfg->buffer_size == DEFAULT_BUFFER_SIZE &&
	    cfg->connect_timeout == DEFAULT_CONNECT_TIMEOUT &&
	    cfg->idle_timeout == DEFAULT_IDLE_TIMEOUT &&
	    cfg->shutdown_timeout == DEFAULT_SHUTDOWN_TIMEOUT,
	    "defaults: buffer_size and timeouts");
	check(cfg->backlog == DEFAULT_BACKLOG &&
	    cfg->max_connections == DEFAULT_MAX_CONNECTIONS,
	    "defaults: backlog and max_connections");
	check(cfg->nrules == 1 && r->line == 3, "defaults: one rule at line 3");
	check(r->buffer_size == DEFAULT_BUFFER_SIZE &&
	    r->connect_timeout == DEFAULT_CONNECT_TIMEOUT &&
	    r->idle_timeout == DEFAULT_IDLE_TIMEOUT,
	    "defaults: rule inherits the defaults");
	check(cfg->idle_timeout == 3600000 && r->idle_timeout == 3600000,
	    "defaults: idle_timeout is an hour");
	check(cfg->access_log == NULL &&
	    cfg->access_log_format == ACCESS_LOG_RINETD,
	    "defaults: no access_log, format rinetd");
	check(acl_is_empty(&cfg->acl) && acl_is_empty(&r->acl),
	    "defaults: no allow or deny patterns");
	check(r->source == NULL && !r->upstream.backends[0].has_source && r->ipv6_only,
	    "defaults: no source, ipv6_only true");
	check(cfg->syntax == CONF_SYNTAX_LIBCONFIG,
	    "defaults: read as libconfig");
}

static void
test_defaults(void)
{
	char		 path[PATH_MAX];
	struct conf	*cfg;

	if ((cfg = load_good("defaults.conf", "workers = \"auto\";\n\n" RULES,
	    path, sizeof(path), "defaults")) == NULL)
		return;
	check_defaults(cfg);
	conf_free(cfg);
}

/* Corners: "" pidfile, 64-bit integers, rounding, "*", group alone. */
static void
test_corners(void)
{
	char		 text[1024], path[PATH_MAX];
	struct conf	*cfg;
	struct ident	 id;
	const struct sockaddr_in *sin;

	if (ident_get(&id) == -1) {
		check(0, "corners: cannot find the current group");
		return;
	}
	snprintf(text, sizeof(text),
	    "pidfile = \"\";\nuser = \"%s\";\ngroup = \"%s\";\n"
	    "backlog = 100L;\n"
	    "log_file = \"/var/log/4294967297-x.log\"; # 4294967297\n"
	    "connect_timeout = 0.0006;\nidle_timeout = 2.5004;\n"
	    "rules = ( { listen = \"*:18080\"; connect = \"127.0.0.1:18081\"; "
	    "buffer_size = 1024; } );\n", id.user, id.group);
	if ((cfg = load_good("corners.conf", text, path, sizeof(path),
	    "corners")) == NULL)
		return;
	sin = (const struct sockaddr_in *)&cfg->rules[0].listen_addr.ss;
	check(streq(cfg->pidfile, ""), "corners: pidfile \"\" kept as \"\"");
	check(streq(cfg->user, id.user) && streq(cfg->group, id.group) &&
	    cfg->gid == id.gid, "corners: group with user sets gid");
	check(cfg->backlog == 100, "corners: 64-bit integer accepted");
	check(streq(cfg->log_file, "/var/log/4294967297-x.log"),
	    "corners: a big number in a string is left alone");
	check(cfg->connect_timeout == 1, "corners: 0.0006 s rounds up to 1 ms");
	check(cfg->idle_timeout == 2500, "corners: 2.5004 s rounds to 2500 ms");
	check(cfg->rules[0].buffer_size == 1024,
	    "corners: minimum buffer_size");
	check(sin->sin_family == AF_INET &&
	    sin->sin_addr.s_addr == htonl(INADDR_ANY),
	    "corners: \"*\" is 0.0.0.0");
	conf_free(cfg);
}

/* user alone: the gid is the user's primary group. */
static void
test_user_only(void)
{
	char		 text[512], path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;
	struct ident	 id;

	if (ident_get(&id) == -1) {
		check(0, "user only: cannot find the current user");
		return;
	}
	snprintf(text, sizeof(text), "user = \"%s\";\n" RULES, id.user);
	cfg = load_good("user.conf", text, path, sizeof(path), "user only");
	check(cfg != NULL && cfg->uid == id.uid && cfg->gid == id.gid &&
	    cfg->group == NULL, "user only: uid and primary gid");
	conf_free(cfg);

	/* Workers would stay root: group is only meant with user. */
	snprintf(text, sizeof(text), "# x\n" RULES "\ngroup = \"%s\";\n",
	    id.group);
	cfg = load_text("group.conf", text, path, sizeof(path), err,
	    sizeof(err));
	check_error("group without user", cfg, path, 4, err,
	    "\"group\" is set without \"user\"");
}

/* A client address for acl_permits(). */
static struct sockaddr_any
client(const char *host)
{
	struct sockaddr_any	a;
	char			err[CONF_ERR_MAX];

	if (addr_resolve_host(host, AF_UNSPEC, &a, err, sizeof(err)) == -1) {
		printf("# %s\n", err);
		memset(&a, 0, sizeof(a));
	}
	return a;
}

static int
permits(const struct conf *cfg, size_t rule, const char *host)
{
	struct sockaddr_any	a = client(host);

	return acl_permits(&cfg->acl, &cfg->rules[rule].acl,
	    (const struct sockaddr *)&a.ss);
}

static void
check_access(const struct conf *cfg)
{
	const struct rule		*r0 = &cfg->rules[0], *r1 = &cfg->rules[1];
	const struct rule		*r2 = &cfg->rules[2];
	const struct sockaddr_in	*src4 = (const void *)&r0->upstream.backends[0].source.ss;

	check(cfg->acl.nallow == 2 && cfg->acl.ndeny == 1,
	    "access: global allow array and deny string");
	check(streq(cfg->access_log, "/var/log/ferryd-access.log") &&
	    cfg->access_log_format == ACCESS_LOG_COMMON,
	    "access: access_log and access_log_format");
	check(r0->acl.nallow == 1 && r0->acl.ndeny == 2,
	    "access: rule allow list and deny array");
	check(r0->upstream.backends[0].has_source && streq(r0->source, "127.0.0.3") &&
	    src4->sin_family == AF_INET && src4->sin_port == 0 &&
	    src4->sin_addr.s_addr == htonl(0x7f000003),
	    "access: IPv4 source resolved, port 0");
	check(r1->upstream.backends[0].has_source && r1->upstream.backends[0].source.ss.ss_family == AF_INET6 &&
	    !r1->ipv6_only, "access: IPv6 source in brackets, ipv6_only false");
	check(!r2->upstream.backends[0].has_source && r2->ipv6_only && acl_is_empty(&r2->acl),
	    "access: rule without source or patterns");
	check(permits(cfg, 0, "127.0.0.1") && !permits(cfg, 0, "127.0.0.2") &&
	    !permits(cfg, 0, "127.0.0.99") && !permits(cfg, 0, "10.0.0.1"),
	    "access: global and rule patterns apply to rule 1");
	check(permits(cfg, 1, "::1") && permits(cfg, 1, "::ffff:127.0.0.2") &&
	    !permits(cfg, 1, "::2"), "access: IPv6 and mapped clients");
	check(permits(cfg, 2, "127.1.2.3") && !permits(cfg, 2, "192.0.2.1"),
	    "access: rule 3 has the global patterns only");
}

/* allow, deny, access_log, access_log_format, source, ipv6_only. */
static void
test_access(void)
{
	char		 path[PATH_MAX];
	struct conf	*cfg;

	cfg = load_good("access.conf",
	    "allow = [ \"127.0.0.0/8\", \"::1\" ];\n"
	    "deny = \"127.0.0.99\";\n"
	    "access_log = \"/var/log/ferryd-access.log\";\n"
	    "access_log_format = \"common\";\n"
	    "rules = (\n"
	    "  { listen = \"127.0.0.1:18080\"; connect = \"127.0.0.1:18081\";\n"
	    "    source = \"127.0.0.3\"; allow = ( \"127.0.0.*\" );\n"
	    "    deny = [ \"127.0.0.2\", \"10.0.0.0/8\" ]; },\n"
	    "  { listen = \"[::]:18082\"; connect = \"[::1]:18083\";\n"
	    "    ipv6_only = false; source = \"[::1]\"; },\n"
	    "  { listen = \"0.0.0.0:18084\"; connect = \"127.0.0.1:18085\"; }\n"
	    ");\n", path, sizeof(path), "access");
	if (cfg == NULL)
		return;
	check_access(cfg);
	conf_free(cfg);
}

/* access_log = "syslog", syslog_ident and syslog_facility; defaults. */
static void
test_syslog(void)
{
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	cfg = load_text("syslog.conf", RULES "access_log = \"syslog\";\n"
	    "access_log_format = \"sslh\";\nsyslog_ident = \"sslh\";\n"
	    "syslog_facility = \"local3\";\n", path, sizeof(path), err,
	    sizeof(err));
	check(cfg != NULL && streq(cfg->access_log, ACCESSLOG_SYSLOG) &&
	    cfg->access_log_format == ACCESS_LOG_SSLH &&
	    streq(cfg->syslog_ident, "sslh") &&
	    streq(log_facility_names[cfg->syslog_facility], "local3"),
	    "access_log \"syslog\", format sslh, syslog as sslh, local3%s%s",
	    cfg == NULL ? ": " : "", cfg == NULL ? err : "");
	if (cfg != NULL)
		conf_free(cfg);
	cfg = load_text("syslog-default.conf", RULES, path, sizeof(path), err,
	    sizeof(err));
	check(cfg != NULL && streq(cfg->syslog_ident, "ferryd") &&
	    streq(log_facility_names[cfg->syslog_facility], "daemon"),
	    "by default syslog's lines are ferryd's, daemon");
	if (cfg != NULL)
		conf_free(cfg);
}

/* "epoll" is accepted exactly where configure found epoll. */
static void
test_epoll(void)
{
	char		 path[PATH_MAX], err[CONF_ERR_MAX];
	struct conf	*cfg;

	cfg = load_text("epoll.conf", RULES "event_backend = \"epoll\";\n",
	    path, sizeof(path), err, sizeof(err));
#ifdef HAVE_EPOLL
	check(cfg != NULL && streq(cfg->event_backend, "epoll"),
	    "event_backend \"epoll\" accepted (HAVE_EPOLL)");
	conf_free(cfg);
#else
	check_error("event_backend \"epoll\" without HAVE_EPOLL", cfg, path, 2,
	    err, "\"epoll\" is not supported on this system");
#endif
}

static void
test_log_level_parse(void)
{
	check(conf_log_level_parse("err") == LOG_LEVEL_ERR &&
	    conf_log_level_parse("warning") == LOG_LEVEL_WARNING &&
	    conf_log_level_parse("notice") == LOG_LEVEL_NOTICE &&
	    conf_log_level_parse("info") == LOG_LEVEL_INFO &&
	    conf_log_level_parse("debug") == LOG_LEVEL_DEBUG,
	    "conf_log_level_parse knows every level");
	check(conf_log_level_parse("verbose") == -1 &&
	    conf_log_level_parse("") == -1 &&
	    conf_log_level_parse("INFO") == -1,
	    "conf_log_level_parse refuses other names");
}

/*
 * ferryd -T writes every key of every table: a key whose parser is its
 * own needs a writer (struct conf_key's show) in its table entry.
 */
static void
test_key_writers(void)
{
	const struct conf_keys	*tables[] = { &conf_global_keys,
	    &conf_rule_keys, &conf_item_keys, &conf_check_keys,
	    &conf_keepalive_keys };
	size_t			 i, j;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		for (j = 0; j < tables[i]->n; j++)
			check(conf_key_shower(&tables[i]->v[j]) != NULL,
			    "-T can write \"%s\" %s", tables[i]->v[j].name,
			    tables[i]->where);
}

/*
 * conf_syntax.c reads only what libconfig refused, but a valid text it
 * took for wrong would send the reader to a line that is right: every
 * form libconfig takes, and the shipped samples, read as fine.
 */
static void
test_syntax_valid(void)
{
	static const char *const samples[] = { "etc/ferryd.conf",
	    "etc/routes-443.conf.example", "etc/routes-sni.conf.example" };
	const char		*srcdir = getenv("top_srcdir");
	struct conf_text	 t;
	char			 path[PATH_MAX], err[CONF_ERR_MAX], why[512];
	unsigned int		 line;
	size_t			 i;

	write_conf("syntax-forms.conf",
	    "# a comment\n// another\n/* and a\n block */\n"
	    "a = 1; b : -2, c = +3L; d = 0x1F; e = 1.5; f = .5; g = 1e3;\n"
	    "h = 2.5e-3; i = TRUE; j = false; k = \"x\" \"y\";\n"
	    "l = \"multi\nline \\\" quote\"; m = [ ]; n = ( ); o = { };\n"
	    "p = [ 1, 2 ]; q = ( { r = 1; }, ( 2 ), [ \"s\" ] );\n"
	    "t-u* = 1\nv = 2\n/* unclosed, as libconfig allows",
	    path, sizeof(path));
	check(conf_text_read(path, &t, err, sizeof(err)) == 0 &&
	    !conf_syntax_explain(&t, &line, why, sizeof(why)),
	    "syntax: every form libconfig takes reads as fine (%s)", why);
	conf_text_free(&t);
	for (i = 0; srcdir != NULL && i < sizeof(samples) / sizeof(*samples);
	    i++) {
		snprintf(path, sizeof(path), "%s/%s", srcdir, samples[i]);
		why[0] = '\0';
		check(conf_text_read(path, &t, err, sizeof(err)) == 0 &&
		    !conf_syntax_explain(&t, &line, why, sizeof(why)),
		    "syntax: %s reads as fine (%s)", samples[i], why);
		conf_text_free(&t);
	}
}

int
main(void)
{
	make_tmpdir("test_config");
	test_key_writers();
	test_full();
	test_defaults();
	test_corners();
	test_syntax_valid();
	test_user_only();
	test_epoll();
	test_log_level_parse();
	test_access();
	test_syslog();
	test_include();
	test_include_safety();
	test_nul_byte();
	test_huge_file();
	test_chain();
	test_missing_file();
	test_bad_cases();
	test_port_ranges();
	test_names();
	test_udp();
	test_client_limits();
	test_udp_client_limits();
	test_sources();
	test_unix();
	remove_tmpdir();
	return test_summary();
}
