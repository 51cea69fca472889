// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-ue: two processes speak MetaRoCE over UDP on the user endpoint
 * (mrue.h) and verify every byte.
 *
 *   mr-ue --listen PORT [--bind ADDR] [--loss PCT] [--dup PCT]
 *         [--reorder PCT] [--seed N] [--timeout SEC]
 *   mr-ue --connect HOST:PORT [--loss PCT] [--dup PCT] [--reorder PCT]
 *         [--seed N] [--count N] [--size BYTES] [--timeout SEC]
 *
 * The server's endpoint binds UDP PORT and it listens on TCP PORT for the
 * handshake (PORT 0: a free port for both, printed as "mr-ue: listening
 * on port P"). Both sides then run the verified workload (mr-ue-load.h):
 * each posts COUNT messages (default 1000) of 0..SIZE bytes (default
 * 4096) cycling through SEND, SEND_IMM, WRITE, WRITE_IMM, READ,
 * FETCH_ADD and CMP_SWAP to the other, checks every completion, every
 * READ byte and every atomic's original value, and at the end what the
 * peer wrote into its region. --loss, --dup, --reorder: the endpoint's
 * receive shim drops, duplicates or holds back that percentage of the
 * datagrams it receives. Exit status 0 only if everything completed
 * successfully and verified on this side, and the peer said so too.
 *
 * Handshake (TCP side channel, one text line each way, client first):
 *
 *   MRUE1 qpn=<hex> psn=<dec> port=<dec> mtu=<dec> rd_atomic=<dec>
 *         va=<hex> rkey=<hex> len=<dec> count=<dec> size=<dec> seed=<dec>
 *
 * qpn, psn, mtu, rd_atomic: the endpoint (mrue_local_info()); port: its
 * UDP port (the address is the TCP peer's); va, rkey, len: the region
 * the peer targets; count, size, seed: the workload, set by the client
 * (the server echoes them). Each side posts its first receive WQEs
 * before it sends its hello; the server connects its endpoint before it
 * answers, the client after the answer, and then sends "READY": only
 * then does the server start sending, so no first packet meets a QP
 * that is not connected. At the end each side sends "DONE <0|1>" (0:
 * its own messages and the peer's all completed and verified) and waits
 * for the peer's before it checks its region and exits.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mrue.h"
#include "mr-ue-load.h"

#define UE_DEPTH	32	/* messages in flight, receives posted */
#define HELLO_MAX	512

struct opts {
	const char *listen;
	const char *connect;
	const char *bind;
	uint32_t loss, dup, reorder;	/* ppm */
	uint64_t seed;
	bool seed_set;
	uint32_t count;
	uint32_t size;
	int timeout_s;
};

struct hello {
	uint32_t qpn, psn, port, mtu, rd_atomic, rkey, count, size;
	unsigned long long va, len, seed;
};

static const char *role = "mr-ue";

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mr-ue --listen PORT [--bind ADDR] [--loss PCT] "
		"[--dup PCT] [--reorder PCT]\n"
		"             [--seed N] [--timeout SEC]\n"
		"       mr-ue --connect HOST:PORT [--loss PCT] [--dup PCT] "
		"[--reorder PCT]\n"
		"             [--seed N] [--count N] [--size BYTES] "
		"[--timeout SEC]\n");
	exit(2);
}

/* A percentage (0..100, decimals allowed) in parts per million. */
static uint32_t pct_ppm(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || v < 0 || v > 100)
		usage();
	return (uint32_t)(v * 10000 + 0.5);
}

