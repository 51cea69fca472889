// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-conform: the wire, the agent's control channel, the tester's side of
 * a QP and the packet checkers.
 *
 * The tester owns the MetaRoCE UDP port of its host (no MetaRoCE device
 * there): one UDP socket bound to it receives every packet the DUT sends,
 * with the IP TOS byte (IP_RECVTOS) for the ECN checks; a second socket
 * bound to a port in 0xC000..0xFFFF sends (MR-ENC-2), ECT(0) and DSCP 26
 * (MR-ENC-4, MR-ENC-5). Packets are built and parsed only by the core's
 * codec (kernel/proto/wire.c).
 *
 * The tester is a revision 1.1 peer at the Core level (MR-CONF-1): it
 * answers each HELLO of the DUT without SEEN with one HELLO of its own,
 * SEEN set, caps CORE, max_read_range 65536 (MR-VER-9, MR-VER-12), so the
 * DUT's QP settles on the common set CORE and sends no PROBEs
 * (MR-VER-15).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mr-conform.h"

struct dut DUT;

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("Bail out! ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	exit(2);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The tester's MBH.ts clock: microseconds plus a random offset (MR-SEC-6). */
static uint32_t ts_off;

uint32_t ts_now(void)
{
	return (uint32_t)(uint64_t)(now_s() * 1e6) + ts_off;
}

/* ------------------------------------------------------------------ */
/* Sockets                                                            */

static int s_rx = -1, s_tx = -1, s_tx2 = -1, s_raw = -1;
static bool tos_seen;
uint16_t tx_sport[2];
uint64_t rx_undecodable;
struct rawstat RAW;

void net_open(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int one = 1, tos = (MR_DSCP_DEFAULT << 2) | 2, s;

	srand((unsigned int)time(NULL) ^ (unsigned int)getpid());
	ts_off = (uint32_t)rand() << 8;
	/* Our own address: the one the route to the DUT uses. */
	a.sin_addr.s_addr = DUT.ip;
	a.sin_port = htons((uint16_t)O.udp_port);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &al))
		fatal("no route to the DUT: %s", strerror(errno));
	DUT.me = a.sin_addr.s_addr;
	close(s);
	{
		const uint8_t *m = (const uint8_t *)&DUT.me;

		snprintf(DUT.my_gid, sizeof(DUT.my_gid),
			 "00000000000000000000ffff%02x%02x%02x%02x", m[0], m[1], m[2], m[3]);
	}

	s_rx = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)O.udp_port);
	if (s_rx < 0 || bind(s_rx, (struct sockaddr *)&a, sizeof(a)))
		fatal("bind UDP port %d: %s (is a MetaRoCE device loaded on the tester host?)",
		      O.udp_port, strerror(errno));
	setsockopt(s_rx, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	setsockopt(s_rx, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	{
		/* Room for a burst of responses (root may pass rmem_max). */
		int rb = 4 << 20;

		if (setsockopt(s_rx, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)))
			setsockopt(s_rx, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	}
	fcntl(s_rx, F_SETFL, O_NONBLOCK);

	/* Two senders on distinct entropies: the second one for the cases
	 * that vary the tester's entropy (MR-MP-15). */
	for (int k = 0; k < 2; k++) {
		int *sk = k ? &s_tx2 : &s_tx;

		*sk = socket(AF_INET, SOCK_DGRAM, 0);
		if (*sk < 0)
			fatal("socket: %s", strerror(errno));
		for (int i = 0; i < 100; i++) {
			a.sin_port = htons((uint16_t)(MR_ENTROPY_BASE |
						      (rand() & MR_ENTROPY_MASK)));
			if (ntohs(a.sin_port) != tx_sport[0] &&
			    !bind(*sk, (struct sockaddr *)&a, sizeof(a)))
				break;
			if (i == 99)
				fatal("no free UDP source port in 0xC000..0xFFFF");
		}
		tx_sport[k] = ntohs(a.sin_port);
		setsockopt(*sk, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	}
	/* The IP headers of the DUT's packets (DF, TTL, UDP checksum): a raw
	 * socket gets a copy of every UDP datagram; without the privilege
	 * the cases that need it report "not run". */
	s_raw = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	if (s_raw >= 0)
		fcntl(s_raw, F_SETFL, O_NONBLOCK);
}

bool net_raw_visible(void)
{
	return s_raw >= 0;
}

/* Internet checksum (RFC 1071): @n bytes as big-endian 16-bit words added
 * to @sum, an odd last byte as the high half of a word. */
static uint32_t csum_add(uint32_t sum, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The checksum of the UDP datagram @u (@ulen bytes) with the IPv4 pseudo
 * header of source @src and destination @dst (4 bytes each, network
 * order); 0 when the transmitted checksum is right. */
static uint16_t udp4_csum(const uint8_t *src, const uint8_t *dst,
			  const uint8_t *u, uint32_t ulen)
{
	uint32_t sum = csum_add(csum_add(0, src, 4), dst, 4);

	return csum_fold(csum_add(sum + IPPROTO_UDP + ulen, u, ulen));
}

static void raw_drain(void)
{
	uint8_t b[RX_BUF + 64];

	if (s_raw < 0)
		return;
	for (;;) {
		ssize_t n = recv(s_raw, b, sizeof(b), MSG_DONTWAIT);
		uint32_t ihl, ulen;
		uint32_t src;
		const uint8_t *u;

		if (n <= 0)
			return;
		if (n < 28 || (b[0] >> 4) != 4 || b[9] != 17)
			continue;
		ihl = (b[0] & 15) * 4u;
		memcpy(&src, b + 12, 4);
		if (ihl < 20 || (uint32_t)n < ihl + 8 || src != DUT.ip)
			continue;
		u = b + ihl;
		if ((u[2] << 8 | u[3]) != O.udp_port)
			continue;
		ulen = (uint32_t)(u[4] << 8 | u[5]);
		RAW.seen++;
		if (!(b[6] & 0x40))
			RAW.no_df++;
		if ((b[6] & 0x3F) || b[7])
			RAW.frag++;
		if (!RAW.ttl_min || b[8] < RAW.ttl_min)
			RAW.ttl_min = b[8];
		if (b[8] > RAW.ttl_max)
			RAW.ttl_max = b[8];
		if (ulen < 8 || ihl + ulen > (uint32_t)n)
			RAW.bad_len++;
		else if (!(u[6] | u[7]))
			RAW.zero_csum++;
		else if (udp4_csum(b + 12, b + 16, u, ulen))
			RAW.bad_csum++;
	}
}

/* Whether the IP TOS of received packets is known (IP_RECVTOS worked). */
bool net_ecn_visible(void)
{
	return tos_seen;
}

void rx_parse(struct rxpkt *r, const uint8_t *b, uint32_t len)
{
	if (b != r->b)
		memcpy(r->b, b, len);
	r->len = len;
	memset(&r->p, 0, sizeof(r->p));
	r->err = mr_pkt_decode(r->b, len, &r->p);
	r->icrc = mr_icrc_check(r->b, len);
	r->poff = r->p.payload ? (uint32_t)(r->p.payload - r->b) : 0;
}

void rx_copy(struct rxpkt *dst, const struct rxpkt *src)
{
	memcpy(dst, src, sizeof(*dst));
	if (src->p.payload)
		dst->p.payload = dst->b + src->poff;
}

uint32_t pkt_build(const struct mr_pkt *p, uint8_t *buf, uint32_t cap)
{
	int n = mr_pkt_encode(p, buf, cap);

	if (n < 0)
		fatal("internal: the codec refused opcode %#x psn %#x: %s",
		      p->opcode, p->psn, mr_err_name(n));
	return (uint32_t)n;
}

void tx_bytes(const uint8_t *b, uint32_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)O.udp_port),
				  .sin_addr.s_addr = DUT.ip };

	if (sendto(s_tx, b, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		fatal("sendto: %s", strerror(errno));
}

void tx_pkt(const struct mr_pkt *p)
{
	uint8_t b[RX_BUF];

	tx_bytes(b, pkt_build(p, b, sizeof(b)));
}

void tx_pkt_alt(const struct mr_pkt *p)
{
	uint8_t b[RX_BUF];
	uint32_t n = pkt_build(p, b, sizeof(b));
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)O.udp_port),
				  .sin_addr.s_addr = DUT.ip };

	if (sendto(s_tx2, b, n, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		fatal("sendto: %s", strerror(errno));
}

/* The Internet checksum of @n bytes. */
static uint16_t inet_csum(const uint8_t *b, uint32_t n)
{
	return csum_fold(csum_add(0, b, n));
}

bool tx_icmp_frag_needed(uint16_t dut_sport, uint16_t ip_len, uint16_t mtu)
{
	static int s_icmp = -1;
	uint8_t b[8 + 20 + 8];
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = DUT.ip };
	uint16_t c;

	if (s_icmp < 0)
		s_icmp = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (s_icmp < 0)
		return false;
	memset(b, 0, sizeof(b));
	b[0] = 3;			/* destination unreachable */
	b[1] = 4;			/* fragmentation needed, DF set */
	b[6] = (uint8_t)(mtu >> 8);
	b[7] = (uint8_t)mtu;
	/* the DUT's datagram as a router quotes it: its IP header ... */
	b[8] = 0x45;
	b[8 + 2] = (uint8_t)(ip_len >> 8);
	b[8 + 3] = (uint8_t)ip_len;
	b[8 + 6] = 0x40;		/* DF */
	b[8 + 8] = 63;
	b[8 + 9] = 17;
	memcpy(b + 8 + 12, &DUT.ip, 4);
	memcpy(b + 8 + 16, &DUT.me, 4);
	c = inet_csum(b + 8, 20);
	b[8 + 10] = (uint8_t)(c >> 8);
	b[8 + 11] = (uint8_t)c;
	/* ... and the first 8 bytes of its UDP header */
	b[28] = (uint8_t)(dut_sport >> 8);
	b[29] = (uint8_t)dut_sport;
	b[30] = (uint8_t)(O.udp_port >> 8);
	b[31] = (uint8_t)O.udp_port;
	b[32] = (uint8_t)((ip_len - 20) >> 8);
	b[33] = (uint8_t)(ip_len - 20);
	c = inet_csum(b, sizeof(b));
	b[2] = (uint8_t)(c >> 8);
	b[3] = (uint8_t)c;
	return sendto(s_icmp, b, sizeof(b), 0, (struct sockaddr *)&to, sizeof(to)) ==
	       (ssize_t)sizeof(b);
}

