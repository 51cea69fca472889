// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-hostile: what every mode shares - utilities, packets through the
 * core's codec, sockets and capture, the control channel, the
 * malformations, verbs helpers, per-class accounting (mr-hostile.h).
 */
#include "mr-hostile.h"

struct hopts O = {
	.ib_port = 1, .gid_idx = -1, .ctl_port = "18790", .ifname = "eth0",
	.udp_port = MR_UDP_PORT, .rate = 500, .time_s = 30,
	.mr_size = 256ull << 20, .max_lat_ms = 3000, .connect_timeout = 120,
	.slowdown = 1,
};

const char *role = "?";
unsigned int violations;
double t_start;

/* ------------------------------------------------------------------ */
/* Utilities                                                          */

void say(const char *fmt, ...)
{
	va_list ap;

	printf("mr-hostile[%s]: ", role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "mr-hostile[%s]: error: ", role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void violation(const char *fmt, ...)
{
	va_list ap;

	printf("mr-hostile[%s]: VIOLATION: ", role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	violations++;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* splitmix64: the one PRNG; everything random comes from --seed. */
uint64_t rng;

uint64_t rnd64(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint32_t rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

uint32_t rnd_below(uint32_t n)
{
	return n ? (uint32_t)((rnd64() >> 32) % n) : 0;
}

void rnd_fill(uint8_t *p, size_t n)
{
	while (n) {
		uint64_t v = rnd64();
		size_t k = n < 8 ? n : 8;

		memcpy(p, &v, k);
		p += k;
		n -= k;
	}
}

/* The sender clock of MBH.ts: microseconds plus a random offset (MR-SEC-6). */
uint32_t ts_off;

/* CLOCK_MONOTONIC in microseconds: the module's clock (ktime_get_ns()). */
uint32_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u);
}

uint32_t ts_now(void)
{
	return mono_us() + ts_off;
}

const char *ip_str(uint32_t a)
{
	static char b[4][INET_ADDRSTRLEN];
	static int i;

	i = (i + 1) % 4;
	inet_ntop(AF_INET, &a, b[i], sizeof(b[i]));
	return b[i];
}

void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, (uint32_t)v);
}

/* The memory pattern of the victim's MR: 64-bit word k (little-endian in
 * memory, as on the x86 guests) is unique per k, so a byte out of place is
 * recognised. */
uint64_t pat_word(uint64_t seed, uint64_t k)
{
	return ((k + 1) * 0x9E3779B97F4A7C15ull) ^ seed;
}

uint8_t pat_byte(uint64_t seed, uint64_t off)
{
	return (uint8_t)(pat_word(seed, off >> 3) >> ((off & 7) * 8));
}

void pat_fill(uint8_t *p, uint64_t seed, uint64_t off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pat_byte(seed, off + i);
}

/* Index of the first byte of @p that is not the pattern at @off, or @n.
 * Word by word where aligned: READ responses of a whole MR pass here. */
size_t pat_check(const uint8_t *p, uint64_t seed, uint64_t off, size_t n)
{
	size_t i = 0;

	for (; i < n && ((off + i) & 7); i++)
		if (p[i] != pat_byte(seed, off + i))
			return i;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		if (w != pat_word(seed, (off + i) >> 3))
			break;
	}
	for (; i < n; i++)
		if (p[i] != pat_byte(seed, off + i))
			return i;
	return n;
}

uint64_t parse_size(const char *s, const char *what)
{
	char *e;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &e, 0);
	if (errno || e == s)
		die("%s: bad number '%s'", what, s);
	switch (*e) {
	case 'k': case 'K': v <<= 10; e++; break;
	case 'm': case 'M': v <<= 20; e++; break;
	case 'g': case 'G': v <<= 30; e++; break;
	default: break;
	}
	if (*e)
		die("%s: bad number '%s'", what, s);
	return v;
}

/* ------------------------------------------------------------------ */
/* Packets through the core's codec                                   */

/* Byte offset of extension header @which in packets of @op (0: none).
 * The headers follow the MBH in the canonical order of enum mr_hdr_bit
 * (MR-HDR-1, MR-HDR-2). */
uint32_t hoff(uint8_t op, uint16_t which)
{
	static const struct { uint16_t bit, len; } order[] = {
		{ MR_HDR_DETH, MR_DETH_LEN }, { MR_HDR_DXH, MR_DXH_LEN },
		{ MR_HDR_RXH, MR_RXH_LEN }, { MR_HDR_AXH, MR_AXH_LEN },
		{ MR_HDR_IETH, MR_IETH_LEN }, { MR_HDR_IMM, MR_IMM_LEN },
		{ MR_HDR_AKH, MR_AKH_LEN }, { MR_HDR_NKH, MR_NKH_LEN },
		{ MR_HDR_ATKH, MR_ATKH_LEN },
	};
	const struct mr_op_desc *d = mr_op_desc(op);
	uint32_t off = MR_MBH_LEN;

	if (!d || !(d->hdrs & which))
		return 0;
	for (size_t i = 0; i < MR_ARRAY_SIZE(order); i++) {
		if (order[i].bit == which)
			return off;
		if (d->hdrs & order[i].bit)
			off += order[i].len;
	}
	return 0;
}

/* Encode @p (the core validates it: a refusal is a bug of this tool). */
uint32_t enc(const struct mr_pkt *p, uint8_t *buf, uint32_t cap)
{
	int n = mr_pkt_encode(p, buf, cap);

	if (n < 0)
		die("internal: the core's encoder refused opcode %#x psn %#x off %u len %u plen %u flags %#x: %s",
		    p->opcode, p->psn, p->dxh.offset, p->dxh.msg_len,
		    p->payload_len, p->flags, mr_err_name(n));
	return (uint32_t)n;
}

/* Recompute the ICRC after patching header bytes. */
void icrc_fix(uint8_t *buf, uint32_t len)
{
	if (len >= MR_ICRC_LEN)
		mr_icrc_put(buf, len - MR_ICRC_LEN);
}

/* Make sure the ICRC of @buf is wrong (a mutation may leave it right). */
void icrc_break(uint8_t *buf, uint32_t len)
{
	if (len >= MR_ICRC_LEN && !mr_icrc_check(buf, len))
		buf[len - 1 - rnd_below(MR_ICRC_LEN)] ^= (uint8_t)(1u << rnd_below(8));
}

const uint8_t req_ops[8] = {
	MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV, MR_OP_WRITE,
	MR_OP_WRITE_IMM, MR_OP_READ_REQ, MR_OP_ATOMIC_CS, MR_OP_ATOMIC_FA,
};

/* Flags the opcode allows, among @want, plus FIRST/LAST as the message
 * position requires (MR-HDR-4, MR-HDR-22, MR-HDR-23). */
uint16_t req_flags(uint8_t op, uint16_t want, uint32_t off,
			  uint32_t plen, uint32_t msg_len)
{
	const struct mr_op_desc *d = mr_op_desc(op);
	uint16_t f = want & d->flags_ok & ~(MR_F_FIRST | MR_F_LAST);

	if (d->attrs & MR_OPA_MULTI) {
		if (!off)
			f |= MR_F_FIRST;
		if ((uint64_t)off + plen == msg_len)
			f |= MR_F_LAST;
	} else {
		f |= MR_F_FIRST | MR_F_LAST;
	}
	return f;
}

