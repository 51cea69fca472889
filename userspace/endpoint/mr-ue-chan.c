// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The TCP side channel of mr-ue and mr-ue-verbs (mr-ue-chan.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mr-ue-chan.h"

#define HELLO_MAX	512

void ue_opts_default(struct ue_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->count = 1000;
	o->size = 4096;
	o->timeout_s = 60;
	/* 67 ms T_verbs, retry_cnt 7: what perftest and the kernel use. */
	o->qp_timeout = 14;
}

unsigned long long ue_num(const char *s, unsigned long long max,
			  void (*usage)(void))
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !*s || v > max)
		usage();
	return v;
}

int ue_opts_take(struct ue_opts *o, int c, const char *arg,
		 void (*usage)(void))
{
	switch (c) {
	case 'l':
		o->listen = arg;
		return 1;
	case 'c':
		o->connect = arg;
		return 1;
	case 's':
		o->seed = ue_num(arg, ~0ULL, usage);
		o->seed_set = true;
		return 1;
	case 'n':
		o->count = (uint32_t)ue_num(arg, 1000000, usage);
		return 1;
	case 'z':
		o->size = (uint32_t)ue_num(arg, 1 << 20, usage);
		return 1;
	case 't':
		o->timeout_s = (int)ue_num(arg, 3600, usage);
		return 1;
	case 'u':
		o->udp_port = (uint16_t)ue_num(arg, 65535, usage);
		return 1;
	case 'T':
		o->qp_timeout = (uint8_t)ue_num(arg, 31, usage);
		return 1;
	}
	return 0;
}

bool ue_opts_ok(const struct ue_opts *o)
{
	return !o->listen != !o->connect && o->count && o->size;
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

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

/* This side's hello: the queue pair's fields, then the workload's. */
static void hello_fmt(const struct ue_peer *p, const struct load *l,
		      char *buf, size_t len)
{
	struct hello me;

	memset(&me, 0, sizeof(me));
	p->local(p->ctx, &me);
	snprintf(buf, len, "MRUE1 qpn=%x psn=%u port=%u mtu=%u rd_atomic=%u "
		 "va=%llx rkey=%x len=%llu count=%u size=%u seed=%llu\n",
		 me.qpn, me.psn, me.port, me.mtu, me.rd_atomic,
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

/* The peer from its hello: the queue pair connects, the workload aims. */
static int apply_hello(const struct ue_peer *p, struct load *l,
		       const struct hello *h, uint32_t addr)
{
	l->peer.va = h->va;
	l->peer.rkey = h->rkey;
	l->peer.len = h->len;
	return p->connect(p->ctx, h, addr);
}

int chan_listen(uint32_t addr, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = addr,
				 .sin_port = htons(port) };
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1)) {
		close(fd);
		return -1;
	}
	return fd;
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
		return -1;
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

int chan_server(const struct ue_peer *p, int lfd, struct load *l,
		uint64_t deadline)
{
	char line[HELLO_MAX];
	size_t have = 0;
	uint32_t addr = 0;
	struct hello h;
	int tfd;

	tfd = server_accept(lfd, deadline, &addr);
	if (tfd < 0 ||
	    recv_line(tfd, line, sizeof(line), &have, deadline) != 1 ||
	    hello_parse(line, &h)) {
		fprintf(stderr, "%s: no valid hello\n", p->role);
		goto fail;
	}
	/* Connected and receiving before the client may send. */
	if (load_init(l, p->be, p->ctx, h.seed, h.count, h.size, 1,
		      UE_DEPTH) ||
	    load_post_recvs(l) || apply_hello(p, l, &h, addr)) {
		fprintf(stderr, "%s: cannot set up: %s\n", p->role, l->err);
		goto fail;
	}
	hello_fmt(p, l, line, sizeof(line));
	/* and sending only once the client is connected too */
	if (send_line(tfd, line) ||
	    recv_line(tfd, line, sizeof(line), &have, deadline) != 1 ||
	    strcmp(line, "READY")) {
		fprintf(stderr, "%s: handshake failed\n", p->role);
		goto fail;
	}
	return tfd;
fail:
	if (tfd >= 0)
		close(tfd);
	return -1;
}

int chan_client(const struct ue_peer *p, const struct ue_opts *o,
		struct load *l, uint64_t deadline)
{
	uint64_t seed = o->seed_set ? o->seed :
			(uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
	char line[HELLO_MAX];
	size_t have = 0;
	uint32_t addr = 0;
	struct hello h;
	int tfd;

	if (load_init(l, p->be, p->ctx, seed, o->count, o->size, 0,
		      UE_DEPTH) ||
	    load_post_recvs(l)) {
		fprintf(stderr, "%s: cannot set up: %s\n", p->role, l->err);
		return -1;
	}
	tfd = client_dial(o->connect, &addr);
	if (tfd < 0) {
		fprintf(stderr, "%s: cannot connect to %s\n", p->role,
			o->connect);
		return -1;
	}
	hello_fmt(p, l, line, sizeof(line));
	if (send_line(tfd, line) ||
	    recv_line(tfd, line, sizeof(line), &have, deadline) != 1 ||
	    hello_parse(line, &h) || h.count != o->count ||
	    h.size != o->size || h.seed != seed || apply_hello(p, l, &h, addr) ||
	    send_line(tfd, "READY\n")) {
		fprintf(stderr, "%s: handshake failed\n", p->role);
		close(tfd);
		return -1;
	}
	return tfd;
}

int chan_run(const struct ue_peer *p, struct load *l, int tfd,
	     uint64_t deadline)
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
		p->progress(p->ctx, 5);
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
	if (load_final_check(l))
		return -1;
	if (!load_all_verified(l)) {
		snprintf(l->err, sizeof(l->err),
			 "not every opcode was verified (count %u)", l->count);
		return -1;
	}
	return 0;
}

void chan_report(const struct ue_peer *p, const struct load *l, bool ok,
		 const char *extra)
{
	char v[256];

	load_verified_str(l, v, sizeof(v));
	printf("%s: %s count=%u size=%u seed=%llu verified: %s; %s\n",
	       p->role, ok ? "ok" : "FAILED", l->count, l->size,
	       (unsigned long long)l->seed, v, extra);
	if (l->err[0])
		printf("%s: %s\n", p->role, l->err);
	fflush(stdout);
}