/* The tester's IP TOS byte for what it sends next: ECN bits included
 * (CE = 3 marks a packet as a congested switch would, MR-CC-1). */
void tx_set_tos(uint8_t tos)
{
	int v = tos;

	setsockopt(s_tx, IPPROTO_IP, IP_TOS, &v, sizeof(v));
}

/* ------------------------------------------------------------------ */
/* Receive queue and HELLO answers                                    */

static struct rxpkt rxq[RX_QLEN];
static unsigned int rxq_n;
bool hello_auto = true;
uint64_t hello_answered;

void hello_fill(struct mr_pkt *p, uint32_t dqpn, uint32_t sqpn, bool seen,
		uint32_t caps)
{
	memset(p, 0, sizeof(*p));
	p->opcode = MR_OP_HELLO;
	p->dqpn = dqpn;
	p->sqpn = sqpn;
	p->ts = ts_now();
	p->hlh.rev_major = 1;
	p->hlh.rev_minor = 1;
	p->hlh.hflags = seen ? MR_HLF_SEEN : 0;
	p->hlh.caps = caps;
	p->hlh.max_read_range = MR_HELLO_READ_RANGE_MIN;
}

static void rx_one(void)
{
	struct rxpkt *r;
	struct sockaddr_in from;
	char cbuf[128];
	struct iovec iov;
	struct msghdr mh = { 0 };
	ssize_t n;

	if (rxq_n == RX_QLEN) {
		/* Full: the oldest goes (a case that floods itself). */
		memmove(rxq, rxq + 1, sizeof(rxq[0]) * (RX_QLEN - 1));
		rxq_n--;
	}
	r = &rxq[rxq_n];
	iov.iov_base = r->b;
	iov.iov_len = sizeof(r->b);
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	n = recvmsg(s_rx, &mh, MSG_DONTWAIT);
	if (n <= 0)
		return;
	r->tos = 0xFF;
	r->dst = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
			r->tos = *(uint8_t *)CMSG_DATA(c);
			tos_seen = true;
		}
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			r->dst = pi.ipi_addr.s_addr;
		}
	}
	r->src = from.sin_addr.s_addr;
	r->sport = ntohs(from.sin_port);
	r->t = now_s();
	rx_parse(r, r->b, (uint32_t)n);
	if (r->src != DUT.ip)
		return;		/* not the DUT's: not queued */
	if (r->err)
		rx_undecodable++;
	if (O.verbose > 1)
		diag("rx op %#x dqpn %#x psn %#x len %u err %d", r->p.opcode,
		     r->p.dqpn, r->p.psn, r->len, r->err);
	if (hello_auto && !r->err && r->p.opcode == MR_OP_HELLO &&
	    !(r->p.hlh.hflags & MR_HLF_SEEN)) {
		struct mr_pkt h;

		hello_fill(&h, r->p.sqpn, r->p.dqpn, true, MR_CAP_CORE);
		tx_pkt(&h);
		hello_answered++;
	}
	rxq_n++;
}

