# bench/manyrules.sh - sourced by the benches that measure many rules
# (bench/reload, bench/reload-nginx, bench/run's reload and scrape rows),
# so that ferryd, nginx and HAProxy are given the same N listeners in
# each: one a port on ADDR from PORT0 up, each towards CONNECT
# (HOST:PORT), which nothing needs to answer (a backend is not connected
# to before a client comes).  Each function prints its part of a
# configuration file.

# ferryd_many_rules N ADDR PORT0 CONNECT: the rules list, named r0 ...
ferryd_many_rules() {
	local i
	echo "rules = ("
	for ((i = 0; i < $1; i++)); do
		[ "$i" -gt 0 ] && echo ","
		echo "  { name = \"r$i\"; listen = \"$2:$(($3 + i))\";"
		echo "    connect = \"$4\"; }"
	done
	echo ");"
}

# nginx_many_servers N ADDR PORT0 CONNECT: the servers of a stream
# block, on SO_REUSEPORT sockets (one a worker, as ferryd's).
nginx_many_servers() {
	local i
	for ((i = 0; i < $1; i++)); do
		echo "  server { listen $2:$(($3 + i)) reuseport;"
		echo "    proxy_pass $4; }"
	done
}

# haproxy_many_listens N ADDR PORT0 CONNECT: listen sections (a frontend
# and a backend of one server each), named r0 ...
haproxy_many_listens() {
	local i
	for ((i = 0; i < $1; i++)); do
		echo "listen r$i"
		echo "    bind $2:$(($3 + i))"
		echo "    server s $4"
	done
}