/*
 * A random request packet that the core accepts: packet @k of a message of
 * opcode @op, random lengths, keys and addresses (no address wrap). The
 * payload goes to @pl (at least PMTU bytes).
 */
void rand_req(struct mr_pkt *p, uint8_t op, uint32_t dqpn, uint32_t sqpn,
		     uint32_t psn, uint8_t *pl)
{
	const struct mr_op_desc *d = mr_op_desc(op);

	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->dqpn = dqpn & MR_QPN_MASK;
	p->sqpn = sqpn & MR_QPN_MASK;
	p->psn = psn & MR_PSN_MASK;
	p->path = (uint8_t)rnd_below(MR_MAX_PATHS);
	p->ts = rnd32();
	p->dxh.msn = rnd32();
	if (d->attrs & MR_OPA_SSN)
		p->dxh.ssn = rnd32();
	if (d->attrs & MR_OPA_MULTI) {
		uint32_t len = rnd_below(4) ? rnd_below(8192) : rnd32() % (MR_MAX_MSG_LEN + 1);
		uint32_t npk = len ? (len - 1) / PMTU + 1 : 1;
		uint32_t k = rnd_below(4) ? rnd_below(npk < 4 ? npk : 4) : rnd_below(npk);

		p->dxh.msg_len = len;
		p->dxh.offset = k * PMTU;
		p->payload_len = len ? (len - p->dxh.offset < PMTU ? len - p->dxh.offset : PMTU) : 0;
		rnd_fill(pl, p->payload_len);
		p->payload = pl;
	} else if (op == MR_OP_READ_REQ) {
		p->dxh.msg_len = rnd_below(2) ? rnd_below(1 << 20) + 1 : rnd32() % MR_MAX_MSG_LEN + 1;
		p->dxh.offset = rnd_below(3) ? 0 :
			rnd_below(MR_MAX_MSG_LEN - p->dxh.msg_len + 1);
	} else {
		p->dxh.msg_len = MR_ATOMIC_LEN;
	}
	if (d->hdrs & MR_HDR_RXH) {
		p->rxh.va = rnd64() >> 2;
		p->rxh.rkey = rnd32();
	}
	if (d->hdrs & MR_HDR_AXH) {
		p->axh.va = (rnd64() >> 2) & ~7ull;
		p->axh.rkey = rnd32();
		p->axh.swap_add = rnd64();
		if (op == MR_OP_ATOMIC_CS)
			p->axh.compare = rnd64();
	}
	p->imm = rnd32();
	p->inv_rkey = rnd32();
	p->flags = req_flags(op, (uint16_t)(rnd32() & (MR_F_ACKREQ | MR_F_RETX | MR_F_SE)),
			     p->dxh.offset, p->payload_len, p->dxh.msg_len);
}

/* A random ACK or NACK (valid encoding) with cum_psn / nack_psn given. */
void rand_ack(struct mr_pkt *p, bool nack, uint32_t dqpn, uint32_t sqpn,
		     uint32_t cum, uint32_t nack_psn)
{
	memset(p, 0, sizeof(*p));
	p->opcode = nack ? MR_OP_NACK : MR_OP_ACK;
	p->dqpn = dqpn & MR_QPN_MASK;
	p->sqpn = sqpn & MR_QPN_MASK;
	p->path = (uint8_t)rnd_below(MR_MAX_PATHS);
	p->ts = rnd32();
	p->flags = rnd_below(4) ? 0 : MR_F_ECE;
	p->akh.cum_psn = cum & MR_PSN_MASK;
	p->akh.msn = rnd32();
	p->akh.ts_echo = rnd32();
	p->akh.ce_count = (uint16_t)rnd32();
	p->akh.pkt_count = (uint16_t)rnd32();
	switch (rnd_below(4)) {
	case 0: p->akh.credit = 0; break;
	case 1: p->akh.credit = 1; break;
	case 2: p->akh.credit = MR_CREDIT_UNLIMITED; break;
	default: p->akh.credit = rnd32(); break;
	}
	for (int i = 0; i < MR_SACK_WORDS; i++)
		p->akh.sack[i] = rnd_below(2) ? rnd64() : 0;
	p->akh.sack[0] &= ~1ull;
	if (nack) {
		p->nkh.reason = (uint8_t)(MR_NACK_TRIMMED + rnd_below(6));
		if (p->nkh.reason == MR_NACK_RNR)
			p->nkh.rnr_timer = (uint8_t)rnd_below(MR_RNR_TIMER_MAX + 1);
		p->nkh.nack_psn = nack_psn & MR_PSN_MASK;
	}
}

/* ------------------------------------------------------------------ */
/* Network: UDP, raw IPv4, AF_PACKET capture                          */

struct hnet N = { .udp = -1, .udp2 = -1, .raw = -1, .cap = -1 };

/* Per-class accounting. */
struct cls_stat cstat[MAX_CLASSES];
int cur_cls;

static double pace_next;

/* Wait for the next send slot of the --rate budget, serving the capture
 * and the control channel meanwhile. */
static void pace(void)
{
	double t = now_s();

	if (N.dry)
		return;
	if (pace_next < t - 0.05)
		pace_next = t;
	pace_next += 1.0 / O.rate;
	while ((t = now_s()) < pace_next)
		service(pace_next - t);
}

static void count_tx(uint32_t len)
{
	cstat[cur_cls].pkts++;
	cstat[cur_cls].bytes += len;
}

bool (*tx_guard)(const uint8_t *pkt, uint32_t len, uint32_t src, bool replay);
uint64_t guard_refused;

/* Send @pkt (MBH..ICRC) from this host's address through a UDP socket
 * (@alt: the insider's second socket). */
void tx_udp_sock(const uint8_t *pkt, uint32_t len, bool alt, bool replay)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)O.udp_port),
				  .sin_addr.s_addr = N.peer };

	if (tx_guard && !tx_guard(pkt, len, N.me, replay)) {
		cstat[cur_cls].refused++;
		return;
	}
	pace();
	count_tx(len);
	if (N.dry)
		return;
	if (sendto(alt ? N.udp2 : N.udp, pkt, len, 0, (struct sockaddr *)&to,
		   sizeof(to)) < 0 && errno != ENOBUFS && errno != EAGAIN)
		die("sendto(UDP): %s", strerror(errno));
}

void tx_udp(const uint8_t *pkt, uint32_t len)
{
	tx_udp_sock(pkt, len, false, false);
}


/* One UDP datagram through the raw IPv4 socket (IP_HDRINCL: the kernel
 * fills the IP checksum and total length, MR-ENC-7's DF is ours). */