void net_pump(double tmo)
{
	double end = now_s() + tmo;

	for (;;) {
		struct pollfd pf = { .fd = s_rx, .events = POLLIN };
		double left = end - now_s();

		raw_drain();
		if (poll(&pf, 1, left > 0 ? (int)(left * 1000) + 1 : 0) > 0) {
			for (int i = 0; i < 64; i++) {
				unsigned int before = rxq_n;

				rx_one();
				if (rxq_n == before && rxq_n != RX_QLEN)
					break;
			}
		}
		if (now_s() >= end)
			return;
	}
}

void net_pump_until(double t)
{
	net_pump(t - now_s());
}

void rx_flush(void)
{
	net_pump(0);
	rxq_n = 0;
}

bool rx_take(uint32_t qpn, uint8_t op, double tmo, struct rxpkt *out)
{
	double end = now_s() + tmo * O.slow;

	for (;;) {
		for (unsigned int i = 0; i < rxq_n; i++) {
			struct rxpkt *r = &rxq[i];

			if (r->err || r->p.dqpn != qpn)
				continue;
			if (op ? r->p.opcode != op : r->p.opcode == MR_OP_HELLO)
				continue;
			rx_copy(out, r);
			/* The slots after it move down: their payload
			 * pointers are rebuilt from poff when taken. */
			memmove(rxq + i, rxq + i + 1, sizeof(rxq[0]) * (rxq_n - i - 1));
			rxq_n--;
			return true;
		}
		if (now_s() >= end)
			return false;
		net_pump(0.02);
	}
}

/* ------------------------------------------------------------------ */
/* The agent's control channel                                        */