static unsigned long long num(const char *s, unsigned long long max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !*s || v > max)
		usage();
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "connect", required_argument, NULL, 'c' },
		{ "bind", required_argument, NULL, 'b' },
		{ "loss", required_argument, NULL, 'L' },
		{ "dup", required_argument, NULL, 'D' },
		{ "reorder", required_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 'z' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->count = 1000;
	o->size = 4096;
	o->timeout_s = 60;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->listen = optarg;
			break;
		case 'c':
			o->connect = optarg;
			break;
		case 'b':
			o->bind = optarg;
			break;
		case 'L':
			o->loss = pct_ppm(optarg);
			break;
		case 'D':
			o->dup = pct_ppm(optarg);
			break;
		case 'R':
			o->reorder = pct_ppm(optarg);
			break;
		case 's':
			o->seed = num(optarg, ~0ULL);
			o->seed_set = true;
			break;
		case 'n':
			o->count = (uint32_t)num(optarg, 1000000);
			break;
		case 'z':
			o->size = (uint32_t)num(optarg, 1 << 20);
			break;
		case 't':
			o->timeout_s = (int)num(optarg, 3600);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !o->listen == !o->connect || !o->count ||
	    !o->size)
		usage();
}

/* ---- the TCP side channel ------------------------------------------------- */

static int send_line(int fd, const char *s)
{
	size_t n = strlen(s), off = 0;
	ssize_t k;

	while (off < n) {
		k = send(fd, s + off, n - off, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		off += (size_t)k;
	}
	return 0;
}

/*
 * One line from @fd into @buf, waiting at most until @deadline (ms):
 * 1 a line, 0 none yet (only with @deadline 0: do not wait), -1 EOF or
 * error. Reads a byte at a time: a line is all this channel carries.
 */
static int recv_line(int fd, char *buf, size_t len, size_t *have,
		     uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t k;
	char ch;
	int wait;

	for (;;) {
		wait = 0;
		if (deadline) {
			if (now_ms() >= deadline)
				return -1;
			wait = (int)(deadline - now_ms());
		}
		if (poll(&p, 1, wait) <= 0)
			return deadline ? -1 : 0;
		k = recv(fd, &ch, 1, 0);
		if (k <= 0)
			return -1;
		if (ch == '\n') {
			buf[*have] = 0;
			*have = 0;
			return 1;
		}
		if (*have + 1 >= len)
			return -1;
		buf[(*have)++] = ch;
	}
}

static void hello_fmt(char *buf, size_t len, const struct mrue_info *me,
		      const struct load *l)
{
	snprintf(buf, len, "MRUE1 qpn=%x psn=%u port=%u mtu=%u rd_atomic=%u "
		 "va=%llx rkey=%x len=%llu count=%u size=%u seed=%llu\n",
		 me->qpn, me->psn, me->port, me->mtu, me->max_rd_atomic,
		 (unsigned long long)(uintptr_t)l->region, l->region_key,
		 (unsigned long long)l->region_len, l->count, l->size,
		 (unsigned long long)l->seed);
}

static int hello_parse(const char *s, struct hello *h)
{
	memset(h, 0, sizeof(*h));
	if (sscanf(s, "MRUE1 qpn=%x psn=%u port=%u mtu=%u rd_atomic=%u "
		   "va=%llx rkey=%x len=%llu count=%u size=%u seed=%llu",
		   &h->qpn, &h->psn, &h->port, &h->mtu, &h->rd_atomic, &h->va,
		   &h->rkey, &h->len, &h->count, &h->size, &h->seed) != 11)
		return -1;
	if (!h->count || h->count > 1000000 || !h->size ||
	    h->size > (1 << 20) || h->port > 65535 || h->rd_atomic > 255)
		return -1;
	/* The region must be the one the workload expects. */
	return h->len == load_region_len(h->count, h->size) ? 0 : -1;
}

/* ---- setup ------------------------------------------------------------- */

static void ue_cfg(const struct opts *o, struct mrue_cfg *c, uint16_t port,
		   uint64_t seed)
{
	mrue_cfg_default(c);
	c->bind_addr = o->bind;
	c->port = port;
	c->seed = seed;
	c->loss_ppm = o->loss;
	c->dup_ppm = o->dup;
	c->reorder_ppm = o->reorder;
	c->sq_size = 2 * UE_DEPTH;
	c->rq_size = 2 * UE_DEPTH;
}

/*
 * The server's endpoint on UDP @port and a TCP listener on the same
 * number; port 0: a free one for both.
 */
static int server_open(const struct opts *o, struct mrue **ue, int *lfd)
{
	uint16_t port = (uint16_t)num(o->listen, 65535);
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct mrue_info me;
	struct mrue_cfg c;
	int tries, one = 1;

	for (tries = 0; tries < 32; tries++) {
		ue_cfg(o, &c, port, o->seed_set ? o->seed ^ 0x5e7e : 0);
		if (mrue_create(&c, ue))
			return -1;
		mrue_local_info(*ue, &me);
		*lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		setsockopt(*lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		a.sin_addr.s_addr = me.addr;
		a.sin_port = htons(me.port);
		if (!bind(*lfd, (struct sockaddr *)&a, sizeof(a)) &&
		    !listen(*lfd, 1)) {
			printf("%s: listening on port %u\n", role, me.port);
			fflush(stdout);
			return 0;
		}
		close(*lfd);
		mrue_destroy(*ue);
		*ue = NULL;
		if (port)
			break;
	}
	return -1;
}

static int server_accept(int lfd, uint64_t deadline, uint32_t *peer_addr)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int fd;

	if (poll(&p, 1, (int)(deadline - now_ms())) <= 0)
		return -1;
	fd = accept4(lfd, (struct sockaddr *)&a, &al, SOCK_CLOEXEC);
	if (fd >= 0)
		*peer_addr = a.sin_addr.s_addr;
	return fd;
}

static int client_dial(const char *hostport, uint32_t *peer_addr)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char host[256], *colon;
	int fd;

	snprintf(host, sizeof(host), "%s", hostport);
	colon = strrchr(host, ':');
	if (!colon)
		usage();
	*colon = 0;
	if (getaddrinfo(host, colon + 1, &hints, &res))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0)
		*peer_addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
	freeaddrinfo(res);
	return fd;
}