void tx_raw(const uint8_t *pkt, uint32_t len, const struct rawopt *o)
{
	static uint8_t b[4096];
	struct iphdr *ip = (struct iphdr *)b;
	struct udphdr *uh = (struct udphdr *)(b + sizeof(*ip));
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = N.peer };
	uint32_t src = o->src ? o->src : N.me;
	uint32_t dlen = (uint32_t)sizeof(*uh) + len, tl = o->tail_len;
	uint16_t sport = o->sport ? o->sport :
		(uint16_t)(SP_OFFPATH + rnd_below(SP_OFFPATH_END - SP_OFFPATH + 1));

	if (sizeof(*ip) + dlen + tl > sizeof(b))
		die("internal: raw packet too long");
	if (tx_guard && !tx_guard(pkt, len, src, o->replay)) {
		cstat[cur_cls].refused++;
		return;
	}
	memset(b, 0, sizeof(*ip) + sizeof(*uh));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = src;
	ip->daddr = N.peer;
	ip->id = htons((uint16_t)rnd32() | 1);
	uh->source = htons(sport);
	uh->dest = htons((uint16_t)O.udp_port);
	uh->len = htons((uint16_t)((int)dlen + o->ulen_adj));
	uh->check = o->ucsum;
	memcpy(b + sizeof(*ip) + sizeof(*uh), pkt, len);
	if (tl)
		memcpy(b + sizeof(*ip) + dlen, o->tail, tl);
	dlen += tl;

	if (!o->frag) {
		ip->frag_off = htons(IP_DF);
		ip->tot_len = htons((uint16_t)(sizeof(*ip) + dlen));
		pace();
		count_tx(len);
		if (!N.dry && sendto(N.raw, b, sizeof(*ip) + dlen, 0,
				     (struct sockaddr *)&to, sizeof(to)) < 0 &&
		    errno != ENOBUFS && errno != EAGAIN && errno != EPERM)
			die("sendto(raw): %s", strerror(errno));
		return;
	}

	/* Two fragments of the datagram, the first a multiple of 8 bytes. */
	{
		uint32_t f1 = (dlen / 2) & ~7u;
		uint8_t fb[2][4096];
		uint32_t fl[2];

		if (f1 < 8)
			f1 = 8;
		for (int i = 0; i < 2; i++) {
			struct iphdr *fi = (struct iphdr *)fb[i];
			uint32_t off = i ? f1 : 0, n = i ? dlen - f1 : f1;

			memcpy(fi, ip, sizeof(*ip));
			fi->frag_off = htons((uint16_t)((i ? 0 : IP_MF) | (off / 8)));
			memcpy(fb[i] + sizeof(*ip), b + sizeof(*ip) + off, n);
			fl[i] = (uint32_t)sizeof(*ip) + n;
			fi->tot_len = htons((uint16_t)fl[i]);
		}
		for (int k = 0; k < 2; k++) {
			int i = o->frag == 2 ? 1 - k : k;

			pace();
			count_tx(fl[i]);
			if (!N.dry && sendto(N.raw, fb[i], fl[i], 0,
					     (struct sockaddr *)&to, sizeof(to)) < 0 &&
			    errno != ENOBUFS && errno != EAGAIN && errno != EPERM)
				die("sendto(raw fragment): %s", strerror(errno));
		}
	}
}

static int udp_bind_range(uint16_t lo, uint16_t hi, uint16_t *port)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		die("socket(UDP): %s", strerror(errno));
	for (int i = 0; i < 200; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET };
		uint16_t p = (uint16_t)(lo + rnd_below(hi - lo + 1));

		a.sin_port = htons(p);
		if (!bind(s, (struct sockaddr *)&a, sizeof(a))) {
			*port = p;
			fcntl(s, F_SETFL, O_NONBLOCK);
			return s;
		}
	}
	die("no free UDP port in %u..%u", lo, hi);
}

/*
 * An AF_PACKET socket on @ifindex that sees only what @fp passes. It is
 * opened with protocol 0, which hooks it to no packet type, and gets its
 * protocol (all) at bind(), after the filter: a socket opened for
 * ETH_P_ALL would queue every frame of every interface, unfiltered, until
 * the filter and the bind are in place, and its readers would count them.
 */
int capture_open(int ifindex, const struct sock_fprog *fp)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ALL),
				  .sll_ifindex = ifindex };
	int c;

	c = socket(AF_PACKET, SOCK_RAW, 0);
	if (c < 0)
		die("socket(AF_PACKET): %s (needs CAP_NET_RAW)", strerror(errno));
	if (setsockopt(c, SOL_SOCKET, SO_ATTACH_FILTER, fp, sizeof(*fp)))
		die("SO_ATTACH_FILTER: %s", strerror(errno));
	/* When each frame was captured (cap_lag_us). */
	if (setsockopt(c, SOL_SOCKET, SO_TIMESTAMPNS, &(int){ 1 }, sizeof(int)))
		die("SO_TIMESTAMPNS: %s", strerror(errno));
	if (bind(c, (struct sockaddr *)&ll, sizeof(ll)))
		die("bind(AF_PACKET, ifindex %d): %s", ifindex, strerror(errno));
	return c;
}

/*
 * Selftest of capture_open(): while a child floods the loopback with UDP,
 * sockets opened on lo with a filter that passes nothing must read
 * nothing. A socket hooked to all frames before its filter is attached
 * queues some of the flood in that gap (--count then saw source ports no
 * packet of the peer had). Needs CAP_NET_RAW, like every capture.
 */
void capture_selftest(void)
{
	struct sock_filter none[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog fp = { .len = 1, .filter = none };
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(9),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int lo = (int)if_nametoindex("lo");
	unsigned int leaked = 0;
	uint8_t f[256];
	pid_t child;
	int i, c;

	if (!lo)
		die("selftest: no loopback interface");
	child = fork();
	if (child < 0)
		die("selftest: fork: %s", strerror(errno));
	if (child == 0) {
		int u = socket(AF_INET, SOCK_DGRAM, 0);
		double end = now_s() + 5;

		while (u >= 0 && now_s() < end)
			sendto(u, "x", 1, 0, (struct sockaddr *)&to, sizeof(to));
		_exit(0);
	}
	usleep(50000);
	for (i = 0; i < 200; i++) {
		c = capture_open(lo, &fp);
		usleep(1000);
		while (recv(c, f, sizeof(f), MSG_DONTWAIT) > 0)
			leaked++;
		close(c);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (leaked)
		die("selftest: %u frames read through a filter that passes none",
		    leaked);
	say("capture: 200 sockets on a flooded lo read nothing past their filter");
}

/* Open the sockets towards @peer; capture on O.ifname. */
void net_open(const char *peer, uint16_t plo, uint16_t phi, bool two)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)O.udp_port) };
	socklen_t al = sizeof(a);
	int s;

	if (inet_pton(AF_INET, peer, &a.sin_addr) != 1)
		die("'%s' is not an IPv4 address", peer);
	N.peer = a.sin_addr.s_addr;
	/* Our own address: the one the route to the peer uses. */
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &al))
		die("no route to %s: %s", peer, strerror(errno));
	N.me = a.sin_addr.s_addr;
	close(s);
	if (N.dry)
		return;
	if (two) {
		N.udp = udp_bind_range(plo, (uint16_t)(plo + (phi - plo) / 2), &N.sport);
		N.udp2 = udp_bind_range((uint16_t)(plo + (phi - plo) / 2 + 1), phi, &N.sport2);
	} else {
		N.udp = udp_bind_range(plo, phi, &N.sport);
	}
	N.raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (N.raw < 0)
		die("socket(raw IPv4): %s (needs CAP_NET_RAW)", strerror(errno));
	N.ifindex = (int)if_nametoindex(O.ifname);
	if (!N.ifindex)
		die("no interface %s", O.ifname);
	{
		/* "udp dst port PORT", unfragmented IPv4: the kernel hands
		 * this socket nothing else. */
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 8),
			BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 6),
			BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20),
			BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 4, 0),
			BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
			BPF_STMT(BPF_LD | BPF_H | BPF_IND, 16),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)O.udp_port, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, 0xffff),
			BPF_STMT(BPF_RET | BPF_K, 0),
		};
		struct sock_fprog fp = { .len = MR_ARRAY_SIZE(f), .filter = f };

		N.cap = capture_open(N.ifindex, &fp);
	}
	fcntl(N.cap, F_SETFL, O_NONBLOCK);
}