static int actl = -1;
static char ain[8192];
static size_t ain_n;
char agent_err[512];

void agent_open(void)
{
	char host[256], *c;
	const char *port = "7790";
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int one = 1;
	double end = now_s() + 60;

	snprintf(host, sizeof(host), "%s", O.agent);
	c = strchr(host, ':');
	if (c) {
		*c = 0;
		port = c + 1;
	}
	if (getaddrinfo(host, port, &hints, &ai))
		fatal("agent address %s: cannot resolve", O.agent);
	for (;;) {
		actl = socket(AF_INET, SOCK_STREAM, 0);
		if (actl >= 0 && !connect(actl, ai->ai_addr, ai->ai_addrlen))
			break;
		if (actl >= 0)
			close(actl);
		if (now_s() > end)
			fatal("agent %s: %s", O.agent, strerror(errno));
		usleep(200000);
	}
	if (!O.dut)
		DUT.ip = ((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr;
	freeaddrinfo(ai);
	setsockopt(actl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void agent_close(void)
{
	if (actl >= 0) {
		agent("QUIT");
		close(actl);
		actl = -1;
	}
}

/* One line from the agent (static buffer); fatal on EOF or after 30 s. */
const char *agent_line(void)
{
	static char line[8192];
	double end = now_s() + 30 * O.slow;

	for (;;) {
		char *nl = memchr(ain, '\n', ain_n);
		struct pollfd pf = { .fd = actl, .events = POLLIN };
		ssize_t n;

		if (nl) {
			size_t l = (size_t)(nl - ain);

			memcpy(line, ain, l);
			line[l] = 0;
			memmove(ain, nl + 1, ain_n - l - 1);
			ain_n -= l + 1;
			return line;
		}
		if (ain_n == sizeof(ain))
			fatal("agent: line too long");
		if (now_s() > end)
			fatal("agent: no answer within 30 s");
		/* Keep answering the DUT's HELLOs while the agent works. */
		net_pump(0);
		if (poll(&pf, 1, 10) <= 0)
			continue;
		n = read(actl, ain + ain_n, sizeof(ain) - ain_n);
		if (n <= 0)
			fatal("agent: connection closed");
		ain_n += (size_t)n;
	}
}

const char *agent(const char *fmt, ...)
{
	char req[MRC_LINE_MAX];
	const char *a;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(req, sizeof(req) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(req) - 1)
		fatal("internal: agent request too long");
	if (O.verbose)
		diag("agent <- %s", req);
	req[n++] = '\n';
	if (write(actl, req, (size_t)n) != n)
		fatal("agent: write: %s", strerror(errno));
	a = agent_line();
	if (O.verbose)
		diag("agent -> %.200s", a);
	if (!strncmp(a, "OK", 2))
		return a[2] == ' ' ? a + 3 : a + 2;
	snprintf(agent_err, sizeof(agent_err), "%s", a);
	return NULL;
}

bool kv_u64(const char *ans, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);

	for (const char *p = ans; p && *p; p = strchr(p, ' ')) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			*v = strtoull(p + kl + 1, NULL, 0);
			return true;
		}
	}
	return false;
}

/* --counter SPEC=IMPL: the implementation's name of a spec counter. */
#define CMAP_MAX 48
static struct { char spec[32], impl[64]; } cmap[CMAP_MAX];
static int cmap_n;

void counter_map_add(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(cmap[0].spec) ||
	    strlen(eq + 1) >= sizeof(cmap[0].impl) || !eq[1] || cmap_n == CMAP_MAX)
		fatal("--counter %s: SPEC=IMPL, please", arg);
	memcpy(cmap[cmap_n].spec, arg, (size_t)(eq - arg));
	strcpy(cmap[cmap_n].impl, eq + 1);
	cmap_n++;
}

bool counter(const char *spec_name, uint64_t *v)
{
	const char *want = spec_name;
	const char *a = agent("COUNTERS");
	uint64_t n = 0;
	bool found = false;

	for (int i = 0; i < cmap_n; i++)
		if (!strcmp(cmap[i].spec, spec_name))
			want = cmap[i].impl;
	if (!a || !kv_u64(a, "n", &n))
		fatal("agent: COUNTERS: %s", agent_err);
	for (uint64_t i = 0; i < n; i++) {
		const char *l = agent_line();
		char name[64];
		unsigned long long val;

		if (sscanf(l, "CNT %63s %llu", name, &val) == 2 && !strcmp(name, want)) {
			*v = val;
			found = true;
		}
	}
	if (!found)
		diag("the DUT exposes no counter '%s' (spec name '%s', MR-CONF-7)",
		     want, spec_name);
	return found;
}

/* ------------------------------------------------------------------ */
/* The DUT's memory                                                   */