/* The peer from its hello: the endpoint connects, the workload aims. */
static int apply_hello(struct mrue *ue, struct load *l, const struct hello *h,
		       uint32_t addr)
{
	struct mrue_info peer = {
		.addr = addr, .port = (uint16_t)h->port, .qpn = h->qpn,
		.psn = h->psn, .mtu = h->mtu,
		.max_rd_atomic = (uint8_t)h->rd_atomic,
	};

	l->peer.va = h->va;
	l->peer.rkey = h->rkey;
	l->peer.len = h->len;
	return mrue_connect(ue, &peer);
}

/* ---- run --------------------------------------------------------------- */

static void report(const struct load *l, bool ok)
{
	struct mrue_stats s;

	mrue_get_stats(l->ue, &s);
	printf("%s: %s count=%u size=%u seed=%llu sent=%" PRIu64 " retx=%"
	       PRIu64 " rto=%" PRIu64 " shim_drops=%" PRIu64 " shim_dups=%"
	       PRIu64 " dups=%" PRIu64 " replays=%" PRIu64 " sends=%" PRIu64
	       " writes=%" PRIu64 " reads=%" PRIu64 " atomics=%" PRIu64
	       " rnr=%" PRIu64 " drops=%" PRIu64 " sock_drops=%" PRIu64 "\n",
	       role,
	       ok ? "ok" : "FAILED", l->count, l->size,
	       (unsigned long long)l->seed, s.tx_pkts, s.retx, s.rto,
	       s.shim_drops, s.shim_dups, s.dup + s.old_dup, s.replays,
	       l->sends, l->writes, l->reads, l->atomics, s.rnr_events,
	       s.drop_decode + s.drop_icrc + s.drop_qpn + s.drop_src +
	       s.drop_payload + s.drop_oversize, s.sock_drops);
	if (l->err[0])
		printf("%s: %s\n", role, l->err);
	fflush(stdout);
}

/*
 * Run the workload until this side is done and the peer said DONE too.
 * Returns 0 if both are fine.
 */