/* ------------------------------------------------------------------ */
/* What the capture learns                                            */

/* One direction of a QP pair: packets from @sqpn at @src to @dqpn at @dst. */
struct flow flows[MAX_FLOWS];

static struct flow *flow_find(uint32_t src, uint32_t dst, uint32_t sqpn,
			      uint32_t dqpn)
{
	for (int i = 0; i < MAX_FLOWS; i++) {
		struct flow *f = &flows[i];

		if (f->used && f->src == src && f->dst == dst &&
		    f->sqpn == sqpn && f->dqpn == dqpn)
			return f;
	}
	return NULL;
}

void flow_learn(uint32_t src, uint32_t dst, const struct mr_pkt *p)
{
	const struct mr_op_desc *d = mr_op_desc(p->opcode);
	struct flow *f = flow_find(src, dst, p->sqpn, p->dqpn);

	if (p->opcode == MR_OP_UD_SEND || p->opcode == MR_OP_UD_SEND_IMM)
		return;
	if (!f) {
		struct flow *old = &flows[0];

		for (int i = 0; i < MAX_FLOWS; i++) {
			if (!flows[i].used) {
				old = &flows[i];
				break;
			}
			if (flows[i].t < old->t)
				old = &flows[i];
		}
		f = old;
		memset(f, 0, sizeof(*f));
		f->used = true;
		f->src = src;
		f->dst = dst;
		f->sqpn = p->sqpn;
		f->dqpn = p->dqpn;
	}
	f->t = now_s();
	f->pkts++;
	if (d->attrs & MR_OPA_REQ) {
		if (!f->have_req || mr_psn_after(p->psn, f->req_psn))
			f->req_psn = p->psn;
		f->have_req = true;
		/* The requester's clock, from its newest request. */
		if (!f->have_ts || (int32_t)(p->ts - f->ts) > 0) {
			f->ts = p->ts;
			f->ts_t = f->t;
			f->have_ts = true;
		}
	} else if (p->opcode == MR_OP_ACK || p->opcode == MR_OP_NACK) {
		if (!f->have_cum || mr_psn_after(p->akh.cum_psn, f->cum))
			f->cum = p->akh.cum_psn;
		f->have_cum = true;
	}
}

bool flow_clock(uint32_t src, uint32_t dst, uint32_t sqpn, uint32_t dqpn,
		uint32_t *ts)
{
	const struct flow *f = flow_find(src, dst, sqpn, dqpn);

	if (!f || !f->have_ts)
		return false;
	*ts = f->ts + (uint32_t)((now_s() - f->ts_t) * 1e6);
	return true;
}

/*
 * Where the live window of the QP pair (@dqpn at @dst, @sqpn at @src) is,
 * for a packet of kind @ack (false: a request to responder @dqpn; true: an
 * ACK/NACK/response to requester @dqpn). 0: the pair was never seen;
 * 1: *ref is the window's PSN; -1: the pair is live, the window unknown.
 */
int pair_ref(uint32_t src, uint32_t dst, uint32_t sqpn, uint32_t dqpn,
		    bool ack, uint32_t *ref)
{
	struct flow *fw = flow_find(src, dst, sqpn, dqpn);
	struct flow *bw = flow_find(dst, src, dqpn, sqpn);

	if (!fw && !bw)
		return 0;
	if (!ack) {
		if (fw && fw->have_req) {
			*ref = fw->req_psn;
			return 1;
		}
		if (bw && bw->have_cum) {
			*ref = bw->cum;
			return 1;
		}
	} else {
		if (bw && bw->have_req) {
			*ref = bw->req_psn;
			return 1;
		}
		if (fw && fw->have_cum) {
			*ref = fw->cum;
			return 1;
		}
	}
	return -1;
}

/* Outgoing packets of the module to the peer, for replays. */
struct cap_pkt ring[RING_LEN];
unsigned int ring_n;

/* Hook for the insider: every MetaRoCE packet seen that decodes (@raw,
 * @len: MBH..ICRC, for the ICRC check of what it relies on). */
void (*cap_hook)(uint32_t src, uint32_t dst, uint16_t sport,
		 const struct mr_pkt *p, const uint8_t *raw, uint32_t len);
uint64_t cap_seen, cap_learned;
/* How long before now the frame being handled was captured. */
uint32_t cap_lag_us;

static void cap_one(const uint8_t *f, uint32_t n, bool outgoing)
{
	uint32_t off = ETH_HLEN, ihl, ulen, mlen;
	uint16_t et, sport, dport, fragoff;
	const uint8_t *ip, *u;
	uint32_t src, dst;
	struct mr_pkt p;
	int err;

	if (n < ETH_HLEN)
		return;
	et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == ETH_P_8021Q && n >= ETH_HLEN + 4) {
		et = (uint16_t)(f[16] << 8 | f[17]);
		off += 4;
	}
	if (et != ETH_P_IP || n < off + 20)
		return;
	ip = f + off;
	ihl = (ip[0] & 15u) * 4;
	fragoff = (uint16_t)((ip[6] << 8 | ip[7]) & 0x3fff);
	if ((ip[0] >> 4) != 4 || ihl < 20 || ip[9] != IPPROTO_UDP || fragoff ||
	    n < off + ihl + 8)
		return;
	u = ip + ihl;
	sport = (uint16_t)(u[0] << 8 | u[1]);
	dport = (uint16_t)(u[2] << 8 | u[3]);
	ulen = (uint32_t)(u[4] << 8 | u[5]);
	if (dport != O.udp_port || ulen < 8 || n < off + ihl + ulen)
		return;
	memcpy(&src, ip + 12, 4);
	memcpy(&dst, ip + 16, 4);
	mlen = ulen - 8;
	cap_seen++;
	/* Headers only: the ICRC costs too much for every packet of a TCG
	 * guest, and the module's packets are not corrupted on this link. */
	err = mr_pkt_decode(u + 8, mlen, &p);
	if (err)
		return;
	/* Learn only from the module (0xC000..) and the insider's valid packets. */
	if (sport >= MR_ENTROPY_BASE ||
	    (sport >= SP_INS_VALID && sport < SP_INS_ATTACK)) {
		flow_learn(src, dst, &p);
		cap_learned++;
		if (outgoing && sport >= MR_ENTROPY_BASE && dst == N.peer &&
		    mlen <= CAP_MAX) {
			struct cap_pkt *c = &ring[ring_n++ % RING_LEN];

			c->t = now_s();
			c->len = mlen;
			memcpy(c->b, u + 8, mlen);
		}
	}
	if (cap_hook)
		cap_hook(src, dst, sport, &p, u + 8, mlen);
}