void dut_setup(void)
{
	const char *a = agent("INFO");
	const char *g;
	uint64_t v;

	if (!a || !(g = strstr(a, "gid=")) || strlen(g + 4) < 32)
		fatal("agent: INFO: %s", a ? a : agent_err);
	memcpy(DUT.gid, g + 4, 32);
	DUT.gid[32] = 0;
	diag("DUT: %s", a);
	if (!agent("CQ 0 1024"))
		fatal("agent: CQ: %s", agent_err);
	a = agent("MR 0 %u 0x%x 1", MR_LEN, ACC_ALL);
	if (!a || !kv_u64(a, "rkey", &v))
		fatal("agent: MR 0: %s", agent_err);
	DUT.rkey0 = (uint32_t)v;
	kv_u64(a, "addr", &DUT.addr0);
	a = agent("MR 1 %u 0x%x 2", MR_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!a || !kv_u64(a, "lkey", &v))
		fatal("agent: MR 1: %s", agent_err);
	DUT.lkey1 = (uint32_t)v;
	kv_u64(a, "addr", &DUT.addr1);
}

bool mr_fill(int mr, uint64_t seed)
{
	return agent("FILL %d 0x%" PRIx64, mr, seed) != NULL;
}

bool mr_read(int mr, uint32_t off, uint32_t len, uint8_t *out)
{
	const char *a = agent("READMR %d %u %u", mr, off, len);

	if (!a || strlen(a) < 2 * (size_t)len)
		return false;
	for (uint32_t i = 0; i < len; i++) {
		unsigned int v;

		if (sscanf(a + 2 * i, "%2x", &v) != 1)
			return false;
		out[i] = (uint8_t)v;
	}
	return true;
}

bool mr_hash(int mr, uint32_t off, uint32_t len, uint64_t *h)
{
	const char *a = agent("HASH %d %u %u", mr, off, len);

	if (!a)
		return false;
	*h = strtoull(a, NULL, 0);
	return true;
}

/* ------------------------------------------------------------------ */
/* The tester's side of a QP                                          */

static unsigned int qp_seq;

/*
 * Create a DUT QP and connect it to the tester's QPN: first request PSN
 * @rq_psn, path MTU @mtu, on the agent's CQ @cq and SRQ @srq (-1: none),
 * with the verbs timeout, retry_cnt and rnr_retry given.
 */
static bool tqp_open_full(struct tctx *t, struct tqp *q, unsigned int access,
			  uint32_t rq_psn, int mtu, int cq, int srq,
			  unsigned int timeout, unsigned int retry,
			  unsigned int rnr_retry)
{
	const char *a;
	uint64_t v;
	struct rxpkt r;
	char srq_arg[16] = "";

	memset(q, 0, sizeof(*q));
	q->id = (int)(qp_seq % MRC_MAX_QP);
	q->my_qpn = 0x100 + (qp_seq++ * 7 % 0xFFF00);
	q->psn = rq_psn & MR_PSN_MASK;
	q->dut_psn = (uint32_t)rand() & MR_PSN_MASK;
	q->path = (uint8_t)(rand() % MR_MAX_PATHS);
	rx_flush();
	if (srq >= 0)
		snprintf(srq_arg, sizeof(srq_arg), " %d", srq);
	a = agent("QP %d %d RC 16 16%s", q->id, cq, srq_arg);
	if (!a || !kv_u64(a, "qpn", &v)) {
		fail_at(t, __LINE__, "agent: QP: %s", agent_err);
		return false;
	}
	q->dut_qpn = (uint32_t)v;
	if (!agent("CONNECT %d %u %u %u %s %d 0x%x %u %u %u", q->id, q->my_qpn,
		   q->psn, q->dut_psn, DUT.my_gid, mtu, access, timeout, retry,
		   rnr_retry)) {
		fail_at(t, __LINE__, "agent: CONNECT: %s", agent_err);
		return false;
	}
	/* The DUT's first HELLO (MR-VER-14); answered in net_pump(). */
	if (rx_take(q->my_qpn, MR_OP_HELLO, WAIT_RESP, &r)) {
		q->have_hello = true;
		rx_copy(&q->hello, &r);
	}
	return true;
}

bool tqp_open(struct tctx *t, struct tqp *q, unsigned int access)
{
	return tqp_open_at(t, q, access, (uint32_t)rand() & MR_PSN_MASK);
}

bool tqp_open_at(struct tctx *t, struct tqp *q, unsigned int access, uint32_t rq_psn)
{
	return tqp_open_ex(t, q, access, rq_psn, PMTU, 0, -1);
}

/* timeout 18 (about 1 s per T_verbs), retry 7: a tester that takes its
 * time under emulation is not an outage. */
bool tqp_open_ex(struct tctx *t, struct tqp *q, unsigned int access, uint32_t rq_psn,
		 int mtu, int cq, int srq)
{
	return tqp_open_full(t, q, access, rq_psn, mtu, cq, srq, 18, 7, 7);
}

bool tqp_open_retry(struct tctx *t, struct tqp *q, unsigned int access,
		    unsigned int timeout, unsigned int retry, unsigned int rnr_retry)
{
	return tqp_open_full(t, q, access, (uint32_t)rand() & MR_PSN_MASK, PMTU,
			     0, -1, timeout, retry, rnr_retry);
}

void tqp_close(struct tqp *q)
{
	if (q->dut_qpn)
		agent("DESTROY %d", q->id);
	q->dut_qpn = 0;
}