static int run(struct load *l, int tfd, uint64_t deadline)
{
	char line[HELLO_MAX];
	size_t have = 0;
	bool sent = false, peer_done = false, ok = true;
	int rc;

	while (!(sent && peer_done)) {
		if (now_ms() > deadline) {
			snprintf(l->err, sizeof(l->err),
				 "timeout: sent %u/%u, received %u/%u%s",
				 l->completed, l->count, l->recv_done,
				 l->recv_expected, peer_done ? "" :
				 ", peer not done");
			return -1;
		}
		mrue_progress(l->ue, 5);
		if (load_step(l) && !sent) {
			send_line(tfd, "DONE 1\n");
			return -1;
		}
		if (!sent && load_done(l)) {
			if (send_line(tfd, "DONE 0\n"))
				return -1;
			sent = true;
		}
		while (!peer_done &&
		       (rc = recv_line(tfd, line, sizeof(line), &have, 0))) {
			if (rc < 0) {
				snprintf(l->err, sizeof(l->err),
					 "the peer went away");
				return -1;
			}
			if (!strncmp(line, "DONE ", 5)) {
				peer_done = true;
				ok = !strcmp(line, "DONE 0");
			}
		}
		if (peer_done && !ok) {
			snprintf(l->err, sizeof(l->err), "the peer failed");
			return -1;
		}
	}
	return load_final_check(l);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct mrue *ue = NULL;
	struct mrue_info me;
	struct mrue_cfg c;
	struct hello h;
	struct load l;
	char line[HELLO_MAX];
	size_t have = 0;
	uint64_t deadline;
	uint32_t peer_addr = 0;
	int lfd = -1, tfd = -1, rc = 1;

	signal(SIGPIPE, SIG_IGN);
	parse(argc, argv, &o);
	deadline = now_ms() + (uint64_t)o.timeout_s * 1000;
	memset(&l, 0, sizeof(l));
	if (o.listen) {
		role = "mr-ue server";
		if (server_open(&o, &ue, &lfd)) {
			fprintf(stderr, "%s: cannot bind: %s\n", role,
				strerror(errno));
			return 1;
		}
		tfd = server_accept(lfd, deadline, &peer_addr);
		if (tfd < 0 ||
		    recv_line(tfd, line, sizeof(line), &have, deadline) != 1 ||
		    hello_parse(line, &h)) {
			fprintf(stderr, "%s: no valid hello\n", role);
			goto out;
		}
		/* Connected and receiving before the client may send. */
		if (load_init(&l, ue, h.seed, h.count, h.size, 1, UE_DEPTH) ||
		    load_post_recvs(&l) || apply_hello(ue, &l, &h, peer_addr))
			goto out;
		mrue_local_info(ue, &me);
		hello_fmt(line, sizeof(line), &me, &l);
		/* and sending only once the client is connected too */
		if (send_line(tfd, line) ||
		    recv_line(tfd, line, sizeof(line), &have, deadline) != 1 ||
		    strcmp(line, "READY")) {
			fprintf(stderr, "%s: handshake failed\n", role);
			goto out;
		}
	} else {
		role = "mr-ue client";
		if (!o.seed_set)
			o.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
		ue_cfg(&o, &c, 0, o.seed ^ 0xc11e);
		if (mrue_create(&c, &ue) ||
		    load_init(&l, ue, o.seed, o.count, o.size, 0, UE_DEPTH) ||
		    load_post_recvs(&l))
			goto out;
		tfd = client_dial(o.connect, &peer_addr);
		if (tfd < 0) {
			fprintf(stderr, "%s: cannot connect to %s\n", role,
				o.connect);
			goto out;
		}
		mrue_local_info(ue, &me);
		hello_fmt(line, sizeof(line), &me, &l);
		if (send_line(tfd, line) ||
		    recv_line(tfd, line, sizeof(line), &have, deadline) != 1 ||
		    hello_parse(line, &h) || h.count != o.count ||
		    h.size != o.size || h.seed != o.seed ||
		    apply_hello(ue, &l, &h, peer_addr) ||
		    send_line(tfd, "READY\n")) {
			fprintf(stderr, "%s: handshake failed\n", role);
			goto out;
		}
	}
	rc = run(&l, tfd, deadline) ? 1 : 0;
	report(&l, rc == 0);
out:
	if (tfd >= 0)
		close(tfd);
	if (lfd >= 0)
		close(lfd);
	if (l.ue)
		load_fini(&l);
	mrue_destroy(ue);
	return rc;
}