/*
 * The capture time of the frame @m received, as a lag behind now: the
 * kernel stamps a frame when the capture gets it (CLOCK_REALTIME), which
 * for the module's own packets is about when it sent them, however late
 * this process reads them. 0 if the frame carries no stamp.
 */
static uint32_t cap_lag(struct msghdr *m)
{
	struct timespec now, ts;
	struct cmsghdr *c;
	int64_t d;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		clock_gettime(CLOCK_REALTIME, &now);
		d = ((int64_t)now.tv_sec - ts.tv_sec) * 1000000 +
		    (now.tv_nsec - ts.tv_nsec) / 1000;
		return d < 0 ? 0 : d > 10000000 ? 10000000 : (uint32_t)d;
	}
	return 0;
}

void cap_drain(void)
{
	uint8_t f[4096];
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(struct timespec))];
	} ctl_buf;

	if (N.cap < 0)
		return;
	for (int i = 0; i < 512; i++) {
		struct sockaddr_ll sll;
		struct iovec iov = { .iov_base = f, .iov_len = sizeof(f) };
		struct msghdr m = { .msg_name = &sll, .msg_namelen = sizeof(sll),
				    .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = ctl_buf.b,
				    .msg_controllen = sizeof(ctl_buf.b) };
		ssize_t n = recvmsg(N.cap, &m, MSG_DONTWAIT);

		if (n <= 0)
			break;
		cap_lag_us = cap_lag(&m);
		cap_one(f, (uint32_t)n, sll.sll_pkttype == PACKET_OUTGOING);
	}
}

/* ------------------------------------------------------------------ */
/* Control channel (TCP, one text line per message)                   */

int ctl = -1;
bool ctl_eof;
static char ctl_in[16384];
static size_t ctl_inl;
char lq[LQ_LEN][512];
int lq_n;
/* Lines consumed at once (the insider's PONGs); false: queue it. */
bool (*ctl_line_hook)(const char *line);
void (*svc_hook)(void);

void ctl_send(const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	size_t n, o = 0;

	va_start(ap, fmt);
	n = (size_t)vsnprintf(b, sizeof(b) - 1, fmt, ap);
	va_end(ap);
	if (n > sizeof(b) - 2)
		n = sizeof(b) - 2;
	b[n++] = '\n';
	while (o < n && ctl >= 0) {
		ssize_t w = send(ctl, b + o, n - o, MSG_NOSIGNAL);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd pf = { .fd = ctl, .events = POLLOUT };

			poll(&pf, 1, 100);
			continue;
		}
		if (w <= 0) {
			ctl_eof = true;
			return;
		}
		o += (size_t)w;
	}
}

void ctl_read(void)
{
	char *nl;

	if (ctl < 0 || ctl_eof)
		return;
	for (;;) {
		ssize_t r = recv(ctl, ctl_in + ctl_inl, sizeof(ctl_in) - 1 - ctl_inl,
				 MSG_DONTWAIT);

		if (r == 0) {
			ctl_eof = true;
			break;
		}
		if (r < 0)
			break;
		ctl_inl += (size_t)r;
		if (ctl_inl >= sizeof(ctl_in) - 1)
			break;
	}
	ctl_in[ctl_inl] = 0;
	while ((nl = strchr(ctl_in, '\n'))) {
		size_t ll = (size_t)(nl - ctl_in);

		*nl = 0;
		if (!ctl_line_hook || !ctl_line_hook(ctl_in)) {
			if (lq_n < LQ_LEN) {
				size_t c = ll < sizeof(lq[0]) - 1 ? ll : sizeof(lq[0]) - 1;

				memcpy(lq[lq_n], ctl_in, c);
				lq[lq_n++][c] = 0;
			}
		}
		memmove(ctl_in, nl + 1, ctl_inl - ll - 1);
		ctl_inl -= ll + 1;
		ctl_in[ctl_inl] = 0;
	}
}

void lq_copy(char *out, size_t n, const char *l)
{
	size_t c = strnlen(l, n - 1);

	memcpy(out, l, c);
	out[c] = 0;
}

/* Take the first queued line starting with @prefix into @out. */
bool ctl_take(const char *prefix, char *out, size_t n)
{
	for (int i = 0; i < lq_n; i++) {
		if (strncmp(lq[i], prefix, strlen(prefix)))
			continue;
		lq_copy(out, n, lq[i]);
		memmove(lq[i], lq[i + 1], (size_t)(lq_n - i - 1) * sizeof(lq[0]));
		lq_n--;
		return true;
	}
	return false;
}

/* Wait up to @tmo seconds for a line starting with @prefix. */
bool ctl_wait(const char *prefix, char *out, size_t n, double tmo)
{
	double end = now_s() + tmo;

	while (!ctl_take(prefix, out, n)) {
		if (ctl_eof || now_s() > end)
			return false;
		service(0.01);
	}
	return true;
}

void service(double dt)
{
	struct pollfd pf[2];
	struct timespec ts;
	nfds_t n = 0;

	if (dt < 0)
		dt = 0;
	if (dt > 1)
		dt = 1;
	ts.tv_sec = (time_t)dt;
	ts.tv_nsec = (long)((dt - (double)ts.tv_sec) * 1e9);
	if (N.cap >= 0)
		pf[n++] = (struct pollfd){ .fd = N.cap, .events = POLLIN };
	if (ctl >= 0 && !ctl_eof)
		pf[n++] = (struct pollfd){ .fd = ctl, .events = POLLIN };
	if (n)
		ppoll(pf, n, &ts, NULL);
	else
		nanosleep(&ts, NULL);
	cap_drain();
	ctl_read();
	if (svc_hook)
		svc_hook();
}

/* ------------------------------------------------------------------ */
/* Malformed headers: one valid encoding, then one field broken       */

const char *const mf_name[MF_NUM] = {
	"version", "rsvd_nibble", "opcode", "psn_rsvd", "sqpn_rsvd", "path",
	"flags", "flags_rsvd", "first_last", "msg_len", "offset", "ssn",
	"rxh_rsvd", "atomic_len", "atomic_align", "read_range", "va_wrap",
	"payload_extra", "payload_empty", "hdr_len", "ack_psn", "sack_bit0",
	"cum_rsvd", "nack_reason", "rnr_timer", "nkh_rsvd", "deth_sqpn",
	"trunc_mbh", "resp_atomic", "probe_flags",
};

/* A request of @op that the core accepts, from the base. */
static void mb_req(const struct mbase *m, struct mr_pkt *p, uint8_t op,
		   uint8_t *pl)
{
	rand_req(p, op, m->rq_dqpn, m->rq_sqpn, m->rq_psn, pl);
	p->ts = ts_now();
	if (mr_op_desc(op)->attrs & MR_OPA_MULTI) {
		p->dxh.msg_len = 2 * PMTU;
		p->dxh.offset = 0;
		p->payload_len = PMTU;
		p->payload = pl;
		p->flags = req_flags(op, p->flags, 0, PMTU, 2 * PMTU);
	} else if (op == MR_OP_READ_REQ) {
		p->dxh.offset = 0;
		p->dxh.msg_len = 4096;
	}
	if (m->insider) {
		p->rxh.va = m->va;
		p->rxh.rkey = m->rkey;
		p->axh.va = m->va & ~7ull;
		p->axh.rkey = m->rkey;
		p->axh.swap_add = 0;
		p->axh.compare = 0;
		if (op == MR_OP_ATOMIC_CS)
			p->opcode = MR_OP_ATOMIC_FA;
		if (mr_op_desc(op)->attrs & MR_OPA_MULTI)
			pat_fill(pl, m->pseed, m->va - m->mr_base, p->payload_len);
	}
}