const char *dut_qp_state(const struct tqp *q)
{
	static char st[16];
	const char *a = agent("STATE %d", q->id);

	snprintf(st, sizeof(st), "%s", a ? a : "?");
	return st;
}

void req_fill(struct mr_pkt *p, const struct tqp *q, uint8_t op, uint32_t psn,
	      uint16_t flags)
{
	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->path = q->path;
	p->flags = flags;
	p->dqpn = q->dut_qpn;
	p->sqpn = q->my_qpn;
	p->psn = psn & MR_PSN_MASK;
	p->ts = ts_now();
}

void wr_fill(struct mr_pkt *p, const struct tqp *q, uint32_t moff, const uint8_t *pl,
	     uint32_t len)
{
	req_fill(p, q, MR_OP_WRITE, q->psn, MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ);
	p->dxh.msn = q->msn;
	p->dxh.msg_len = len;
	p->rxh.va = DUT.addr0 + moff;
	p->rxh.rkey = DUT.rkey0;
	p->payload = pl;
	p->payload_len = len;
}

int cqe_wait(const struct tqp *q, struct cqe *c, int max, double tmo)
{
	double end = now_s() + tmo * O.slow;
	int got = 0;

	while (got < max) {
		double left = end - now_s();
		int ms = left > 0 ? (int)(left * 1000) : 0;
		const char *a;
		uint64_t n = 0;

		if (ms > 2000)
			ms = 2000;
		a = agent("POLL 0 %d %d", max - got > MRC_POLL_MAX ? MRC_POLL_MAX : max - got, ms);
		if (!a || !kv_u64(a, "n", &n))
			break;
		for (uint64_t i = 0; i < n; i++) {
			const char *l = agent_line();
			struct cqe e = { 0 };
			uint64_t v;

			kv_u64(l, "wrid", &e.wrid);
			kv_u64(l, "status", &v);
			e.status = (int)v;
			kv_u64(l, "opcode", &v);
			e.opcode = (int)v;
			kv_u64(l, "byte_len", &v);
			e.byte_len = (uint32_t)v;
			kv_u64(l, "imm", &v);
			e.imm = (uint32_t)v;
			kv_u64(l, "wc_flags", &v);
			e.wc_flags = (uint32_t)v;
			kv_u64(l, "qpn", &v);
			e.qpn = (uint32_t)v;
			kv_u64(l, "src_qp", &v);
			e.src_qp = (uint32_t)v;
			if (e.qpn != q->dut_qpn) {
				diag("CQE of another QP (%u) dropped", e.qpn);
				continue;
			}
			c[got++] = e;
		}
		if (now_s() >= end)
			break;
	}
	return got;
}

/* ------------------------------------------------------------------ */
/* Checkers                                                           */

void check_ack(struct tctx *t, const char *what, const struct rxpkt *r,
	       uint32_t my_qpn, uint32_t dut_qpn, const struct ack_expect *e)
{
	const struct mr_pkt *p = &r->p;
	uint8_t want_op = e->nack_reason ? MR_OP_NACK : MR_OP_ACK;

	EXPECT(t, r->err == 0, "%s: does not decode: %s (MR-HDR-1)", what,
	       mr_err_name(r->err));
	if (r->err)
		return;
	EXPECT(t, r->icrc == 0, "%s: ICRC wrong (MR-ICRC-1..3)", what);
	EXPECT(t, p->opcode == want_op, "%s: opcode %#x, want %#x", what,
	       p->opcode, want_op);
	/* MR-REL-12: PSN 0, QPNs, path echo, no ECE (nothing sent CE). */
	EXPECT(t, p->psn == 0, "%s: MBH.psn %#x, want 0 (MR-REL-12)", what, p->psn);
	EXPECT(t, p->dqpn == my_qpn, "%s: dqpn %#x, want the tester's %#x (MR-REL-12)",
	       what, p->dqpn, my_qpn);
	EXPECT(t, p->sqpn == dut_qpn, "%s: sqpn %#x, want the DUT's %#x (MR-REL-12)",
	       what, p->sqpn, dut_qpn);
	EXPECT(t, p->path == e->path, "%s: path %u, want the echo %u (MR-REL-12, MR-HDR-6)",
	       what, p->path, e->path);
	EXPECT(t, !(p->flags & MR_F_ECE), "%s: ECE set, no CE was sent (MR-REL-12)", what);
	/* MR-REL-11, MR-REL-2 */
	EXPECT(t, p->akh.cum_psn == (e->cum & MR_PSN_MASK),
	       "%s: cum_psn %#x, want %#x (MR-REL-2, MR-REL-11)", what,
	       p->akh.cum_psn, e->cum & MR_PSN_MASK);
	EXPECT(t, p->akh.msn == e->msn, "%s: msn %u, want %u (MR-REL-11)", what,
	       p->akh.msn, e->msn);
	EXPECT(t, p->akh.ts_echo == e->ts_echo,
	       "%s: ts_echo %#x, want the trigger's ts %#x (MR-REL-11)", what,
	       p->akh.ts_echo, e->ts_echo);
	EXPECT(t, p->akh.ce_count == 0, "%s: ce_count %u, no CE was sent (MR-REL-11)",
	       what, p->akh.ce_count);
	for (unsigned int i = 0; i < MR_SACK_BITS; i++) {
		bool want = false;

		for (unsigned int k = 0; k < e->n_sacked; k++)
			want |= e->sacked[k] == i;
		EXPECT(t, mr_sack_test(p->akh.sack, i) == want,
		       "%s: SACK bit %u (PSN %#x) is %d, want %d (MR-REL-2)", what, i,
		       (p->akh.cum_psn + i) & MR_PSN_MASK, !want, want);
	}
	if (e->nack_reason) {
		EXPECT(t, p->nkh.reason == e->nack_reason, "%s: NACK reason %u, want %u (MR-REL-5)",
		       what, p->nkh.reason, e->nack_reason);
		EXPECT(t, p->nkh.nack_psn == (e->nack_psn & MR_PSN_MASK),
		       "%s: nack_psn %#x, want %#x", what, p->nkh.nack_psn,
		       e->nack_psn & MR_PSN_MASK);
		EXPECT(t, p->nkh.rnr_timer == e->rnr_timer,
		       "%s: rnr_timer %u, want %u (MR-REL-5, MR-REL-17)", what,
		       p->nkh.rnr_timer, e->rnr_timer);
	}
}

void check_ect0(struct tctx *t, const char *what, const struct rxpkt *r)
{
	if (r->tos == 0xFF)
		return;		/* the case reports ECN as not run */
	EXPECT(t, (r->tos & 3) == 2, "%s: IP ECN field %u, want ECT(0) = 2 (MR-ENC-5)",
	       what, r->tos & 3);
}

/* ------------------------------------------------------------------ */
/* The tester as the responder of the DUT's requests                  */

unsigned int req_take(struct tqp *q, uint8_t op, uint32_t first, unsigned int n,
		      struct rxpkt *out, double tmo)
{
	unsigned int got = 0;
	struct rxpkt r;
	double end = now_s() + tmo * O.slow;

	while (got < n && now_s() < end) {
		uint32_t d;

		if (!rx_take(q->my_qpn, op, 0.1, &r))
			continue;
		d = (r.p.psn - q->dut_psn - first) & MR_PSN_MASK;
		if (d >= n)
			continue;
		if (out[d].len)
			continue;	/* a retransmission */
		rx_copy(&out[d], &r);
		got++;
	}
	return got;
}

void ack_fill(struct mr_pkt *a, const struct tqp *q, uint32_t cum, uint32_t msn,
	      const struct rxpkt *trig)
{
	memset(a, 0, sizeof(*a));
	a->opcode = MR_OP_ACK;
	a->path = trig->p.path;
	a->dqpn = q->dut_qpn;
	a->sqpn = q->my_qpn;
	a->ts = ts_now();
	a->akh.cum_psn = cum & MR_PSN_MASK;
	a->akh.msn = msn;
	a->akh.ts_echo = trig->p.ts;
	a->akh.pkt_count = 1;
	a->akh.credit = MR_CREDIT_UNLIMITED;
}

void tx_ack(const struct tqp *q, uint32_t cum, uint32_t msn, const struct rxpkt *trig)
{
	struct mr_pkt a;

	ack_fill(&a, q, cum, msn, trig);
	tx_pkt(&a);
}

/* ------------------------------------------------------------------ */
/* Sending with other IP/UDP fields                                   */