static uint8_t unassigned[256];
static unsigned int n_unassigned;

/*
 * Malformed packet number @k (case k % MF_NUM, variant k / MF_NUM) into
 * @b. Returns its length; *@name the case. The core's decoder must reject
 * it with the error the case names (checked here: a malformation that the
 * decoder accepts would be an on-path forgery), except flags_rsvd, which
 * MR-VER-2 makes a valid packet (*@valid set).
 */
uint32_t malform(unsigned int k, const struct mbase *m, uint8_t *b,
			uint32_t cap, const char **name, bool *valid)
{
	unsigned int c = k % MF_NUM, v = k / MF_NUM;
	uint8_t pl[2 * PMTU];
	struct mr_pkt p, chk;
	uint32_t n, o;
	int want = 0, got;

	if (!n_unassigned)
		for (int i = 0; i < 256; i++)
			if (!mr_op_desc((uint8_t)i))
				unassigned[n_unassigned++] = (uint8_t)i;
	*name = mf_name[c];
	*valid = false;
	switch (c) {
	case MF_VERSION:
		mb_req(m, &p, req_ops[v % 8], pl);
		n = enc(&p, b, cap);
		b[0] = (uint8_t)(((v % 15) ? (v % 15) + 1 : 0) << 4);
		want = MR_ERR_VERSION;
		break;
	case MF_RSVD_NIBBLE:
		mb_req(m, &p, req_ops[v % 8], pl);
		n = enc(&p, b, cap);
		b[0] = (uint8_t)(MR_VERSION << 4 | (1 + v % 15));
		want = MR_ERR_RSVD;
		break;
	case MF_OPCODE:
		mb_req(m, &p, req_ops[v % 8], pl);
		n = enc(&p, b, cap);
		b[1] = unassigned[v % n_unassigned];
		want = MR_ERR_OPCODE;
		break;
	case MF_PSN_RSVD:
	case MF_SQPN_RSVD:
		mb_req(m, &p, req_ops[v % 8], pl);
		n = enc(&p, b, cap);
		b[c == MF_PSN_RSVD ? 8 : 12] = (uint8_t)(1 + v % 255);
		want = MR_ERR_RSVD;
		break;
	case MF_PATH:
		mb_req(m, &p, req_ops[v % 8], pl);
		n = enc(&p, b, cap);
		b[4] = (uint8_t)(MR_MAX_PATHS + v % (256 - MR_MAX_PATHS));
		want = MR_ERR_FIELD;
		break;
	case MF_FLAGS: {
		static const struct { uint8_t op; uint16_t f; } bad[] = {
			{ MR_OP_WRITE, MR_F_SE }, { MR_OP_READ_REQ, MR_F_TRIM },
			{ MR_OP_ATOMIC_FA, MR_F_SE }, { MR_OP_SEND, MR_F_ECE },
			{ MR_OP_READ_REQ, MR_F_ECE }, { MR_OP_ATOMIC_CS, MR_F_TRIM },
		};
		mb_req(m, &p, bad[v % 6].op, pl);
		n = enc(&p, b, cap);
		b[3] |= (uint8_t)bad[v % 6].f;
		want = MR_ERR_FLAGS;
		break;
	}
	case MF_FLAGS_RSVD:
		mb_req(m, &p, req_ops[v % 8], pl);
		n = enc(&p, b, cap);
		if (v % 9 == 8)
			b[3] |= 0x80;
		else
			b[2] |= (uint8_t)(1u << (v % 8));
		want = 0;
		*valid = true;
		break;
	case MF_FIRST_LAST:
		switch (v % 4) {
		case 0:
			mb_req(m, &p, MR_OP_READ_REQ, pl);
			n = enc(&p, b, cap);
			b[3] &= (uint8_t)~MR_F_LAST;
			break;
		case 1:
			mb_req(m, &p, MR_OP_ATOMIC_FA, pl);
			n = enc(&p, b, cap);
			b[3] &= (uint8_t)~MR_F_FIRST;
			break;
		case 2:
			mb_req(m, &p, MR_OP_WRITE, pl);
			n = enc(&p, b, cap);
			b[3] &= (uint8_t)~MR_F_FIRST;
			break;
		default:
			/* The second packet of a 2-PMTU WRITE claiming FIRST. */
			mb_req(m, &p, MR_OP_WRITE, pl);
			p.dxh.offset = PMTU;
			p.flags = req_flags(MR_OP_WRITE, 0, PMTU, PMTU, 2 * PMTU);
			n = enc(&p, b, cap);
			b[3] |= MR_F_FIRST;
			break;
		}
		want = MR_ERR_FLAGS;
		break;
	case MF_MSG_LEN:
		mb_req(m, &p, v % 2 ? MR_OP_READ_REQ : MR_OP_WRITE, pl);
		n = enc(&p, b, cap);
		put_be32(b + hoff(p.opcode, MR_HDR_DXH) + 8,
			 MR_MAX_MSG_LEN + 1 + rnd_below(0x7fffffff));
		want = MR_ERR_RANGE;
		break;
	case MF_OFFSET:
		mb_req(m, &p, v % 2 ? MR_OP_SEND : MR_OP_WRITE, pl);
		n = enc(&p, b, cap);
		put_be32(b + hoff(p.opcode, MR_HDR_DXH) + 4, PMTU + 1 + rnd_below(1 << 20));
		want = MR_ERR_RANGE;
		break;
	case MF_SSN: {
		static const uint8_t ops[] = { MR_OP_WRITE, MR_OP_READ_REQ,
					       MR_OP_ATOMIC_FA, MR_OP_ATOMIC_CS };

		mb_req(m, &p, ops[v % 4], pl);
		n = enc(&p, b, cap);
		put_be32(b + hoff(p.opcode, MR_HDR_DXH) + 12, 1 + rnd32() % 0xfffffffe);
		want = MR_ERR_FIELD;
		break;
	}
	case MF_RXH_RSVD:
		mb_req(m, &p, v % 2 ? MR_OP_READ_REQ : MR_OP_WRITE_IMM, pl);
		n = enc(&p, b, cap);
		put_be32(b + hoff(p.opcode, MR_HDR_RXH) + 12, 1 + rnd32() % 0xfffffffe);
		want = MR_ERR_RSVD;
		break;
	case MF_ATOMIC_LEN:
		mb_req(m, &p, v % 2 ? MR_OP_ATOMIC_CS : MR_OP_ATOMIC_FA, pl);
		n = enc(&p, b, cap);
		o = hoff(p.opcode, MR_HDR_DXH);
		if (v % 3 == 2)
			put_be32(b + o + 4, 8);		/* offset */
		else
			put_be32(b + o + 8, v % 3 ? 16 : 4);	/* msg_len */
		want = MR_ERR_FIELD;
		break;
	case MF_ATOMIC_ALIGN:
		mb_req(m, &p, v % 2 ? MR_OP_ATOMIC_CS : MR_OP_ATOMIC_FA, pl);
		n = enc(&p, b, cap);
		o = hoff(p.opcode, MR_HDR_AXH);
		b[o + 7] = (uint8_t)((b[o + 7] & ~7u) | (1 + v % 7));
		want = MR_ERR_ALIGN;
		break;
	case MF_READ_RANGE:
		mb_req(m, &p, MR_OP_READ_REQ, pl);
		n = enc(&p, b, cap);
		o = hoff(MR_OP_READ_REQ, MR_HDR_DXH);
		switch (v % 3) {
		case 0:	/* offset + msg_len beyond 2^31 */
			put_be32(b + o + 4, MR_MAX_MSG_LEN - 4096);
			put_be32(b + o + 8, 8192);
			break;
		case 1:	/* va + offset + msg_len beyond 2^64 */
			put_be64(b + hoff(MR_OP_READ_REQ, MR_HDR_RXH), ~0ull - 100);
			break;
		default:	/* an empty range at a non-zero offset */
			put_be32(b + o + 4, 8);
			put_be32(b + o + 8, 0);
			break;
		}
		want = MR_ERR_RANGE;
		break;
	case MF_VA_WRAP:
		mb_req(m, &p, v % 2 ? MR_OP_WRITE_IMM : MR_OP_WRITE, pl);
		n = enc(&p, b, cap);
		put_be64(b + hoff(p.opcode, MR_HDR_RXH), ~0ull - 100);
		want = MR_ERR_RANGE;
		break;
	case MF_PAYLOAD_EXTRA: {
		static const uint8_t ops[] = { MR_OP_READ_REQ, MR_OP_ATOMIC_FA,
					       MR_OP_ACK, MR_OP_PROBE };

		if (ops[v % 4] == MR_OP_ACK) {
			rand_ack(&p, false, m->ak_dqpn, m->ak_sqpn, m->ak_psn, 0);
		} else if (ops[v % 4] == MR_OP_PROBE) {
			memset(&p, 0, sizeof(p));
			p.opcode = MR_OP_PROBE;
			p.dqpn = m->rq_dqpn;
			p.sqpn = m->rq_sqpn;
			p.psn = rnd32() & MR_PSN_MASK;
		} else {
			mb_req(m, &p, ops[v % 4], pl);
		}
		n = enc(&p, b, cap) - MR_ICRC_LEN;
		rnd_fill(b + n, 16);
		n += 16 + MR_ICRC_LEN;
		want = MR_ERR_PAYLOAD;
		break;
	}
	case MF_PAYLOAD_EMPTY:
		mb_req(m, &p, v % 2 ? MR_OP_SEND : MR_OP_WRITE, pl);
		p.dxh.msg_len = 0;
		p.payload_len = 0;
		p.flags = req_flags(p.opcode, p.flags, 0, 0, 0);
		n = enc(&p, b, cap);
		put_be32(b + hoff(p.opcode, MR_HDR_DXH) + 8, 1 + rnd_below(PMTU));
		want = MR_ERR_PAYLOAD;
		break;
	case MF_HDR_LEN: {
		uint32_t h;

		mb_req(m, &p, req_ops[v % 8], pl);
		n = enc(&p, b, cap);
		h = mr_pkt_hdr_len(p.opcode);
		/* Between MBH + ICRC and the opcode's headers + ICRC. */
		n = MR_MBH_LEN + MR_ICRC_LEN + rnd_below(h - MR_MBH_LEN);
		want = MR_ERR_HDR_LEN;
		break;
	}
	case MF_ACK_PSN:
		rand_ack(&p, v % 2, m->ak_dqpn, m->ak_sqpn, m->ak_psn, m->ak_psn);
		n = enc(&p, b, cap);
		put_be32(b + 8, 1 + rnd_below(MR_PSN_MASK));
		want = MR_ERR_FIELD;
		break;
	case MF_SACK_BIT0:
		rand_ack(&p, v % 2, m->ak_dqpn, m->ak_sqpn, m->ak_psn, m->ak_psn);
		n = enc(&p, b, cap);
		b[hoff(p.opcode, MR_HDR_AKH) + 20 + 7] |= 1;
		want = MR_ERR_FIELD;
		break;
	case MF_CUM_RSVD:
		rand_ack(&p, v % 2, m->ak_dqpn, m->ak_sqpn, m->ak_psn, m->ak_psn);
		n = enc(&p, b, cap);
		b[hoff(p.opcode, MR_HDR_AKH)] = (uint8_t)(1 + v % 255);
		want = MR_ERR_RSVD;
		break;
	case MF_NACK_REASON:
		rand_ack(&p, true, m->ak_dqpn, m->ak_sqpn, m->ak_psn, m->ak_psn);
		p.nkh.rnr_timer = 0;
		n = enc(&p, b, cap);
		/* 0 and 8..255 are reserved (MR-REL-5; 7 is RESOURCE) */
		b[hoff(MR_OP_NACK, MR_HDR_NKH)] = (uint8_t)(v % 2 ? 0 : 8 + v % 248);
		want = MR_ERR_FIELD;
		break;
	case MF_RNR_TIMER:
		rand_ack(&p, true, m->ak_dqpn, m->ak_sqpn, m->ak_psn, m->ak_psn);
		p.nkh.reason = v % 2 ? MR_NACK_RNR : MR_NACK_SEQ_ERR;
		p.nkh.rnr_timer = 0;
		n = enc(&p, b, cap);
		b[hoff(MR_OP_NACK, MR_HDR_NKH) + 1] =
			(uint8_t)(v % 2 ? MR_RNR_TIMER_MAX + 1 + v % 200 : 1 + v % 31);
		want = MR_ERR_FIELD;
		break;
	case MF_NKH_RSVD:
		rand_ack(&p, true, m->ak_dqpn, m->ak_sqpn, m->ak_psn, m->ak_psn);
		n = enc(&p, b, cap);
		o = hoff(MR_OP_NACK, MR_HDR_NKH);
		if (v % 2)
			b[o + 2 + v % 2] = (uint8_t)(1 + v % 255);
		else
			b[o + 4] = (uint8_t)(1 + v % 255);
		want = MR_ERR_RSVD;
		break;
	case MF_DETH_SQPN:
		memset(&p, 0, sizeof(p));
		p.opcode = v % 2 ? MR_OP_UD_SEND_IMM : MR_OP_UD_SEND;
		p.dqpn = v % 3 ? m->rq_dqpn : 1;
		p.sqpn = m->rq_sqpn;
		p.flags = MR_F_FIRST | MR_F_LAST;
		p.deth.qkey = GSI_QKEY;
		p.deth.src_qpn = p.sqpn;
		p.payload_len = 256;
		rnd_fill(pl, 256);
		p.payload = pl;
		n = enc(&p, b, cap);
		put_be32(b + hoff(p.opcode, MR_HDR_DETH) + 4, (p.sqpn + 1 + v) & MR_QPN_MASK);
		want = MR_ERR_FIELD;
		break;
	case MF_TRUNC_MBH:
		mb_req(m, &p, req_ops[v % 8], pl);
		enc(&p, b, cap);
		n = 1 + v % (MR_MBH_LEN + MR_ICRC_LEN - 1);
		want = MR_ERR_TRUNC;
		break;
	case MF_RESP_ATOMIC:
		memset(&p, 0, sizeof(p));
		p.opcode = MR_OP_ATOMIC_RESP;
		p.dqpn = m->ak_dqpn;
		p.sqpn = m->ak_sqpn;
		p.psn = m->ak_psn;
		p.flags = MR_F_FIRST | MR_F_LAST;
		p.dxh.msn = rnd32();
		p.dxh.msg_len = MR_ATOMIC_LEN;
		p.atomic_orig = rnd64();
		n = enc(&p, b, cap);
		put_be32(b + hoff(MR_OP_ATOMIC_RESP, MR_HDR_DXH) + 4 * (1 + v % 2), 16);
		want = MR_ERR_FIELD;
		break;
	default: /* MF_PROBE_FLAGS */
		memset(&p, 0, sizeof(p));
		p.opcode = v % 2 ? MR_OP_PROBE_REPLY : MR_OP_PROBE;
		p.dqpn = m->rq_dqpn;
		p.sqpn = m->rq_sqpn;
		p.psn = rnd32() & MR_PSN_MASK;
		n = enc(&p, b, cap);
		b[3] = (uint8_t)(1u << (v % 7));
		want = MR_ERR_FLAGS;
		break;
	}
	/* A right ICRC, so that only the broken field stops the packet
	 * (trunc_mbh: too short to carry one). */
	if (c != MF_TRUNC_MBH)
		icrc_fix(b, n);
	got = mr_pkt_decode(b, n, &chk);
	if (got != want)
		die("internal: malformation %s/%u decodes as '%s', want '%s'",
		    *name, v, mr_err_name(got), mr_err_name(want));
	return n;
}