void tx_bytes_ex(const uint8_t *b, uint32_t len, int tos, uint16_t port)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(port ? port : (uint16_t)O.udp_port),
				  .sin_addr.s_addr = DUT.ip };

	if (tos >= 0)
		tx_set_tos((uint8_t)tos);
	if (sendto(s_tx, b, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		fatal("sendto: %s", strerror(errno));
	if (tos >= 0)
		tx_set_tos((MR_DSCP_DEFAULT << 2) | 2);
}

bool tx_bytes_udp_csum(const uint8_t *b, uint32_t len, bool bad_csum)
{
	struct sockaddr_in me = { 0 }, to = { .sin_family = AF_INET, .sin_addr.s_addr = DUT.ip };
	socklen_t ml = sizeof(me);
	uint8_t d[RX_BUF + 8];
	int s, tos = (MR_DSCP_DEFAULT << 2) | 2;
	bool ok;

	if (len > RX_BUF || getsockname(s_tx, (struct sockaddr *)&me, &ml))
		return false;
	s = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	if (s < 0) {
		diag("raw socket: %s", strerror(errno));
		return false;
	}
	setsockopt(s, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	/* The UDP header by hand: from the tester's port to the DUT's. */
	memcpy(d, &me.sin_port, 2);
	d[2] = (uint8_t)(O.udp_port >> 8);
	d[3] = (uint8_t)O.udp_port;
	d[4] = (uint8_t)((len + 8) >> 8);
	d[5] = (uint8_t)(len + 8);
	/* Zero: no checksum (IPv4); else the right one with two bits flipped. */
	d[6] = 0;
	d[7] = 0;
	memcpy(d + 8, b, len);
	if (bad_csum) {
		uint16_t c = udp4_csum((const uint8_t *)&DUT.me,
				       (const uint8_t *)&DUT.ip, d, len + 8);

		if (!c)
			c = 0xFFFF;
		c ^= 0x0101;	/* wrong, and never zero */
		d[6] = (uint8_t)(c >> 8);
		d[7] = (uint8_t)c;
	}
	ok = sendto(s, d, len + 8, 0, (struct sockaddr *)&to, sizeof(to)) == (ssize_t)(len + 8);
	if (!ok)
		diag("raw sendto: %s", strerror(errno));
	close(s);
	return ok;
}

/* @b as the payload of a UDP datagram from the tester's port and @src
 * to the DUT, by a raw IP socket: whole, or (@frag) as two IPv4
 * fragments, the first carrying a multiple of 8 bytes. */
static bool tx_raw_ip(const uint8_t *b, uint32_t len, uint32_t src, bool frag)
{
	struct sockaddr_in me = { 0 }, to = { .sin_family = AF_INET, .sin_addr.s_addr = DUT.ip };
	socklen_t ml = sizeof(me);
	uint8_t d[RX_BUF + 28], f[RX_BUF + 28];
	uint32_t first, rest;
	uint16_t id;
	int s, one = 1;
	bool ok;

	if (len > RX_BUF || getsockname(s_tx, (struct sockaddr *)&me, &ml))
		return false;
	s = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (s < 0 || setsockopt(s, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one))) {
		diag("raw IP socket: %s", strerror(errno));
		if (s >= 0)
			close(s);
		return false;
	}
	/* IPv4 header (the host fills the checksum), UDP checksum zero. */
	memset(d, 0, 28);
	d[0] = 0x45;
	d[1] = (MR_DSCP_DEFAULT << 2) | 2;
	d[2] = (uint8_t)((len + 28) >> 8);
	d[3] = (uint8_t)(len + 28);
	d[8] = 64;
	d[9] = IPPROTO_UDP;
	memcpy(d + 12, &src, 4);
	memcpy(d + 16, &DUT.ip, 4);
	memcpy(d + 20, &me.sin_port, 2);
	d[22] = (uint8_t)(O.udp_port >> 8);
	d[23] = (uint8_t)O.udp_port;
	d[24] = (uint8_t)((len + 8) >> 8);
	d[25] = (uint8_t)(len + 8);
	memcpy(d + 28, b, len);
	if (!frag) {
		ok = sendto(s, d, len + 28, 0, (struct sockaddr *)&to, sizeof(to)) ==
		     (ssize_t)(len + 28);
		goto out;
	}
	/* One identification for both (the receiver reassembles by it). */
	id = (uint16_t)(rand() | 1);
	first = ((len + 8) / 2) & ~7u;
	rest = len + 8 - first;
	d[4] = (uint8_t)(id >> 8);
	d[5] = (uint8_t)id;
	memcpy(f, d, 20);
	d[2] = (uint8_t)((first + 20) >> 8);
	d[3] = (uint8_t)(first + 20);
	d[6] = 0x20;			/* MF, offset 0 */
	memcpy(f + 20, d + 20 + first, rest);
	f[2] = (uint8_t)((rest + 20) >> 8);
	f[3] = (uint8_t)(rest + 20);
	f[6] = (uint8_t)((first / 8) >> 8);
	f[7] = (uint8_t)(first / 8);
	ok = sendto(s, d, first + 20, 0, (struct sockaddr *)&to, sizeof(to)) ==
	     (ssize_t)(first + 20) &&
	     sendto(s, f, rest + 20, 0, (struct sockaddr *)&to, sizeof(to)) ==
	     (ssize_t)(rest + 20);
out:
	if (!ok)
		diag("raw IP sendto: %s", strerror(errno));
	close(s);
	return ok;
}

bool tx_bytes_from(const uint8_t *b, uint32_t len, uint32_t src)
{
	return tx_raw_ip(b, len, src, false);
}

bool tx_bytes_frag(const uint8_t *b, uint32_t len)
{
	return tx_raw_ip(b, len, DUT.me, true);
}

bool tx_bytes_bcast(const uint8_t *b, uint32_t len)
{
	struct ifaddrs *ifa, *i;
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)O.udp_port) };
	int one = 1;
	bool found = false, ok;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && i->ifa_netmask &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == DUT.me) {
			uint32_t m = ((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr;

			to.sin_addr.s_addr = DUT.me | ~m;
			found = m != 0xFFFFFFFFu;
		}
	freeifaddrs(ifa);
	if (!found) {
		diag("no IPv4 subnet broadcast address of the tester's interface");
		return false;
	}
	setsockopt(s_tx, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
	ok = sendto(s_tx, b, len, 0, (struct sockaddr *)&to, sizeof(to)) == (ssize_t)len;
	one = 0;
	setsockopt(s_tx, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
	if (!ok)
		diag("broadcast sendto: %s", strerror(errno));
	return ok;
}