bool class_selected(const char *name)
{
	const char *s = O.classes;
	size_t l = strlen(name);

	if (!s || !*s)
		return true;
	while (*s) {
		const char *e = strchr(s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n == l && !strncmp(s, name, l))
			return true;
		if (!e)
			break;
		s = e + 1;
	}
	return false;
}

void print_summary(const char *model, int n)
{
	uint64_t tp = 0, tb = 0;

	for (int i = 0; i < n; i++) {
		struct cls_stat *c = &cstat[i];

		if (!c->name)
			continue;
		say("HOSTILE-SUMMARY %s class=%s sent=%" PRIu64 " bytes=%" PRIu64
		    " skipped=%" PRIu64 " refused=%" PRIu64, model, c->name,
		    c->pkts, c->bytes, c->skipped, c->refused);
		tp += c->pkts;
		tb += c->bytes;
	}
	say("HOSTILE-SUMMARY %s total sent=%" PRIu64 " bytes=%" PRIu64
	    " in %.1fs; capture: %" PRIu64 " MetaRoCE packets, %" PRIu64
	    " learned; guard refused %" PRIu64, model, tp, tb, now_s() - t_start,
	    cap_seen, cap_learned, guard_refused);
}

void class_start(const char *model, const char *name, const char *variant)
{
	printf("HOSTILE-CLASS %.3f %s %s%s%s\n", wall_s(), model, name,
	       variant ? "/" : "", variant ? variant : "");
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* Verbs                                                              */

struct hdev D;

void dev_open(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_device *dv = NULL;

	if (!l)
		die("ibv_get_device_list: %s", strerror(errno));
	for (int i = 0; l[i]; i++)
		if (!O.dev || !strcmp(ibv_get_device_name(l[i]), O.dev)) {
			dv = l[i];
			break;
		}
	if (!dv)
		die("RDMA device %s not found", O.dev ? O.dev : "(any)");
	D.ctx = ibv_open_device(dv);
	if (!D.ctx)
		die("ibv_open_device(%s): %s", ibv_get_device_name(dv), strerror(errno));
	ibv_free_device_list(l);
	if (ibv_query_port(D.ctx, (uint8_t)O.ib_port, &D.pattr))
		die("ibv_query_port: %s", strerror(errno));
	D.gid_idx = O.gid_idx;
	if (D.gid_idx < 0) {
		/* The RoCE v2 GID of an IPv4 address, as mr-verify picks it. */
		for (int g = 0; g < D.pattr.gid_tbl_len && D.gid_idx < 0; g++) {
			struct ibv_gid_entry e;

			if (ibv_query_gid_ex(D.ctx, (uint32_t)O.ib_port, (uint32_t)g, &e, 0))
				continue;
			if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
			    !memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
				D.gid_idx = g;
		}
		if (D.gid_idx < 0)
			die("no RoCE v2 IPv4 GID on %s (give -g)", O.dev);
	}
	if (ibv_query_gid(D.ctx, (uint8_t)O.ib_port, D.gid_idx, &D.gid))
		die("ibv_query_gid(%d): %s", D.gid_idx, strerror(errno));
	fcntl(D.ctx->async_fd, F_SETFL, fcntl(D.ctx->async_fd, F_GETFL) | O_NONBLOCK);
}

void gid_hex(const union ibv_gid *g, char *out)
{
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", g->raw[i]);
}

bool gid_parse(const char *s, union ibv_gid *g)
{
	for (int i = 0; i < 16; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return false;
		g->raw[i] = (uint8_t)v;
	}
	return true;
}

int qp_to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
				 .port_num = (uint8_t)O.ib_port,
				 .qp_access_flags = (unsigned int)access };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

int qp_to_rtr_rts(struct ibv_qp *qp, uint32_t dqpn, uint32_t rq_psn,
			 uint32_t sq_psn, const union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = rq_psn,
		.max_dest_rd_atomic = MAX_DEST_RD, .min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1, .port_num = (uint8_t)O.ib_port,
			.grh = { .dgid = *dgid, .sgid_index = (uint8_t)D.gid_idx,
				 .hop_limit = 64 },
		},
	};
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);

	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	/*
	 * T_verbs 4.096 us * 2^17 = 537 ms: the retry budget (MR-RETRY-1,
	 * retry_cnt + 1 counted expiries, one per T_verbs) lasts about 4 s.
	 * With 2^14 (67 ms) it lasted half a second, less than an emulated
	 * guest stalls when its host is busy: the victim's requester failed
	 * with RETRY_EXC in KEEP steps, and before the forged fatal NACK of
	 * a forge_nack step could arrive, because the peer was stalled.
	 * A slower kernel (--slowdown) gets a budget as much longer, one
	 * more step of T_verbs per doubling: 19 (about 17 s) on the debug
	 * tier's 3, whose guests stall for seconds under KASAN and TCG.
	 */
	a.timeout = 17;
	for (uint32_t s = 1; s < O.slowdown && a.timeout < 31; s <<= 1)
		a.timeout++;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = MAX_RD;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

const char *qps_name(int s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
					  "SQE", "ERR" };

	return s >= 0 && s <= IBV_QPS_ERR ? n[s] : "?";
}

int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (!qp || ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

void *alloc_pinned(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		die("mmap(%zu): %s", n, strerror(errno));
	return p;
}

