// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-hostile: a hostile peer for MetaRoCE. It attacks live QPs while a
 * verified workload (mr-verify) runs, so that a remote denial of service or
 * a memory-safety defect in a receiver shows up in a test.
 *
 *   mr-hostile --offpath PEER [-i IFACE] [--rate PPS] [--time S] [--seed N]
 *   mr-hostile --victim [-d DEV] [-p PORT] [--mr-size BYTES]
 *   mr-hostile --insider VICTIM [-d DEV] [-p PORT] [-i IFACE] [--rate PPS]
 *              [--time S] [--seed N] [--max-latency MS]
 *   mr-hostile --list | --selftest
 *
 * Every packet is built by the protocol core's own codec
 * (kernel/proto/wire.c: mr_pkt_encode, the ICRC); malformed packets are
 * valid encodings with chosen bytes patched afterwards. Nothing else of the
 * implementation is used: only the wire format of the specification.
 *
 * Two attacker models (spec section "Security (SEC)", threat model):
 *
 * Off-path (--offpath PEER). Knows the two IP addresses, not the QPNs,
 * PSNs or R_Keys. It sends from this host to PEER: through a UDP socket,
 * and through a raw IPv4 socket (IP_HDRINCL) for spoofed source addresses,
 * UDP length lies and IP fragments. An AF_PACKET capture on IFACE lets it
 * learn which QP pairs are live and where their PSNs are, only to stay
 * *away* from every window and to replay packets: a packet that the
 * receiver would accept (it decodes, its ICRC is right, it comes from the
 * QP's peer address) never carries a PSN, cum_psn or NACK PSN within 2^20
 * of the live one, unless it is a byte-exact replay of a captured packet
 * (a duplicate) or differs from one only in the fields a retransmission
 * may change (MR-REL-4: UDP source port, path, ACKREQ, RETX). Every other
 * mutation of a captured packet breaks its ICRC. A guard decodes every
 * packet before it leaves and refuses (and counts) one that breaks this
 * rule: an in-window forgery with a correct ICRC is an on-path attack the
 * threat model excludes. Spoofed-source packets (class spoof_src) do carry
 * live PSNs: MR-SEC-4 alone must drop them.
 *
 * Insider (--insider VICTIM, with --victim on the other host). A peer that
 * legitimately holds an R_Key. The victim creates a PD with a large MR
 * (remote read, write, atomic; a known pattern; guard areas around it), an
 * MR of another PD, a local-only MR and the R_Key of a deregistered MR, and
 * publishes them over a TCP control channel. For each step of its table the
 * insider connects a real RC QP (libibverbs) to a fresh victim QP (so the
 * victim QP is RTS with a real peer), checks the victim with one verified
 * RDMA READ (the health probe), and then injects raw packets AS that QP,
 * knowing the PSN window because it owns it. The victim also runs requester
 * traffic towards the insider's QP (WRITEs and READs), the target of forged
 * ACKs and NACKs. At the end of a step the victim reports its QP state,
 * completion statuses and events, flushes (every WR must complete), checks
 * its guard areas and canaries, and destroys the QP.
 *
 * Each step has an expectation. KEEP: only malformed, corrupted, out of
 * window, duplicate or legitimate requests: the victim QP must stay RTS
 * (MR-MAL-1, MR-REL-1, MR-REL-7..10, MR-ICRC-4). DIE: a request the spec
 * refuses (R_Key of another PD, no access, deregistered, out of range;
 * SEND too long) or a forged fatal NACK: the victim QP must end in Error,
 * with the completion status the spec names (MR-SEC-10, MR-VERBS-21,
 * MR-VERBS-22). MAY: anything goes as long as the host survives. In every
 * step: READ responses must carry exactly the pattern of the bytes they
 * name and never bytes outside the MR, atomic responses the pattern word,
 * no byte outside a registered region may change, every WR must complete,
 * and the victim must answer the control channel within --max-latency.
 *
 * Table driven (one table of generators per model), paced at --rate
 * packets per second, deterministic from --seed given the same traffic,
 * with a per-class summary. Exit status: 0 nothing violated, 1 a
 * violation (lines "VIOLATION: ..."), 2 usage or set-up error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "wire.h"

#define PMTU		1024	/* path MTU of every QP here (1500-byte link) */
#define FAR_MIN		(1u << 21)	/* "far" PSN distance: 2^21 .. 2^22 */
#define GUARD_DIST	(1u << 20)	/* the guard's exclusion zone */
#define GSI_QKEY	0x80010000u
#define GUARD_LEN	65536	/* guard areas around the victim's MR */
#define SIDE_LEN	65536	/* other-PD and local-only MRs */
#define RSLOTS		64	/* victim receive WQEs per step */
#define RSLOT_LEN	2048	/* receive slot: 1024 bytes SGE, 1024 canary */
#define RSGE_LEN	1024
#define ATT_MR_LEN	(1u << 20)
#define V_SBUF_LEN	(512u << 10)
#define V_WRITE_LEN	4096
#define V_READ_LEN	(256u << 10)
#define MAX_FLOWS	64
#define RING_LEN	256
#define CAP_MAX		1600

/* UDP source ports (MR-ENC-2 says receivers ignore them): the module uses
 * 0xC000..0xFFFF; the insider's valid in-window packets 40000..42499, its
 * attack packets 42500..44999; the off-path attacker 45000..49151. Capture
 * learns PSNs only from the first two kinds. */
#define SP_INS_VALID	40000
#define SP_INS_ATTACK	42500
#define SP_OFFPATH	45000
#define SP_OFFPATH_END	49151

enum mode { M_NONE, M_VICTIM, M_INSIDER, M_OFFPATH, M_COUNT, M_LIST, M_SELFTEST };

static struct {
	enum mode mode;
	const char *dev;
	int ib_port;
	int gid_idx;
	const char *ctl_port;
	const char *peer;
	const char *ifname;
	int udp_port;
	uint32_t rate;
	uint32_t time_s;
	uint64_t seed;
	bool seed_set;
	uint64_t mr_size;
	uint32_t slice_ms;
	uint32_t max_lat_ms;
	const char *classes;
	int verbose;
	int connect_timeout;
} O = {
	.ib_port = 1, .gid_idx = -1, .ctl_port = "18790", .ifname = "eth0",
	.udp_port = MR_UDP_PORT, .rate = 500, .time_s = 30,
	.mr_size = 256ull << 20, .max_lat_ms = 3000, .connect_timeout = 120,
};

static const char *role = "?";
static unsigned int violations;
static double t_start;

/* ------------------------------------------------------------------ */
/* Utilities                                                          */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	printf("mr-hostile[%s]: ", role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
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

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	va_list ap;

	printf("mr-hostile[%s]: VIOLATION: ", role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	violations++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* splitmix64: the one PRNG; everything random comes from --seed. */
static uint64_t rng;

static uint64_t rnd64(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint32_t rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

static uint32_t rnd_below(uint32_t n)
{
	return n ? (uint32_t)((rnd64() >> 32) % n) : 0;
}

static void rnd_fill(uint8_t *p, size_t n)
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
static uint32_t ts_off;

static uint32_t ts_now(void)
{
	return (uint32_t)(uint64_t)(now_s() * 1e6) + ts_off;
}

static const char *ip_str(uint32_t a)
{
	static char b[4][INET_ADDRSTRLEN];
	static int i;

	i = (i + 1) % 4;
	inet_ntop(AF_INET, &a, b[i], sizeof(b[i]));
	return b[i];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, (uint32_t)v);
}

/* The memory pattern of the victim's MR: 64-bit word k (little-endian in
 * memory, as on the x86 guests) is unique per k, so a byte out of place is
 * recognised. */
static uint64_t pat_word(uint64_t seed, uint64_t k)
{
	return ((k + 1) * 0x9E3779B97F4A7C15ull) ^ seed;
}

static uint8_t pat_byte(uint64_t seed, uint64_t off)
{
	return (uint8_t)(pat_word(seed, off >> 3) >> ((off & 7) * 8));
}

static void pat_fill(uint8_t *p, uint64_t seed, uint64_t off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pat_byte(seed, off + i);
}

/* Index of the first byte of @p that is not the pattern at @off, or @n.
 * Word by word where aligned: READ responses of a whole MR pass here. */
static size_t pat_check(const uint8_t *p, uint64_t seed, uint64_t off, size_t n)
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

static uint64_t parse_size(const char *s, const char *what)
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
static uint32_t hoff(uint8_t op, uint16_t which)
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
static uint32_t enc(const struct mr_pkt *p, uint8_t *buf, uint32_t cap)
{
	int n = mr_pkt_encode(p, buf, cap);

	if (n < 0)
		die("internal: the core's encoder refused opcode %#x psn %#x off %u len %u plen %u flags %#x: %s",
		    p->opcode, p->psn, p->dxh.offset, p->dxh.msg_len,
		    p->payload_len, p->flags, mr_err_name(n));
	return (uint32_t)n;
}

/* Recompute the ICRC after patching header bytes. */
static void icrc_fix(uint8_t *buf, uint32_t len)
{
	if (len >= MR_ICRC_LEN)
		mr_icrc_put(buf, len - MR_ICRC_LEN);
}

/* Make sure the ICRC of @buf is wrong (a mutation may leave it right). */
static void icrc_break(uint8_t *buf, uint32_t len)
{
	if (len >= MR_ICRC_LEN && !mr_icrc_check(buf, len))
		buf[len - 1 - rnd_below(MR_ICRC_LEN)] ^= (uint8_t)(1u << rnd_below(8));
}

static const uint8_t req_ops[] = {
	MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_SEND_INV, MR_OP_WRITE,
	MR_OP_WRITE_IMM, MR_OP_READ_REQ, MR_OP_ATOMIC_CS, MR_OP_ATOMIC_FA,
};

/* Flags the opcode allows, among @want, plus FIRST/LAST as the message
 * position requires (MR-HDR-4, MR-HDR-22, MR-HDR-23). */
static uint16_t req_flags(uint8_t op, uint16_t want, uint32_t off,
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
static void rand_req(struct mr_pkt *p, uint8_t op, uint32_t dqpn, uint32_t sqpn,
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
static void rand_ack(struct mr_pkt *p, bool nack, uint32_t dqpn, uint32_t sqpn,
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

static struct {
	int udp, udp2, raw, cap;
	uint32_t me, peer;	/* IPv4, network order */
	uint16_t sport, sport2;
	int ifindex;
	bool dry;		/* --selftest: build and check, never send */
} N = { .udp = -1, .udp2 = -1, .raw = -1, .cap = -1 };

/* Per-class accounting. */
#define MAX_CLASSES	64
static struct cls_stat {
	const char *name;
	uint64_t pkts, bytes, skipped, refused;
} cstat[MAX_CLASSES];
static int cur_cls;

static double pace_next;
static void service(double dt);

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

static bool (*tx_guard)(const uint8_t *pkt, uint32_t len, uint32_t src, bool replay);

/* Send @pkt (MBH..ICRC) from this host's address through a UDP socket
 * (@alt: the insider's second socket). */
static void tx_udp_sock(const uint8_t *pkt, uint32_t len, bool alt, bool replay)
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

static void tx_udp(const uint8_t *pkt, uint32_t len)
{
	tx_udp_sock(pkt, len, false, false);
}

struct rawopt {
	uint32_t src;		/* 0: this host */
	uint16_t sport;		/* 0: random in this process's range */
	int ulen_adj;		/* UDP length field = real + adj */
	uint16_t ucsum;		/* UDP checksum field (0: none, MR-ENC-3) */
	int frag;		/* 0 whole, 1 two fragments, 2 reversed */
	bool replay;		/* the guard's replay exemption */
	const uint8_t *tail;	/* bytes after the UDP datagram (in the IP payload) */
	uint32_t tail_len;
};

/* One UDP datagram through the raw IPv4 socket (IP_HDRINCL: the kernel
 * fills the IP checksum and total length, MR-ENC-7's DF is ours). */
static void tx_raw(const uint8_t *pkt, uint32_t len, const struct rawopt *o)
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

/* Open the sockets towards @peer; capture on O.ifname. */
static void net_open(const char *peer, uint16_t plo, uint16_t phi, bool two)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)O.udp_port) };
	socklen_t al = sizeof(a);
	struct sockaddr_ll ll = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ALL) };
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
	N.cap = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (N.cap < 0)
		die("socket(AF_PACKET): %s (needs CAP_NET_RAW)", strerror(errno));
	ll.sll_ifindex = N.ifindex;
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

		if (setsockopt(N.cap, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)))
			die("SO_ATTACH_FILTER: %s", strerror(errno));
	}
	if (bind(N.cap, (struct sockaddr *)&ll, sizeof(ll)))
		die("bind(AF_PACKET, %s): %s", O.ifname, strerror(errno));
	fcntl(N.cap, F_SETFL, O_NONBLOCK);
}

/* ------------------------------------------------------------------ */
/* What the capture learns                                            */

/* One direction of a QP pair: packets from @sqpn at @src to @dqpn at @dst. */
static struct flow {
	uint32_t src, dst, sqpn, dqpn;
	uint32_t req_psn;	/* newest request PSN it carried */
	uint32_t cum;		/* newest cum_psn of its ACK/NACKs */
	bool have_req, have_cum, used;
	double t;
	uint64_t pkts;
} flows[MAX_FLOWS];

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

static void flow_learn(uint32_t src, uint32_t dst, const struct mr_pkt *p)
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
	} else if (p->opcode == MR_OP_ACK || p->opcode == MR_OP_NACK) {
		if (!f->have_cum || mr_psn_after(p->akh.cum_psn, f->cum))
			f->cum = p->akh.cum_psn;
		f->have_cum = true;
	}
}

/*
 * Where the live window of the QP pair (@dqpn at @dst, @sqpn at @src) is,
 * for a packet of kind @ack (false: a request to responder @dqpn; true: an
 * ACK/NACK/response to requester @dqpn). 0: the pair was never seen;
 * 1: *ref is the window's PSN; -1: the pair is live, the window unknown.
 */
static int pair_ref(uint32_t src, uint32_t dst, uint32_t sqpn, uint32_t dqpn,
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
static struct cap_pkt {
	double t;
	uint32_t len;
	uint8_t b[CAP_MAX];
} ring[RING_LEN];
static unsigned int ring_n;

/* Hook for the insider: every MetaRoCE packet seen that decodes (@raw,
 * @len: MBH..ICRC, for the ICRC check of what it relies on). */
static void (*cap_hook)(uint32_t src, uint32_t dst, uint16_t sport,
			const struct mr_pkt *p, const uint8_t *raw, uint32_t len);
static uint64_t cap_seen, cap_learned;

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

static void cap_drain(void)
{
	uint8_t f[4096];

	if (N.cap < 0)
		return;
	for (int i = 0; i < 512; i++) {
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);
		ssize_t n = recvfrom(N.cap, f, sizeof(f), MSG_DONTWAIT,
				     (struct sockaddr *)&sll, &sl);

		if (n <= 0)
			break;
		cap_one(f, (uint32_t)n, sll.sll_pkttype == PACKET_OUTGOING);
	}
}

/* ------------------------------------------------------------------ */
/* Control channel (TCP, one text line per message)                   */

static int ctl = -1;
static bool ctl_eof;
static char ctl_in[16384];
static size_t ctl_inl;
#define LQ_LEN 32
static char lq[LQ_LEN][512];
static int lq_n;
/* Lines consumed at once (the insider's PONGs); false: queue it. */
static bool (*ctl_line_hook)(const char *line);
static void (*svc_hook)(void);

static void ctl_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ctl_send(const char *fmt, ...)
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

static void ctl_read(void)
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

static void lq_copy(char *out, size_t n, const char *l)
{
	size_t c = strnlen(l, n - 1);

	memcpy(out, l, c);
	out[c] = 0;
}

/* Take the first queued line starting with @prefix into @out. */
static bool ctl_take(const char *prefix, char *out, size_t n)
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
static bool ctl_wait(const char *prefix, char *out, size_t n, double tmo)
{
	double end = now_s() + tmo;

	while (!ctl_take(prefix, out, n)) {
		if (ctl_eof || now_s() > end)
			return false;
		service(0.01);
	}
	return true;
}

static void service(double dt)
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
/* The off-path guard                                                 */

static uint64_t guard_refused;

static uint32_t psn_absdiff(uint32_t a, uint32_t b)
{
	int32_t d = mr_psn_diff(a, b);

	return d < 0 ? (uint32_t)-(int64_t)d : (uint32_t)d;
}

/*
 * May this off-path packet leave? Only packets the receiver would take
 * from the genuine peer address matter: they must not come near a live
 * window (module comment). Replays (byte-exact or retransmission
 * look-alikes) and spoofed-source packets are exempt by construction.
 */
static bool offpath_guard(const uint8_t *pkt, uint32_t len, uint32_t src,
			  bool replay)
{
	const struct mr_op_desc *d;
	struct mr_pkt p;
	uint32_t ref, x;
	int live;

	if (replay || src != N.me)
		return true;
	if (mr_pkt_decode(pkt, len, &p))
		return true;
	if (!(p.flags & MR_F_TRIM) && mr_icrc_check(pkt, len))
		return true;
	d = mr_op_desc(p.opcode);
	if (p.opcode == MR_OP_UD_SEND || p.opcode == MR_OP_UD_SEND_IMM ||
	    p.opcode == MR_OP_PROBE || p.opcode == MR_OP_PROBE_REPLY)
		return true;
	live = pair_ref(N.me, N.peer, p.sqpn, p.dqpn, !(d->attrs & MR_OPA_REQ), &ref);
	if (!live)
		return true;
	if (live < 0)
		goto refuse;
	x = (p.opcode == MR_OP_ACK || p.opcode == MR_OP_NACK) ? p.akh.cum_psn : p.psn;
	if (psn_absdiff(x, ref) < GUARD_DIST)
		goto refuse;
	if (p.opcode == MR_OP_NACK && psn_absdiff(p.nkh.nack_psn, ref) < GUARD_DIST)
		goto refuse;
	return true;
refuse:
	guard_refused++;
	if (O.verbose)
		say("guard: refused opcode %#x dqpn %#x sqpn %#x psn %#x (live window %s %#x)",
		    p.opcode, p.dqpn, p.sqpn, p.psn, live < 0 ? "unknown" : "at", ref);
	return false;
}

/* ------------------------------------------------------------------ */
/* Malformed headers: one valid encoding, then one field broken       */

/* Base of a malformed packet: addressing and, for the insider, a valid
 * R_Key and a pattern payload. */
struct mbase {
	uint32_t rq_dqpn, rq_sqpn, rq_psn;	/* request kind */
	uint32_t ak_dqpn, ak_sqpn, ak_psn;	/* ACK/response kind */
	bool insider;
	uint64_t va;		/* insider: a VA inside the MR */
	uint32_t rkey;
	uint64_t mr_base, pseed;
};

enum mf {
	MF_VERSION, MF_RSVD_NIBBLE, MF_OPCODE, MF_PSN_RSVD, MF_SQPN_RSVD,
	MF_PATH, MF_FLAGS, MF_FLAGS_RSVD, MF_FIRST_LAST, MF_MSG_LEN, MF_OFFSET,
	MF_SSN, MF_RXH_RSVD, MF_ATOMIC_LEN, MF_ATOMIC_ALIGN, MF_READ_RANGE,
	MF_VA_WRAP, MF_PAYLOAD_EXTRA, MF_PAYLOAD_EMPTY, MF_HDR_LEN, MF_ACK_PSN,
	MF_SACK_BIT0, MF_CUM_RSVD, MF_NACK_REASON, MF_RNR_TIMER, MF_NKH_RSVD,
	MF_DETH_SQPN, MF_TRUNC_MBH, MF_RESP_ATOMIC, MF_PROBE_FLAGS, MF_NUM,
};

static const char *const mf_name[MF_NUM] = {
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
static uint32_t malform(unsigned int k, const struct mbase *m, uint8_t *b,
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
		b[hoff(MR_OP_NACK, MR_HDR_NKH)] = (uint8_t)(v % 2 ? 0 : 7 + v % 249);
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

/* ------------------------------------------------------------------ */
/* Off-path attacker                                                  */

struct tgt {
	uint32_t dqpn, sqpn, ref;
};

/* A live pair of a QP at the peer and one here whose window is known:
 * the peer's QP as a responder (@ack false) or as a requester. */
static bool pick_target(bool ack, struct tgt *t)
{
	struct tgt c[MAX_FLOWS * 2];
	int n = 0;

	for (int i = 0; i < MAX_FLOWS; i++) {
		const struct flow *f = &flows[i];
		uint32_t pq, mq, ref;

		if (!f->used)
			continue;
		if (f->src == N.me && f->dst == N.peer) {
			pq = f->dqpn;
			mq = f->sqpn;
		} else if (f->src == N.peer && f->dst == N.me) {
			pq = f->sqpn;
			mq = f->dqpn;
		} else {
			continue;
		}
		if (pair_ref(N.me, N.peer, mq, pq, ack, &ref) != 1)
			continue;
		c[n++] = (struct tgt){ .dqpn = pq, .sqpn = mq, .ref = ref };
	}
	if (!n) {
		cstat[cur_cls].skipped++;
		return false;
	}
	*t = c[rnd_below((uint32_t)n)];
	return true;
}

/* 2^21..2^22 after (beyond any window) or before (a duplicate) @ref. */
static uint32_t far_psn(uint32_t ref)
{
	uint32_t d = FAR_MIN + rnd_below(FAR_MIN);

	return rnd_below(2) ? mr_psn_add(ref, d) : mr_psn_sub(ref, d);
}

/* A QPN pair that is not live at all (random QPNs: re-drawn if live). */
static void rand_pair(uint32_t *dq, uint32_t *sq)
{
	static const uint32_t special[] = { 0, 1, 2, MR_QPN_MASK, 0x100 };
	uint32_t ref;

	for (int i = 0; i < 100; i++) {
		*dq = rnd_below(4) ? rnd32() & MR_QPN_MASK : special[rnd_below(5)];
		*sq = rnd_below(4) ? rnd32() & MR_QPN_MASK : special[rnd_below(5)];
		if (!pair_ref(N.me, N.peer, *sq, *dq, false, &ref))
			return;
	}
}

static void oc_qpn_random(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	struct mr_pkt p;
	uint32_t dq, sq;

	rand_pair(&dq, &sq);
	if (rnd_below(4))
		rand_req(&p, req_ops[rnd_below(8)], dq, sq, rnd32(), pl);
	else
		rand_ack(&p, rnd_below(2), dq, sq, rnd32(), rnd32());
	tx_udp(b, enc(&p, b, sizeof(b)));
}

static void oc_qpn_near(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	bool ack = rnd_below(2);
	struct mr_pkt p;
	uint32_t dq, sq, ref, psn;
	struct tgt t;
	int live;

	if (!pick_target(ack, &t))
		return;
	do {
		dq = (t.dqpn + rnd_below(9) - 4) & MR_QPN_MASK;
		sq = (t.sqpn + rnd_below(5) - 2) & MR_QPN_MASK;
	} while (dq == t.dqpn && sq == t.sqpn);
	live = pair_ref(N.me, N.peer, sq, dq, ack, &ref);
	if (live < 0) {
		cstat[cur_cls].skipped++;
		return;
	}
	psn = live ? far_psn(ref) : rnd32() & MR_PSN_MASK;
	if (!ack)
		rand_req(&p, req_ops[rnd_below(8)], dq, sq, psn, pl);
	else
		rand_ack(&p, rnd_below(2), dq, sq, psn, live ? far_psn(ref) : rnd32());
	tx_udp(b, enc(&p, b, sizeof(b)));
}

static unsigned int oc_k;	/* per-class running counter */

static void oc_psn_far(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(false, &t))
		return;
	rand_req(&p, req_ops[oc_k++ % 8], t.dqpn, t.sqpn, far_psn(t.ref), pl);
	tx_udp(b, enc(&p, b, sizeof(b)));
}

static uint32_t spoof_addr(void)
{
	uint32_t a;

	do {
		switch (rnd_below(4)) {
		case 0: a = htonl(0xC0000200u | (3 + rnd_below(250))); break;
		case 1: a = htonl(0xC6336400u | rnd_below(256)); break;
		case 2: a = htonl(0x0A000000u | (rnd32() & 0xffffff)); break;
		default: a = htonl(0xCB007107u); break;
		}
	} while (a == N.me || a == N.peer);
	return a;
}

/* Live PSNs from addresses that are not the QP's peer (MR-SEC-4). */
static void oc_spoof_src(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	bool ack = rnd_below(3) == 0;
	struct rawopt ro = { 0 };
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(ack, &t))
		return;
	if (!ack)
		rand_req(&p, req_ops[rnd_below(8)], t.dqpn, t.sqpn,
			 mr_psn_add(t.ref, 1 + rnd_below(64)), pl);
	else
		rand_ack(&p, rnd_below(2), t.dqpn, t.sqpn, mr_psn_add(t.ref, 1), t.ref);
	ro.src = spoof_addr();
	tx_raw(b, enc(&p, b, sizeof(b)), &ro);
}

static bool offpath_base(struct mbase *m)
{
	struct tgt rq, ak;
	bool have_rq = pick_target(false, &rq), have_ak = pick_target(true, &ak);

	if (!have_rq && !have_ak)
		return false;
	if (!have_rq)
		rq = (struct tgt){ .dqpn = ak.dqpn, .sqpn = ak.sqpn, .ref = rnd32() };
	if (!have_ak)
		ak = (struct tgt){ .dqpn = rq.dqpn, .sqpn = rq.sqpn, .ref = rnd32() };
	memset(m, 0, sizeof(*m));
	m->rq_dqpn = rq.dqpn;
	m->rq_sqpn = rq.sqpn;
	m->rq_psn = far_psn(rq.ref);
	m->ak_dqpn = ak.dqpn;
	m->ak_sqpn = ak.sqpn;
	m->ak_psn = far_psn(ak.ref);
	return true;
}

static void oc_malformed(void)
{
	uint8_t b[4096];
	const char *name;
	struct mbase m;
	bool valid;

	if (!offpath_base(&m))
		return;
	tx_udp(b, malform(oc_k++, &m, b, sizeof(b), &name, &valid));
}

/* A far-window packet of the peer's live pairs, valid (for truncation,
 * fragments, length games). */
static uint32_t far_valid(uint8_t *b, uint32_t cap)
{
	uint8_t pl[2 * PMTU];
	bool ack = rnd_below(3) == 0;
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(ack, &t))
		return 0;
	if (!ack)
		rand_req(&p, req_ops[rnd_below(8)], t.dqpn, t.sqpn, far_psn(t.ref), pl);
	else
		rand_ack(&p, rnd_below(2), t.dqpn, t.sqpn, far_psn(t.ref), far_psn(t.ref));
	return enc(&p, b, cap);
}

static void oc_truncated(void)
{
	uint8_t b[4096];
	uint32_t n = far_valid(b, sizeof(b));

	if (!n)
		return;
	/* Every length from 0 up, in turn. */
	tx_udp(b, oc_k++ % n);
}

static void oc_length(void)
{
	uint8_t b[4096], pl[2 * PMTU], tail[64];
	struct rawopt ro = { 0 };
	struct mr_pkt p;
	struct tgt t;
	uint32_t n;

	switch (oc_k++ % 6) {
	case 0:	/* UDP length beyond the datagram: the UDP stack drops it */
		if (!(n = far_valid(b, sizeof(b))))
			return;
		ro.ulen_adj = 1 + (int)rnd_below(64);
		tx_raw(b, n, &ro);
		break;
	case 1:	/* bytes after the UDP length (MR-ENC-8: not part of it) */
		if (!(n = far_valid(b, sizeof(b))))
			return;
		rnd_fill(tail, sizeof(tail));
		ro.tail = tail;
		ro.tail_len = 1 + rnd_below(sizeof(tail));
		tx_raw(b, n, &ro);
		break;
	case 2:	/* UDP length cutting into the packet */
		if (!(n = far_valid(b, sizeof(b))))
			return;
		ro.ulen_adj = -(int)(1 + rnd_below(n));
		tx_raw(b, n, &ro);
		break;
	case 3:	/* a wrong non-zero UDP checksum (MR-ENC-3) */
		if (!(n = far_valid(b, sizeof(b))))
			return;
		ro.ucsum = htons((uint16_t)(1 + rnd_below(0xfffe)));
		tx_raw(b, n, &ro);
		break;
	case 4:	/* payload beyond the PMTU (MR-MAL-4) */
		if (!pick_target(false, &t))
			return;
		rand_req(&p, MR_OP_WRITE, t.dqpn, t.sqpn, far_psn(t.ref), pl);
		p.dxh.offset = 0;
		p.dxh.msg_len = 4 * PMTU;
		p.payload_len = PMTU + 1 + rnd_below(PMTU - 1);
		p.payload = pl;
		rnd_fill(pl, p.payload_len);
		p.flags = req_flags(MR_OP_WRITE, 0, 0, p.payload_len, p.dxh.msg_len);
		tx_udp(b, enc(&p, b, sizeof(b)));
		break;
	default: /* payload longer than msg_len */
		if (!pick_target(false, &t))
			return;
		rand_req(&p, MR_OP_SEND, t.dqpn, t.sqpn, far_psn(t.ref), pl);
		p.dxh.offset = 0;
		p.dxh.msg_len = 100;
		p.payload_len = 100;
		p.payload = pl;
		p.flags = req_flags(MR_OP_SEND, 0, 0, 100, 100);
		n = enc(&p, b, sizeof(b)) - MR_ICRC_LEN;
		rnd_fill(b + n, 100);
		n += 100;
		mr_icrc_put(b, n);
		tx_udp(b, n + MR_ICRC_LEN);
		break;
	}
}

/* Live PSNs, every field plausible, the ICRC wrong (MR-ICRC-4). */
static void oc_bad_icrc(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	bool ack = rnd_below(3) == 0;
	struct mr_pkt p;
	struct tgt t;
	uint32_t n, bit;

	if (!pick_target(ack, &t))
		return;
	if (!ack)
		rand_req(&p, req_ops[rnd_below(8)], t.dqpn, t.sqpn,
			 mr_psn_add(t.ref, 1 + rnd_below(64)), pl);
	else
		rand_ack(&p, rnd_below(2), t.dqpn, t.sqpn, mr_psn_add(t.ref, 1), t.ref);
	n = enc(&p, b, sizeof(b));
	/* One flipped bit anywhere but the TRIM flag (which skips the ICRC). */
	do {
		bit = rnd_below(n * 8);
	} while (bit / 8 == 3 && (1u << (bit % 8)) == MR_F_TRIM);
	b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	icrc_break(b, n);
	tx_udp(b, n);
}

/* TRIM: headers, garbage, no valid ICRC (MR-ICRC-5, MR-REL-16). */
static void oc_trim(void)
{
	static const uint8_t ops[] = { MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_WRITE,
				       MR_OP_WRITE_IMM, MR_OP_READ_RESP,
				       MR_OP_SEND_INV };
	uint8_t b[4096], pl[2 * PMTU];
	uint8_t op = ops[oc_k++ % 6];
	bool ack = op == MR_OP_READ_RESP;
	struct mr_pkt p;
	struct tgt t;
	uint32_t n;

	if (!pick_target(ack, &t))
		return;
	if (!ack) {
		rand_req(&p, op, t.dqpn, t.sqpn, far_psn(t.ref), pl);
	} else {
		memset(&p, 0, sizeof(p));
		p.opcode = op;
		p.dqpn = t.dqpn;
		p.sqpn = t.sqpn;
		p.psn = far_psn(t.ref);
		p.dxh.msn = rnd32();
		p.dxh.msg_len = 64 * PMTU;
		p.dxh.offset = rnd_below(64) * PMTU;
	}
	p.payload_len = p.dxh.msg_len - p.dxh.offset;
	if (p.payload_len > 2 * PMTU)
		p.payload_len = 2 * PMTU;
	p.payload_len = rnd_below(p.payload_len + 1);
	p.payload = pl;
	rnd_fill(pl, p.payload_len);
	p.flags = (uint16_t)((p.dxh.offset ? 0 : MR_F_FIRST) | MR_F_TRIM);
	n = enc(&p, b, sizeof(b));
	rnd_fill(b + n - MR_ICRC_LEN, MR_ICRC_LEN);
	tx_udp(b, n);
}

/* Forged acknowledgement information, far from the live PSNs. */
static void oc_ack_forge(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(true, &t))
		return;
	switch (oc_k++ % 5) {
	case 0:
	case 1:
		rand_ack(&p, oc_k % 2, t.dqpn, t.sqpn, far_psn(t.ref), far_psn(t.ref));
		break;
	case 2:	/* a READ_RESP for a READ that is not there */
		memset(&p, 0, sizeof(p));
		p.opcode = MR_OP_READ_RESP;
		p.dqpn = t.dqpn;
		p.sqpn = t.sqpn;
		p.psn = far_psn(t.ref);
		p.ts = rnd32();
		p.dxh.msn = rnd_below(2) ? rnd_below(16) : rnd32();
		p.dxh.msg_len = (1 + rnd_below(64)) * PMTU;
		p.dxh.offset = rnd_below(p.dxh.msg_len / PMTU) * PMTU;
		p.payload_len = PMTU;
		rnd_fill(pl, PMTU);
		p.payload = pl;
		p.flags = req_flags(MR_OP_READ_RESP, rnd32() & MR_F_RETX,
				    p.dxh.offset, PMTU, p.dxh.msg_len);
		break;
	case 3:
		memset(&p, 0, sizeof(p));
		p.opcode = MR_OP_ATOMIC_RESP;
		p.dqpn = t.dqpn;
		p.sqpn = t.sqpn;
		p.psn = far_psn(t.ref);
		p.dxh.msn = rnd32();
		p.dxh.msg_len = MR_ATOMIC_LEN;
		p.atomic_orig = rnd64();
		p.flags = MR_F_FIRST | MR_F_LAST;
		break;
	default:
		memset(&p, 0, sizeof(p));
		p.opcode = MR_OP_PROBE_REPLY;
		p.dqpn = t.dqpn;
		p.sqpn = t.sqpn;
		p.psn = rnd32() & MR_PSN_MASK;
		p.ts = rnd32();
		p.path = (uint8_t)rnd_below(MR_MAX_PATHS);
		break;
	}
	tx_udp(b, enc(&p, b, sizeof(b)));
}

/* PROBEs at the live pairs: the replies must be rate-limited (MR-SEC-8). */
static void oc_probe(void)
{
	uint8_t b[64];
	struct mr_pkt p;
	struct tgt t;

	if (!pick_target(rnd_below(2), &t))
		return;
	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_PROBE;
	p.dqpn = t.dqpn;
	p.sqpn = t.sqpn;
	p.psn = rnd32() & MR_PSN_MASK;
	p.ts = rnd32();
	p.path = (uint8_t)rnd_below(MR_MAX_PATHS);
	tx_udp(b, enc(&p, b, sizeof(b)));
}

static struct cap_pkt *ring_pick(void)
{
	unsigned int n = ring_n < RING_LEN ? ring_n : RING_LEN;
	double t = now_s();

	if (!n) {
		cstat[cur_cls].skipped++;
		return NULL;
	}
	if (rnd_below(2)) {
		/* An old one, captured at least a second ago, if any. */
		for (int i = 0; i < 8; i++) {
			struct cap_pkt *c = &ring[rnd_below(n)];

			if (t - c->t >= 1.0)
				return c;
		}
	}
	return &ring[(ring_n - 1 - rnd_below(n < 16 ? n : 16)) % RING_LEN];
}

/* Byte-exact copies of the module's own packets: duplicates. */
static void oc_replay(void)
{
	struct rawopt ro = { .replay = true };
	struct cap_pkt *c = ring_pick();

	if (c)
		tx_raw(c->b, c->len, &ro);
}

/* Mutations of captured packets: the ICRC broken, or only the fields a
 * retransmission may change (MR-REL-4) with the ICRC recomputed. */
static void oc_mutate(void)
{
	struct cap_pkt *c = ring_pick();
	struct rawopt ro = { 0 };
	uint8_t b[CAP_MAX + 64];
	struct mr_pkt p;
	uint32_t n;

	if (!c)
		return;
	n = c->len;
	memcpy(b, c->b, n);
	if (rnd_below(3)) {
		unsigned int k = 1 + rnd_below(8);

		while (k--)
			b[rnd_below(n)] = rnd_below(2) ? (uint8_t)rnd32() :
				(uint8_t)(b[rnd_below(n)] ^ (1u << rnd_below(8)));
		if (!mr_pkt_decode(b, n, &p) && (p.flags & MR_F_TRIM))
			b[3] &= (uint8_t)~MR_F_TRIM;
		icrc_break(b, n);
	} else {
		const struct mr_op_desc *d;

		if (mr_pkt_decode(b, n, &p) || p.opcode == MR_OP_PROBE ||
		    p.opcode == MR_OP_PROBE_REPLY) {
			cstat[cur_cls].skipped++;
			return;
		}
		d = mr_op_desc(p.opcode);
		p.path = (uint8_t)rnd_below(MR_MAX_PATHS);
		p.flags = (uint16_t)((p.flags & ~(MR_F_ACKREQ | MR_F_RETX)) |
				     (rnd32() & (MR_F_ACKREQ | MR_F_RETX) & d->flags_ok));
		n = enc(&p, b, sizeof(b));
		ro.replay = true;
	}
	tx_raw(b, n, &ro);
}

static void oc_frag(void)
{
	uint8_t b[4096];
	struct rawopt ro = { .frag = 1 + (int)rnd_below(2) };
	uint32_t n = far_valid(b, sizeof(b));

	if (n)
		tx_raw(b, n, &ro);
}

/* The GSI QP and QP types: UD datagrams to QP 1 (right and wrong Q_Key
 * and size), RC opcodes to QP 1, UD opcodes to RC QPs (MR-MAL-2 step 10). */
static void oc_gsi(void)
{
	uint8_t b[4096], pl[2 * PMTU];
	struct mr_pkt p;
	struct tgt t;
	unsigned int v = oc_k++ % 5;

	memset(&p, 0, sizeof(p));
	if (v == 3) {
		rand_req(&p, req_ops[rnd_below(8)], 1, rnd32(), rnd32(), pl);
		tx_udp(b, enc(&p, b, sizeof(b)));
		return;
	}
	p.opcode = rnd_below(2) ? MR_OP_UD_SEND : MR_OP_UD_SEND_IMM;
	p.flags = MR_F_FIRST | MR_F_LAST;
	p.dqpn = 1;
	p.sqpn = rnd32() & MR_QPN_MASK;
	p.deth.src_qpn = p.sqpn;
	p.deth.qkey = v == 1 ? rnd32() : GSI_QKEY;
	p.payload_len = v == 2 ? rnd_below(PMTU + 1) : 256;
	p.imm = rnd32();
	rnd_fill(pl, p.payload_len);
	p.payload = pl;
	if (v == 4) {
		if (!pick_target(false, &t))
			return;
		p.dqpn = t.dqpn;
		p.deth.qkey = rnd32();
	}
	tx_udp(b, enc(&p, b, sizeof(b)));
}

struct oclass {
	const char *name;
	void (*fn)(void);
	const char *what;
};

static const struct oclass oclasses[] = {
	{ "qpn_random", oc_qpn_random, "random QPN pairs (0, 1, 2^24-1 among them), every opcode" },
	{ "qpn_near", oc_qpn_near, "QPNs next to the live ones; PSNs far if the pair is live" },
	{ "psn_far", oc_psn_far, "live pairs, every request opcode, PSN 2^21..2^22 away, random R_Keys" },
	{ "spoof_src", oc_spoof_src, "live pairs and live PSNs from other source addresses (MR-SEC-4)" },
	{ "malformed", oc_malformed, "every reserved field, version, unknown opcode, flag and DXH rule" },
	{ "truncated", oc_truncated, "far-PSN packets cut at every length from 0" },
	{ "length", oc_length, "UDP length lies, bad UDP checksum, payload > PMTU or > msg_len" },
	{ "bad_icrc", oc_bad_icrc, "live PSNs, one bit flipped, the ICRC wrong" },
	{ "trim", oc_trim, "TRIM with garbage payload and ICRC, far PSNs" },
	{ "ack_forge", oc_ack_forge, "ACK/NACK/SACK/READ_RESP/ATOMIC_RESP/PROBE_REPLY, random fields, far PSNs" },
	{ "probe", oc_probe, "PROBE floods at live pairs" },
	{ "replay", oc_replay, "byte-exact replays of the module's packets, fresh and >= 1 s old" },
	{ "mutate", oc_mutate, "captured packets mutated (ICRC broken) or retransmission look-alikes" },
	{ "frag", oc_frag, "far-PSN packets as two IP fragments, in and out of order" },
	{ "gsi", oc_gsi, "UD to the GSI QP (Q_Key right/wrong, odd sizes), RC to QP 1, UD to RC QPs" },
};
#define N_OCLASSES ((int)MR_ARRAY_SIZE(oclasses))

static bool class_selected(const char *name)
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

static void print_summary(const char *model, int n)
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

static void class_start(const char *model, const char *name, const char *variant)
{
	printf("HOSTILE-CLASS %.3f %s %s%s%s\n", wall_s(), model, name,
	       variant ? "/" : "", variant ? variant : "");
	fflush(stdout);
}

static void run_offpath(void)
{
	int sel[N_OCLASSES], ns = 0;
	double end, slice;

	role = "offpath";
	for (int i = 0; i < N_OCLASSES; i++) {
		cstat[i].name = oclasses[i].name;
		if (class_selected(oclasses[i].name))
			sel[ns++] = i;
	}
	if (!ns)
		die("--classes selects no off-path class (--list)");
	net_open(O.peer, SP_OFFPATH, SP_OFFPATH_END, false);
	tx_guard = offpath_guard;
	say("target %s from %s, capture on %s, %u packets/s for %us, seed %" PRIu64
	    ", %d classes", ip_str(N.peer), ip_str(N.me), O.ifname, O.rate,
	    O.time_s, O.seed, ns);
	/* Learn the live pairs first (up to 3 s, not part of --time). */
	end = now_s() + 3;
	while (now_s() < end && !flows[0].used)
		service(0.05);
	t_start = now_s();
	slice = O.slice_ms ? O.slice_ms / 1000.0 : (double)O.time_s / ns;
	if (slice < 0.5)
		slice = 0.5;
	end = t_start + O.time_s;
	for (int k = 0; now_s() < end; k++) {
		int i = sel[k % ns];
		double se = now_s() + slice;

		cur_cls = i;
		oc_k = 0;
		class_start("offpath", oclasses[i].name, NULL);
		while (now_s() < se && now_s() < end) {
			uint64_t before = cstat[i].pkts;

			oclasses[i].fn();
			/* Nothing to aim at (yet): wait for traffic. */
			if (cstat[i].pkts == before)
				service(0.01);
		}
	}
	print_summary("offpath", N_OCLASSES);
	if (guard_refused)
		say("note: the guard refused %" PRIu64 " packets (a generator aimed near a live window)",
		    guard_refused);
}

/* ------------------------------------------------------------------ */
/* Verbs                                                              */

static struct {
	struct ibv_context *ctx;
	struct ibv_port_attr pattr;
	int gid_idx;
	union ibv_gid gid;
} D;

static void dev_open(void)
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

static void gid_hex(const union ibv_gid *g, char *out)
{
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", g->raw[i]);
}

static bool gid_parse(const char *s, union ibv_gid *g)
{
	for (int i = 0; i < 16; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return false;
		g->raw[i] = (uint8_t)v;
	}
	return true;
}

static int qp_to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0,
				 .port_num = (uint8_t)O.ib_port,
				 .qp_access_flags = (unsigned int)access };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int qp_to_rtr_rts(struct ibv_qp *qp, uint32_t dqpn, uint32_t rq_psn,
			 uint32_t sq_psn, const union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = rq_psn,
		.max_dest_rd_atomic = 16, .min_rnr_timer = 12,
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
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static const char *qps_name(int s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
					  "SQE", "ERR" };

	return s >= 0 && s <= IBV_QPS_ERR ? n[s] : "?";
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (!qp || ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

static void *alloc_pinned(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		die("mmap(%zu): %s", n, strerror(errno));
	return p;
}

/* ------------------------------------------------------------------ */
/* Victim                                                             */

#define SEND_SEED	0x5E4D5E4D5E4D5E4Dull
#define WR_RECV		(1ull << 62)

static struct {
	struct ibv_pd *pd, *pd2;
	uint8_t *area, *mrb, *ob, *lb, *rb, *sb;
	size_t area_len;
	struct ibv_mr *mr, *omr, *lmr, *rmr, *smr;
	uint32_t srkey;
	uint64_t sva, pseed;
	/* per step */
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	uint32_t step;
	bool go, chk_recv, stop_post;
	union ibv_gid agid;
	uint64_t ava;
	uint32_t alen, arkey;
	uint32_t outstanding, rposted, rcv_idx;
	uint64_t wr_seq;
	int serr_st, rerr_st;	/* first non-flush error status, -1 none */
	uint32_t sok, serr, rok, rerr, rbad;
	char events[256];
	uint32_t steps, died;
} V = { .serr_st = -1, .rerr_st = -1 };

static uint8_t side_byte(int which, size_t i)
{
	return (uint8_t)((which ? 0x3C : 0xA7) ^ (i * 7));
}

static void v_fill_guards(void)
{
	memset(V.area, 0x5A, GUARD_LEN);
	memset(V.mrb + O.mr_size, 0x5A, GUARD_LEN);
}

/* Every byte the insider must not reach; restored after a report. */
static void v_check_canaries(char *out, size_t n)
{
	size_t bad;

	out[0] = 0;
	for (bad = 0; bad < GUARD_LEN && V.area[bad] == 0x5A; bad++)
		;
	if (bad < GUARD_LEN)
		snprintf(out + strlen(out), n - strlen(out), "guard_before+%zu,", bad);
	for (bad = 0; bad < GUARD_LEN && V.mrb[O.mr_size + bad] == 0x5A; bad++)
		;
	if (bad < GUARD_LEN)
		snprintf(out + strlen(out), n - strlen(out), "guard_after+%zu,", bad);
	v_fill_guards();
	for (int w = 0; w < 2; w++) {
		uint8_t *b = w ? V.ob : V.lb;

		for (bad = 0; bad < SIDE_LEN && b[bad] == side_byte(w, bad); bad++)
			;
		if (bad < SIDE_LEN)
			snprintf(out + strlen(out), n - strlen(out), "%s+%zu,",
				 w ? "other_pd_mr" : "local_only_mr", bad);
		for (size_t i = 0; i < SIDE_LEN; i++)
			b[i] = side_byte(w, i);
	}
	for (int s = 0; s < RSLOTS; s++) {
		uint8_t *c = V.rb + (size_t)s * RSLOT_LEN + RSGE_LEN;

		for (bad = 0; bad < RSLOT_LEN - RSGE_LEN && c[bad] == (uint8_t)(0xC3 ^ s); bad++)
			;
		if (bad < RSLOT_LEN - RSGE_LEN) {
			snprintf(out + strlen(out), n - strlen(out), "recv_slot%d_canary+%zu,", s, bad);
			memset(c, 0xC3 ^ s, RSLOT_LEN - RSGE_LEN);
		}
	}
	if (out[0])
		out[strlen(out) - 1] = 0;
}

static void v_post_recv(int slot)
{
	struct ibv_sge sg = { .addr = (uintptr_t)(V.rb + (size_t)slot * RSLOT_LEN),
			      .length = RSGE_LEN, .lkey = V.rmr->lkey };
	struct ibv_recv_wr wr = { .wr_id = WR_RECV | (uint64_t)slot, .sg_list = &sg,
				  .num_sge = 1 }, *bad;

	memset(V.rb + (size_t)slot * RSLOT_LEN, 0, RSGE_LEN);
	memset(V.rb + (size_t)slot * RSLOT_LEN + RSGE_LEN, 0xC3 ^ slot, RSLOT_LEN - RSGE_LEN);
	if (!ibv_post_srq_recv(V.srq, &wr, &bad))
		V.rposted++;
}

static void v_event_note(const char *name)
{
	if (strlen(V.events) + strlen(name) + 2 < sizeof(V.events)) {
		if (V.events[0])
			strcat(V.events, ",");
		strcat(V.events, name);
	}
}

/* One word per event: the report is a line of words. */
static const char *ev_name(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_CQ_ERR: return "CQ_ERR";
	case IBV_EVENT_QP_FATAL: return "QP_FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case IBV_EVENT_COMM_EST: return "COMM_EST";
	case IBV_EVENT_SQ_DRAINED: return "SQ_DRAINED";
	case IBV_EVENT_PATH_MIG: return "PATH_MIG";
	case IBV_EVENT_PATH_MIG_ERR: return "PATH_MIG_ERR";
	case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
	case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR: return "PORT_ERR";
	case IBV_EVENT_LID_CHANGE: return "LID_CHANGE";
	case IBV_EVENT_PKEY_CHANGE: return "PKEY_CHANGE";
	case IBV_EVENT_SM_CHANGE: return "SM_CHANGE";
	case IBV_EVENT_SRQ_ERR: return "SRQ_ERR";
	case IBV_EVENT_SRQ_LIMIT_REACHED: return "SRQ_LIMIT";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "LAST_WQE";
	case IBV_EVENT_CLIENT_REREGISTER: return "CLIENT_REREG";
	case IBV_EVENT_GID_CHANGE: return "GID_CHANGE";
	default: return "EVENT?";
	}
}

static void v_async(void)
{
	struct ibv_async_event e;

	while (!ibv_get_async_event(D.ctx, &e)) {
		v_event_note(ev_name(e.event_type));
		ibv_ack_async_event(&e);
	}
}

static void v_wc(const struct ibv_wc *w)
{
	if (w->wr_id & WR_RECV) {
		int slot = (int)(w->wr_id & 0xffff);
		uint8_t *d = V.rb + (size_t)slot * RSLOT_LEN;

		V.rposted--;
		if (w->status == IBV_WC_SUCCESS) {
			V.rok++;
			/* The insider's SEND content (KEEP steps, in SSN order). */
			if (V.chk_recv && w->opcode == IBV_WC_RECV) {
				size_t bad = w->byte_len > RSGE_LEN ? 0 :
					pat_check(d, V.pseed ^ SEND_SEED,
						  (uint64_t)V.rcv_idx * 4096, w->byte_len);

				if (bad < w->byte_len) {
					violation("step %u: received SEND #%u (%u bytes) differs from what the insider sent at byte %zu: a packet that had to be dropped was placed",
						  V.step, V.rcv_idx, w->byte_len, bad);
					V.rbad++;
				}
			}
			V.rcv_idx++;
		} else {
			V.rerr++;
			if (V.rerr_st < 0 && w->status != IBV_WC_WR_FLUSH_ERR)
				V.rerr_st = w->status;
		}
		for (size_t i = 0; i < RSLOT_LEN - RSGE_LEN; i++)
			if (d[RSGE_LEN + i] != (uint8_t)(0xC3 ^ slot)) {
				violation("step %u: receive slot %d: byte %zu past the %u-byte SGE changed (status %s, byte_len %u)",
					  V.step, slot, i, RSGE_LEN,
					  ibv_wc_status_str(w->status), w->byte_len);
				break;
			}
		if (V.srq && !V.stop_post)
			v_post_recv(slot);
		return;
	}
	if (V.outstanding)
		V.outstanding--;
	if (w->status == IBV_WC_SUCCESS) {
		V.sok++;
	} else {
		V.serr++;
		if (V.serr_st < 0 && w->status != IBV_WC_WR_FLUSH_ERR)
			V.serr_st = w->status;
		V.stop_post = true;
	}
}

static void v_poll(void)
{
	struct ibv_wc wc[16];
	int n;

	if (!V.cq)
		return;
	while ((n = ibv_poll_cq(V.cq, 16, wc)) > 0)
		for (int i = 0; i < n; i++)
			v_wc(&wc[i]);
}

/* Requester traffic towards the insider's QP: the target of its forged
 * ACKs and NACKs. WRITE 4 KiB and READ 256 KiB in turn, two in flight. */
static void v_post_send(void)
{
	struct ibv_sge sg = { .lkey = V.smr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sg, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	bool rd;

	if (!V.qp || !V.go || V.stop_post || V.outstanding >= 2)
		return;
	rd = V.wr_seq % 2;
	sg.addr = (uintptr_t)V.sb;
	sg.length = rd ? V_READ_LEN : V_WRITE_LEN;
	if (sg.length > V.alen)
		sg.length = V.alen;
	wr.wr_id = V.wr_seq++;
	wr.opcode = rd ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = V.ava + (rnd_below(V.alen / sg.length) * sg.length);
	wr.wr.rdma.rkey = V.arkey;
	if (ibv_post_send(V.qp, &wr, &bad))
		V.stop_post = true;
	else
		V.outstanding++;
}

static void v_step_free(void)
{
	if (V.qp && ibv_destroy_qp(V.qp))
		violation("step %u: ibv_destroy_qp: %s", V.step, strerror(errno));
	V.qp = NULL;
	v_poll();
	if (V.srq && ibv_destroy_srq(V.srq))
		violation("step %u: ibv_destroy_srq: %s", V.step, strerror(errno));
	V.srq = NULL;
	if (V.cq && ibv_destroy_cq(V.cq))
		violation("step %u: ibv_destroy_cq: %s", V.step, strerror(errno));
	V.cq = NULL;
}

static void v_round(const char *l)
{
	char gs[40];
	unsigned long long ava;
	unsigned int step, aqpn, apsn, alen, arkey, chk;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 2 * RSLOTS, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 16, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	uint32_t v0 = rnd32() & MR_PSN_MASK;

	if (sscanf(l, "ROUND %u qpn=%x psn=%x gid=%32s ava=%llx alen=%x arkey=%x chk=%u",
		   &step, &aqpn, &apsn, gs, &ava, &alen, &arkey, &chk) != 8 ||
	    !gid_parse(gs, &V.agid)) {
		ctl_send("FAIL 0 bad ROUND line");
		return;
	}
	if (V.qp)
		v_step_free();
	V.step = step;
	V.ava = ava;
	V.alen = alen;
	V.arkey = arkey;
	V.chk_recv = chk;
	V.go = V.stop_post = false;
	V.outstanding = V.rposted = V.rcv_idx = 0;
	V.serr_st = V.rerr_st = -1;
	V.sok = V.serr = V.rok = V.rerr = V.rbad = 0;
	V.events[0] = 0;
	v_async();
	V.events[0] = 0;
	V.cq = ibv_create_cq(D.ctx, 512, NULL, NULL, 0);
	V.srq = V.cq ? ibv_create_srq(V.pd, &sa) : NULL;
	if (!V.cq || !V.srq) {
		ctl_send("FAIL %u create CQ/SRQ: %s", step, strerror(errno));
		v_step_free();
		return;
	}
	for (int s = 0; s < RSLOTS; s++)
		v_post_recv(s);
	qa.send_cq = qa.recv_cq = V.cq;
	qa.srq = V.srq;
	V.qp = ibv_create_qp(V.pd, &qa);
	if (!V.qp || qp_to_init(V.qp, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC) ||
	    qp_to_rtr_rts(V.qp, aqpn, apsn, v0, &V.agid)) {
		ctl_send("FAIL %u create/connect QP: %s", step, strerror(errno));
		v_step_free();
		return;
	}
	V.steps++;
	ctl_send("READY %u qpn=%x psn=%x", step, V.qp->qp_num, v0);
}

static void v_end(unsigned int step)
{
	int before = qp_state(V.qp);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	char can[512], flush[64];
	double t0 = now_s(), t1;

	if (V.qp)
		ibv_modify_qp(V.qp, &a, IBV_QP_STATE);
	V.stop_post = true;
	/* Every WR must come back, flushed or not (MR-VERBS-25). */
	while (V.outstanding && now_s() - t0 < 10) {
		v_poll();
		v_async();
		usleep(2000);
	}
	if (V.outstanding) {
		violation("step %u: %u send WR(s) still not completed 10 s after the QP was moved to ERR (MR-VERBS-25)",
			  step, V.outstanding);
		snprintf(flush, sizeof(flush), "HUNG(%u)", V.outstanding);
	} else {
		snprintf(flush, sizeof(flush), "ok");
	}
	v_async();
	t1 = now_s();
	v_step_free();
	if (now_s() - t1 > 5)
		violation("step %u: destroying the QP, SRQ and CQ took %.1f s", step, now_s() - t1);
	v_check_canaries(can, sizeof(can));
	if (can[0])
		violation("step %u: memory outside every region the insider may write changed: %s",
			  step, can);
	if (before == IBV_QPS_ERR)
		V.died++;
	ctl_send("ENDED %u state=%s serr=%d rerr=%d sok=%u serrn=%u rok=%u rerrn=%u rbad=%u events=%s flush=%s canary=%s",
		 step, qps_name(before), V.serr_st, V.rerr_st, V.sok, V.serr,
		 V.rok, V.rerr, V.rbad, V.events[0] ? V.events : "-", flush,
		 can[0] ? can : "ok");
}

/* At the end, the whole MR must still hold the pattern: every byte the
 * insider wrote was the pattern, so any other value was placed by a packet
 * that had to be dropped (bad ICRC, trimmed, out of window) or by an atomic
 * that had to be answered from the cache (MR-REL-9). */
static void v_check_mr(void)
{
	uint64_t bad = 0, first = 0, words = O.mr_size / 8;
	const uint64_t *w = (const uint64_t *)V.mrb;

	for (uint64_t k = 0; k < words; k++)
		if (w[k] != pat_word(V.pseed, k)) {
			if (!bad++)
				first = k * 8;
		}
	if (bad)
		violation("the MR lost its pattern in %" PRIu64 " word(s), the first at offset %#" PRIx64
			  " (a packet that must be dropped was placed, or an atomic re-executed)",
			  bad, first);
	else
		say("MR pattern intact (%" PRIu64 " MiB)", O.mr_size >> 20);
}

static void run_victim(void)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE }, *ai;
	int ls, one = 1, acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_mr *st;
	char gs[40];
	double end;

	role = "victim";
	dev_open();
	V.pd = ibv_alloc_pd(D.ctx);
	V.pd2 = ibv_alloc_pd(D.ctx);
	if (!V.pd || !V.pd2)
		die("ibv_alloc_pd: %s", strerror(errno));
	V.area_len = GUARD_LEN + O.mr_size + GUARD_LEN;
	V.area = alloc_pinned(V.area_len);
	V.mrb = V.area + GUARD_LEN;
	V.pseed = rnd64();
	for (uint64_t k = 0; k < O.mr_size / 8; k++)
		((uint64_t *)V.mrb)[k] = pat_word(V.pseed, k);
	v_fill_guards();
	V.mr = ibv_reg_mr(V.pd, V.mrb, O.mr_size, acc);
	V.ob = alloc_pinned(SIDE_LEN);
	V.lb = alloc_pinned(SIDE_LEN);
	for (size_t i = 0; i < SIDE_LEN; i++) {
		V.ob[i] = side_byte(1, i);
		V.lb[i] = side_byte(0, i);
	}
	V.omr = ibv_reg_mr(V.pd2, V.ob, SIDE_LEN, acc);
	V.lmr = ibv_reg_mr(V.pd, V.lb, SIDE_LEN, IBV_ACCESS_LOCAL_WRITE);
	V.rb = alloc_pinned((size_t)RSLOTS * RSLOT_LEN);
	V.rmr = ibv_reg_mr(V.pd, V.rb, (size_t)RSLOTS * RSLOT_LEN, IBV_ACCESS_LOCAL_WRITE);
	V.sb = alloc_pinned(V_SBUF_LEN);
	V.smr = ibv_reg_mr(V.pd, V.sb, V_SBUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	/* The R_Key of a region that no longer exists (MR-SEC-1). */
	st = ibv_reg_mr(V.pd, V.sb, SIDE_LEN, acc);
	if (!V.mr || !V.omr || !V.lmr || !V.rmr || !V.smr || !st)
		die("ibv_reg_mr (MR of %" PRIu64 " MiB): %s", O.mr_size >> 20, strerror(errno));
	V.srkey = st->rkey;
	V.sva = (uintptr_t)V.sb;
	ibv_dereg_mr(st);

	if (getaddrinfo(NULL, O.ctl_port, &hints, &ai))
		die("getaddrinfo(port %s)", O.ctl_port);
	ls = socket(ai->ai_family, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, ai->ai_addr, ai->ai_addrlen) || listen(ls, 1))
		die("listen on TCP port %s: %s", O.ctl_port, strerror(errno));
	freeaddrinfo(ai);
	say("VICTIM-READY %s, MR %" PRIu64 " MiB at %p rkey %#x, other-PD rkey %#x, local-only rkey %#x, stale rkey %#x, TCP port %s",
	    ibv_get_device_name(D.ctx->device), O.mr_size >> 20, (void *)V.mrb,
	    V.mr->rkey, V.omr->rkey, V.lmr->rkey, V.srkey, O.ctl_port);
	fflush(stdout);
	{
		struct pollfd pf = { .fd = ls, .events = POLLIN };

		if (poll(&pf, 1, O.connect_timeout * 1000) <= 0)
			die("no insider connected within %d s", O.connect_timeout);
	}
	ctl = accept(ls, NULL, NULL);
	if (ctl < 0)
		die("accept: %s", strerror(errno));
	setsockopt(ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(ls);
	gid_hex(&D.gid, gs);
	ctl_send("HELLO va=%llx len=%llx rkey=%x ova=%llx orkey=%x lva=%llx lrkey=%x sva=%llx srkey=%x seed=%llx gid=%s",
		 (unsigned long long)(uintptr_t)V.mrb, (unsigned long long)O.mr_size,
		 V.mr->rkey, (unsigned long long)(uintptr_t)V.ob, V.omr->rkey,
		 (unsigned long long)(uintptr_t)V.lb, V.lmr->rkey,
		 (unsigned long long)V.sva, V.srkey, (unsigned long long)V.pseed, gs);
	end = t_start + O.time_s;
	for (;;) {
		char l[512];
		struct pollfd pf[2] = { { .fd = ctl, .events = POLLIN },
					{ .fd = D.ctx->async_fd, .events = POLLIN } };

		poll(pf, 2, 5);
		ctl_read();
		while (lq_n) {
			lq_copy(l, sizeof(l), lq[0]);
			memmove(lq[0], lq[1], (size_t)(lq_n - 1) * sizeof(lq[0]));
			lq_n--;
			if (!strncmp(l, "ROUND ", 6)) {
				v_round(l);
			} else if (!strncmp(l, "GO ", 3)) {
				V.go = true;
			} else if (!strncmp(l, "PING ", 5)) {
				int s = qp_state(V.qp);

				ctl_send("PONG %s state=%s serr=%d rerr=%d", l + 5,
					 V.qp ? qps_name(s) : "-", V.serr_st, V.rerr_st);
			} else if (!strncmp(l, "END ", 4)) {
				v_end((unsigned int)strtoul(l + 4, NULL, 10));
			} else if (!strncmp(l, "BYE", 3)) {
				if (V.qp)
					v_step_free();
				v_check_mr();
				say("done: %u steps, %u ended with the QP in ERR, %u violation(s)",
				    V.steps, V.died, violations);
				ctl_send("BYE violations=%u", violations);
				exit(violations ? 1 : 0);
			}
		}
		v_poll();
		v_post_send();
		v_async();
		if (ctl_eof) {
			violation("the control channel closed before BYE (the insider died?)");
			exit(1);
		}
		if (now_s() > end) {
			violation("still running after --time %u s", O.time_s);
			exit(1);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Insider                                                            */

enum expect { KEEP, MAY, DIE };
static const char *const expect_name[] = { "KEEP", "MAY", "DIE" };

#define MARK_MSN(k)	(0xDEAD0000u | ((k) & 0xffffu))
#define IS_MARK(m)	(((m) >> 16) == 0xDEADu)

static struct ins {
	bool active;
	uint32_t step;
	/* attacker's real QP */
	struct ibv_pd *pd;
	struct ibv_mr *amr;
	uint8_t *ab;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	/* the victim */
	union ibv_gid vgid;
	uint64_t base, len, ova, lva, sva, pseed;
	uint32_t rkey, orkey, lrkey, srkey;
	/* this step's connection */
	uint32_t aqpn, vqpn, a0, v0;
	uint32_t next_psn, next_msn, next_ssn;
	uint32_t cum;
	bool have_cum;
	double cum_t;
	uint32_t vreq, vread;
	bool have_vreq, have_vread;
	uint32_t new_rd;	/* new READ/ATOMIC messages this step */
	unsigned int mark;
	/* what the capture saw from the victim this step */
	int fatal_nack;
	uint32_t nacks[8];
	uint64_t rresp_pkts, rresp_bytes, rresp_unknown, aresp;
	uint32_t bad_reports;
	/* the victim's answers on the control channel */
	uint64_t ping_seq;
	double ping_sent, max_lat;
	bool ping_out, lat_reported;
	char vstate[16];
	/* valid packets sent, for retransmission of holes */
	struct ihist {
		bool used;
		struct mr_pkt p;
		uint8_t pl[PMTU];
	} hist[256];
	/* VA of every READ_REQ / ATOMIC sent, by PSN */
	struct { bool used; uint32_t psn; uint64_t va; } rdva[512], atva[256];
	/* READ messages sent (valid), for re-requests and replays */
	struct { uint32_t psn, msn, len; uint64_t va; } reads[64];
	unsigned int nreads;
	/* the step in progress */
	enum expect ex;
	const char *cls, *var;
} I;

static void ins_rdva_put(uint32_t psn, uint64_t va, bool atomic)
{
	if (atomic) {
		I.atva[psn % 256].used = true;
		I.atva[psn % 256].psn = psn;
		I.atva[psn % 256].va = va;
	} else {
		I.rdva[psn % 512].used = true;
		I.rdva[psn % 512].psn = psn;
		I.rdva[psn % 512].va = va;
	}
}

static bool ins_rdva_get(uint32_t psn, uint64_t *va, bool atomic)
{
	if (atomic) {
		if (!I.atva[psn % 256].used || I.atva[psn % 256].psn != psn)
			return false;
		*va = I.atva[psn % 256].va;
		return true;
	}
	if (!I.rdva[psn % 512].used || I.rdva[psn % 512].psn != psn)
		return false;
	*va = I.rdva[psn % 512].va;
	return true;
}

static void ins_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ins_bad(const char *fmt, ...)
{
	char b[512];
	va_list ap;

	/* Every one counts; the first few of a step are printed. */
	if (I.bad_reports++ >= 5) {
		violations++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	violation("step %u %s%s%s: %s", I.step, I.cls, I.var ? "/" : "",
		  I.var ? I.var : "", b);
}

/* READ_RESP from the victim: exactly the pattern of the bytes it names,
 * never a byte outside the MR, never for a request that had to be dropped. */
static void ins_check_rresp(const struct mr_pkt *p)
{
	uint64_t va, off;
	size_t bad;

	if (IS_MARK(p->dxh.msn)) {
		ins_bad("READ_RESP psn %#x for msn %#x: a READ_REQ that had to be dropped (bad ICRC, trimmed, truncated or malformed) was executed",
			p->psn, p->dxh.msn);
		return;
	}
	if (p->flags & MR_F_TRIM)
		return;
	I.rresp_pkts++;
	I.rresp_bytes += p->payload_len;
	if (!ins_rdva_get(p->psn, &va, false)) {
		I.rresp_unknown++;
		return;
	}
	off = va - I.base + p->dxh.offset;
	if (va < I.base || off > I.len || p->payload_len > I.len - off) {
		ins_bad("READ_RESP psn %#x msn %u offset %u len %u: bytes %#" PRIx64 "..%#" PRIx64
			" outside the %" PRIu64 "-byte MR were sent (MR-SEC-10)",
			p->psn, p->dxh.msn, p->dxh.offset, p->payload_len, off,
			off + p->payload_len, I.len);
		return;
	}
	bad = pat_check(p->payload, I.pseed, off, p->payload_len);
	if (bad < p->payload_len)
		ins_bad("READ_RESP psn %#x msn %u offset %u len %u: byte %zu (MR offset %#" PRIx64
			") is %#x, the MR holds %#x",
			p->psn, p->dxh.msn, p->dxh.offset, p->payload_len, bad,
			off + bad, p->payload[bad], pat_byte(I.pseed, off + bad));
}

static void ins_check_aresp(const struct mr_pkt *p)
{
	uint64_t va, want;

	I.aresp++;
	if (IS_MARK(p->dxh.msn)) {
		ins_bad("ATOMIC_RESP psn %#x msn %#x: an atomic that had to be dropped was executed",
			p->psn, p->dxh.msn);
		return;
	}
	if (!ins_rdva_get(p->psn, &va, true) || va < I.base || va + 8 > I.base + I.len)
		return;
	want = pat_word(I.pseed, (va - I.base) / 8);
	if (p->atomic_orig != want)
		ins_bad("ATOMIC_RESP psn %#x: original value %#" PRIx64 ", the MR word at %#" PRIx64
			" holds %#" PRIx64, p->psn, (uint64_t)p->atomic_orig, va - I.base, want);
}

static void ins_cap(uint32_t src, uint32_t dst, uint16_t sport,
		    const struct mr_pkt *p, const uint8_t *raw, uint32_t len)
{
	/* Only what the victim's module sent (MR-ENC-2 source ports): the
	 * off-path attacker on the victim's host forges NACKs and responses
	 * at this very QP pair too. */
	if (!I.active || src != N.peer || dst != N.me || sport < MR_ENTROPY_BASE ||
	    p->sqpn != I.vqpn || p->dqpn != I.aqpn)
		return;
	if (!(p->flags & MR_F_TRIM) && mr_icrc_check(raw, len))
		return;
	switch (p->opcode) {
	case MR_OP_NACK:
		if (p->nkh.reason < 8)
			I.nacks[p->nkh.reason]++;
		if (p->nkh.reason >= MR_NACK_REMOTE_ACCESS && !I.fatal_nack)
			I.fatal_nack = p->nkh.reason;
		/* fall through */
	case MR_OP_ACK:
		if (!I.have_cum || mr_psn_after(p->akh.cum_psn, I.cum)) {
			I.cum = p->akh.cum_psn;
			I.cum_t = now_s();
		}
		I.have_cum = true;
		break;
	case MR_OP_READ_RESP:
		ins_check_rresp(p);
		break;
	case MR_OP_ATOMIC_RESP:
		ins_check_aresp(p);
		break;
	default:
		if (mr_op_desc(p->opcode)->attrs & MR_OPA_REQ) {
			if (!I.have_vreq || mr_psn_after(p->psn, I.vreq))
				I.vreq = p->psn;
			I.have_vreq = true;
			if (p->opcode == MR_OP_READ_REQ) {
				I.vread = p->psn;
				I.have_vread = true;
			}
		}
		break;
	}
}

static bool ins_ctl_line(const char *l)
{
	unsigned long long seq;
	char st[16];

	if (sscanf(l, "PONG %llu state=%15s", &seq, st) != 2)
		return false;
	if (I.ping_out && seq == I.ping_seq) {
		double lat = now_s() - I.ping_sent;

		if (lat > I.max_lat)
			I.max_lat = lat;
		I.ping_out = false;
	}
	snprintf(I.vstate, sizeof(I.vstate), "%s", st);
	return true;
}

/* Every 500 ms: is the victim's user space still answering? */
static void ins_svc(void)
{
	double t = now_s();

	if (!I.active || ctl < 0)
		return;
	if (I.ping_out) {
		if (t - I.ping_sent > O.max_lat_ms / 1000.0 && !I.lat_reported) {
			I.lat_reported = true;
			ins_bad("the victim did not answer the control channel for %.0f ms (bound %u ms): the host is not responsive",
				(t - I.ping_sent) * 1000, O.max_lat_ms);
		}
		if (t - I.ping_sent > I.max_lat)
			I.max_lat = t - I.ping_sent;
		return;
	}
	if (t - I.ping_sent >= 0.5) {
		I.ping_seq++;
		I.ping_sent = t;
		I.ping_out = true;
		ctl_send("PING %llu", (unsigned long long)I.ping_seq);
	}
}

static bool ins_dead(void)
{
	return I.fatal_nack || !strcmp(I.vstate, "ERR") || ctl_eof;
}

/* Send an attack packet of this step (its PSN is not consumed). */
static void ins_tx_attack(const uint8_t *b, uint32_t n)
{
	tx_udp_sock(b, n, true, false);
}

static void ins_fill(struct mr_pkt *p)
{
	p->dqpn = I.vqpn;
	p->sqpn = I.aqpn;
	p->ts = ts_now();
	p->path = (uint8_t)rnd_below(8);
}

static void ins_retransmit(uint32_t psn)
{
	struct ihist *h = &I.hist[psn % 256];
	uint8_t b[4096];
	struct mr_pkt p;

	if (!h->used || h->p.psn != psn)
		return;
	p = h->p;
	p.payload = h->pl;
	p.ts = ts_now();
	p.flags |= MR_F_RETX | MR_F_ACKREQ;
	tx_udp_sock(b, enc(&p, b, sizeof(b)), false, false);
}

static uint32_t ins_cum(void)
{
	return I.have_cum ? I.cum : mr_psn_add(I.a0, 1);
}

/* Room in the victim's 256-PSN window (keep 64 spare); retransmit the
 * oldest hole like a requester would. False: stuck or the QP is gone. */
static bool ins_window(uint32_t need)
{
	double t0 = now_s(), last = 0;

	for (;;) {
		uint32_t cum = ins_cum();

		if (mr_psn_dist(I.next_psn, cum) + need < 192)
			return true;
		if (ins_dead() || now_s() - t0 > 3)
			return false;
		if (now_s() - I.cum_t > 0.05 && now_s() - last > 0.05) {
			ins_retransmit(cum);
			last = now_s();
		}
		service(0.002);
	}
}

/* A valid request at the next PSN, kept for retransmission. @rsvd: bits of
 * the reserved flag byte to set (MR-VER-2: processed as if zero). */
static bool ins_tx_valid(struct mr_pkt *p, uint8_t rsvd)
{
	struct ihist *h;
	uint8_t b[4096];
	uint32_t n;

	if (!ins_window(1))
		return false;
	ins_fill(p);
	p->psn = I.next_psn;
	h = &I.hist[p->psn % 256];
	h->used = true;
	h->p = *p;
	if (p->payload_len)
		memcpy(h->pl, p->payload, p->payload_len);
	h->p.payload = h->pl;
	if (p->opcode == MR_OP_READ_REQ)
		ins_rdva_put(p->psn, p->rxh.va, false);
	else if (p->opcode == MR_OP_ATOMIC_FA || p->opcode == MR_OP_ATOMIC_CS)
		ins_rdva_put(p->psn, p->axh.va, true);
	n = enc(p, b, sizeof(b));
	if (rsvd) {
		b[2] |= rsvd;
		icrc_fix(b, n);
	}
	tx_udp_sock(b, n, false, false);
	I.next_psn = mr_psn_add(I.next_psn, 1);
	return true;
}

/* WRITE (or WRITE_IMM) of the pattern to MR offset @off. */
static bool ins_write(uint64_t off, uint32_t len, bool imm, uint8_t rsvd)
{
	uint32_t npk = len ? (len - 1) / PMTU + 1 : 1;
	uint32_t msn = I.next_msn, ssn = imm ? I.next_ssn : 0;
	uint8_t pl[PMTU];

	if (!ins_window(npk))
		return false;
	I.next_msn++;
	if (imm)
		I.next_ssn++;
	for (uint32_t k = 0; k < npk; k++) {
		struct mr_pkt p = { .opcode = imm ? MR_OP_WRITE_IMM : MR_OP_WRITE };

		p.dxh.msn = msn;
		p.dxh.ssn = ssn;
		p.dxh.msg_len = len;
		p.dxh.offset = k * PMTU;
		p.payload_len = len ? (len - p.dxh.offset < PMTU ? len - p.dxh.offset : PMTU) : 0;
		pat_fill(pl, I.pseed, off + p.dxh.offset, p.payload_len);
		p.payload = pl;
		p.rxh.va = I.base + off;
		p.rxh.rkey = I.rkey;
		p.imm = rnd32();
		p.flags = req_flags(p.opcode, k == npk - 1 ? MR_F_ACKREQ : 0,
				    p.dxh.offset, p.payload_len, len);
		if (!ins_tx_valid(&p, rsvd))
			return false;
	}
	return true;
}

/* A new READ message of MR bytes [off, off + len). */
static bool ins_read_new(uint64_t off, uint32_t len)
{
	struct mr_pkt p = { .opcode = MR_OP_READ_REQ,
			    .flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ };

	p.dxh.msn = I.next_msn;
	p.dxh.msg_len = len;
	p.rxh.va = I.base + off;
	p.rxh.rkey = I.rkey;
	if (!ins_tx_valid(&p, 0))
		return false;
	I.reads[I.nreads % 64].psn = p.psn;
	I.reads[I.nreads % 64].msn = p.dxh.msn;
	I.reads[I.nreads % 64].va = p.rxh.va;
	I.reads[I.nreads % 64].len = len;
	I.nreads++;
	I.next_msn++;
	I.new_rd++;
	return true;
}

/* A re-request (new PSN, the READ's MSN and VA) of bytes [roff, roff + rlen)
 * of READ @r (MR-REL-24). */
static bool ins_read_rereq(unsigned int r, uint32_t roff, uint32_t rlen)
{
	struct mr_pkt p = { .opcode = MR_OP_READ_REQ,
			    .flags = MR_F_FIRST | MR_F_LAST };

	p.dxh.msn = I.reads[r % 64].msn;
	p.dxh.offset = roff;
	p.dxh.msg_len = rlen;
	p.rxh.va = I.reads[r % 64].va;
	p.rxh.rkey = I.rkey;
	return ins_tx_valid(&p, 0);
}

/* A duplicate of READ @r's first READ_REQ (its PSN, before cum_psn) naming
 * bytes [roff, roff + rlen) of the same READ message (MR-REL-8). */
static void ins_read_dup(unsigned int r, uint32_t roff, uint32_t rlen, uint32_t msn)
{
	struct mr_pkt p = { .opcode = MR_OP_READ_REQ,
			    .flags = MR_F_FIRST | MR_F_LAST | MR_F_RETX };
	uint8_t b[256];

	ins_fill(&p);
	p.psn = I.reads[r % 64].psn;
	p.dxh.msn = msn;
	p.dxh.offset = roff;
	p.dxh.msg_len = rlen;
	p.rxh.va = I.reads[r % 64].va;
	p.rxh.rkey = I.rkey;
	ins_tx_attack(b, enc(&p, b, sizeof(b)));
}

/* FETCH_ADD 0 of an aligned MR word: its original value must be the pattern. */
static bool ins_atomic_fa0(uint64_t off)
{
	struct mr_pkt p = { .opcode = MR_OP_ATOMIC_FA,
			    .flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ };

	p.dxh.msn = I.next_msn;
	p.dxh.msg_len = MR_ATOMIC_LEN;
	p.axh.va = I.base + (off & ~7ull);
	p.axh.rkey = I.rkey;
	if (!ins_tx_valid(&p, 0))
		return false;
	I.next_msn++;
	I.new_rd++;
	return true;
}

/* SEND of @len bytes (<= the victim's 1 KiB receive SGE unless @len says
 * otherwise): the content the victim checks. */
static bool ins_send(uint32_t len, bool imm)
{
	uint32_t npk = len ? (len - 1) / PMTU + 1 : 1;
	uint32_t msn = I.next_msn, ssn = I.next_ssn;
	uint8_t pl[PMTU];

	if (!ins_window(npk))
		return false;
	I.next_msn++;
	I.next_ssn++;
	for (uint32_t k = 0; k < npk; k++) {
		struct mr_pkt p = { .opcode = imm ? MR_OP_SEND_IMM : MR_OP_SEND };

		p.dxh.msn = msn;
		p.dxh.ssn = ssn;
		p.dxh.msg_len = len;
		p.dxh.offset = k * PMTU;
		p.payload_len = len ? (len - p.dxh.offset < PMTU ? len - p.dxh.offset : PMTU) : 0;
		pat_fill(pl, I.pseed ^ SEND_SEED, (uint64_t)ssn * 4096 + p.dxh.offset,
			 p.payload_len);
		p.payload = pl;
		p.imm = rnd32();
		p.flags = req_flags(p.opcode, k == npk - 1 ? MR_F_ACKREQ : 0,
				    p.dxh.offset, p.payload_len, len);
		if (!ins_tx_valid(&p, 0))
			return false;
	}
	return true;
}

/* A legitimate small request (a WRITE of the pattern), to move the
 * window along. New READs and atomics are left to the steps that count
 * them: at most 4 per step, the requester's max_rd_atomic, below the
 * victim's max_dest_rd_atomic (MR-VERBS-15). */
static bool ins_valid_small(void)
{
	uint32_t len = rnd_below(2) ? rnd_below(PMTU) + 1 : rnd_below(2 * PMTU + 1);

	return ins_write((uint64_t)rnd_below((uint32_t)((I.len - 8192) / 8)) * 8,
			 len, false, 0);
}

/* An MR offset with room for @n bytes. */
static uint64_t ins_off(uint64_t n)
{
	return n >= I.len ? 0 : (rnd64() % (I.len - n + 1)) & ~7ull;
}

static bool ins_more(double end)
{
	return now_s() < end && !ctl_eof && (I.ex == KEEP || !ins_dead());
}

/* Wait until every valid request sent has been received (holes resent). */
static void ins_drain(double tmo)
{
	double t0 = now_s(), last = 0;

	while (now_s() - t0 < tmo && !ins_dead() && ins_cum() != I.next_psn) {
		if (now_s() - I.cum_t > 0.05 && now_s() - last > 0.05) {
			ins_retransmit(ins_cum());
			last = now_s();
		}
		service(0.005);
	}
}

/* The base for malformed packets of this connection. */
static void ins_mbase(struct mbase *m)
{
	memset(m, 0, sizeof(*m));
	m->rq_dqpn = m->ak_dqpn = I.vqpn;
	m->rq_sqpn = m->ak_sqpn = I.aqpn;
	m->rq_psn = I.next_psn;
	m->ak_psn = I.have_vreq ? I.vreq : I.v0;
	m->insider = true;
	m->va = I.base + ins_off(4 * PMTU);
	m->rkey = I.rkey;
	m->mr_base = I.base;
	m->pseed = I.pseed;
}

/* ---- KEEP steps ---- */

/* The measured field case first: the requester's first PSN, MSN 0, the
 * whole MR; then other replays of this step's READ_REQs. */
static void is_read_replay(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		unsigned int r = rnd_below(I.nreads < 64 ? I.nreads : 64);
		uint32_t avail, off, len;

		if (I.nreads < 8 && I.new_rd < 4 && rnd_below(8) == 0) {
			if (!ins_read_new(ins_off(1 << 20), 64 << 10))
				break;
			continue;
		}
		/* Only READ_REQs the victim already has: duplicates. */
		if (mr_psn_diff(I.reads[r].psn, ins_cum()) >= 0)
			r = 0;
		avail = (uint32_t)(I.len - (I.reads[r].va - I.base));
		if (r == 0 || rnd_below(4) == 0) {
			ins_read_dup(r, 0, avail, I.reads[r].msn);
			continue;
		}
		off = rnd_below(avail / PMTU) * PMTU;
		len = 1 + rnd_below(avail - off);
		ins_read_dup(r, off, len, I.reads[r].msn);
	}
}

/* New READs of the whole MR, half of it, its last byte (at most 4: below
 * max_dest_rd_atomic), then re-requests of ranges of them. */
static void is_read_huge(int arg, double end)
{
	(void)arg;
	if (!ins_read_new(0, (uint32_t)I.len) ||
	    !ins_read_new(I.len / 2, (uint32_t)(I.len / 2)) ||
	    !ins_read_new(I.len - 1, 1))
		return;
	while (ins_more(end)) {
		unsigned int r = I.nreads - 3 + rnd_below(2);
		uint32_t rl = I.reads[r % 64].len;
		uint32_t off = rnd_below(rl / PMTU) * PMTU;

		if (!ins_read_rereq(r, off, rnd_below(2) ? rl - off : 1 + rnd_below(rl - off)))
			break;
	}
}

static void is_read_overlap(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		unsigned int r;
		uint32_t off, len;

		if (I.new_rd < 4 && (I.nreads < 2 || rnd_below(16) == 0)) {
			if (!ins_read_new(ins_off(1 << 20), 1 << 20))
				break;
			continue;
		}
		r = I.nreads - 1 - rnd_below(I.nreads > 2 ? 2 : 1);
		off = rnd_below((I.reads[r % 64].len + PMTU - 1) / PMTU) * PMTU;
		len = (1 + rnd_below(256)) * PMTU;
		if (off + len > I.reads[r % 64].len)
			len = I.reads[r % 64].len - off;
		if (!ins_read_rereq(r, off, len))
			break;
	}
}

static void is_malformed(int arg, double end)
{
	unsigned int k = rnd_below(MF_NUM);
	const char *name;
	struct mbase m;
	uint8_t b[4096];
	bool valid;

	(void)arg;
	while (ins_more(end)) {
		uint32_t n;

		if (k % MF_NUM == MF_FLAGS_RSVD)
			k++;
		ins_mbase(&m);
		n = malform(k++, &m, b, sizeof(b), &name, &valid);
		ins_tx_attack(b, n);
		if (k % 8 == 0 && !ins_valid_small())
			break;
	}
}

/* Requests at the next PSN with one bit flipped: READ/ATOMIC carry a marker
 * MSN, WRITE and SEND garbage, CMP_SWP the swap that would break the
 * pattern. Then the real request for that PSN. */
static void is_bad_icrc(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[PMTU];
		struct mr_pkt p;
		uint32_t n, bit;
		uint8_t op = req_ops[rnd_below(8)];
		uint64_t off = ins_off(4 * PMTU);

		rand_req(&p, op, I.vqpn, I.aqpn, I.next_psn, pl);
		rnd_fill(pl, sizeof(pl));
		ins_fill(&p);
		p.psn = I.next_psn;
		p.dxh.msn = MARK_MSN(I.mark++);
		if (mr_op_desc(op)->attrs & MR_OPA_SSN)
			p.dxh.ssn = I.next_ssn;
		if (mr_op_desc(op)->attrs & MR_OPA_MULTI) {
			p.dxh.msg_len = 2 * PMTU;
			p.dxh.offset = 0;
			p.payload_len = PMTU;
			p.payload = pl;
			p.flags = req_flags(op, 0, 0, PMTU, 2 * PMTU);
		}
		if (op == MR_OP_READ_REQ) {
			p.dxh.offset = 0;
			p.dxh.msg_len = 4096;
		}
		p.rxh.va = I.base + off;
		p.rxh.rkey = I.rkey;
		p.axh.va = I.base + off;
		p.axh.rkey = I.rkey;
		p.axh.compare = pat_word(I.pseed, off / 8);
		p.axh.swap_add = ~p.axh.compare;
		p.inv_rkey = I.rkey;
		n = enc(&p, b, sizeof(b));
		do {
			bit = rnd_below(n * 8);
		} while (bit / 8 == 3 && (1u << (bit % 8)) == MR_F_TRIM);
		b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		icrc_break(b, n);
		ins_tx_attack(b, n);
		if (!ins_valid_small())
			break;
	}
}

static void is_truncated(int arg, double end)
{
	unsigned int k = 0;

	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[PMTU];
		struct mr_pkt p;
		uint32_t n;

		rand_req(&p, req_ops[k % 8], I.vqpn, I.aqpn, I.next_psn, pl);
		ins_fill(&p);
		p.psn = I.next_psn;
		p.dxh.msn = MARK_MSN(I.mark++);
		n = enc(&p, b, sizeof(b));
		ins_tx_attack(b, k++ % n);
		if (k % 8 == 0 && !ins_valid_small())
			break;
	}
}

/* TRIM: never placed, NACK TRIMMED for a new PSN (MR-REL-16). */
static void is_trim(int arg, double end)
{
	static const uint8_t ops[] = { MR_OP_SEND, MR_OP_SEND_IMM, MR_OP_WRITE,
				       MR_OP_WRITE_IMM, MR_OP_SEND_INV };

	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[2 * PMTU];
		uint8_t op = ops[rnd_below(5)];
		struct mr_pkt p = { .opcode = op };
		uint32_t n;

		ins_fill(&p);
		p.psn = rnd_below(4) ? I.next_psn : mr_psn_add(I.next_psn, 300 + rnd_below(1000));
		p.dxh.msn = MARK_MSN(I.mark++);
		if (mr_op_desc(op)->attrs & MR_OPA_SSN)
			p.dxh.ssn = I.next_ssn;
		p.dxh.msg_len = (1 + rnd_below(4)) * PMTU;
		p.payload_len = rnd_below(2 * PMTU + 1);
		if (p.payload_len > p.dxh.msg_len)
			p.payload_len = p.dxh.msg_len;
		rnd_fill(pl, p.payload_len);
		p.payload = pl;
		p.rxh.va = I.base + ins_off(4 * PMTU);
		p.rxh.rkey = I.rkey;
		p.inv_rkey = I.rkey;
		p.flags = MR_F_FIRST | MR_F_TRIM;
		n = enc(&p, b, sizeof(b));
		rnd_fill(b + n - MR_ICRC_LEN, MR_ICRC_LEN);
		ins_tx_attack(b, n);
		if (rnd_below(3) == 0 && !ins_valid_small())
			break;
	}
}

/* PSNs beyond the window (NACK SEQ_ERR, rate-limited: MR-REL-10) and before
 * cum_psn (duplicates: never placed, READs re-executed, atomics from the
 * cache: MR-REL-7..9). */
static void is_psn_oow(int arg, double end)
{
	static const uint32_t ahead[] = { 256, 257, 1000, MR_PSN_HALF - 512 };
	static const uint32_t behind[] = { 1, 2, 255, 256, 1u << 22, MR_PSN_HALF };

	(void)arg;
	if (!ins_atomic_fa0(ins_off(8)))
		return;
	while (ins_more(end)) {
		uint8_t b[4096], pl[2 * PMTU];
		uint8_t op = req_ops[rnd_below(8)];
		bool fwd = rnd_below(2);
		uint32_t psn = fwd ? mr_psn_add(I.next_psn, ahead[rnd_below(4)]) :
			mr_psn_sub(ins_cum(), behind[rnd_below(6)]);
		uint64_t off = ins_off(4 * PMTU), va;
		struct mr_pkt p;

		rand_req(&p, op, I.vqpn, I.aqpn, psn, pl);
		ins_fill(&p);
		p.psn = psn;
		p.rxh.va = I.base + off;
		p.rxh.rkey = I.rkey;
		if (op == MR_OP_READ_REQ) {
			/* A re-executed duplicate must be served from the VA
			 * its PSN had; unknown PSNs from the MR start. */
			if (!ins_rdva_get(psn, &va, false))
				va = I.base;
			p.rxh.va = va;
			p.dxh.offset = 0;
			p.dxh.msg_len = 1 + rnd_below(64 << 10);
			if (fwd)
				p.dxh.msn = MARK_MSN(I.mark++);
		} else if (op == MR_OP_ATOMIC_CS || op == MR_OP_ATOMIC_FA) {
			/* Would break the pattern if executed. */
			if (!ins_rdva_get(psn, &va, true))
				va = I.base + off;
			p.axh.va = va;
			p.axh.rkey = I.rkey;
			p.axh.compare = pat_word(I.pseed, (va - I.base) / 8);
			p.axh.swap_add = op == MR_OP_ATOMIC_CS ? ~p.axh.compare : 1;
			if (fwd)
				p.dxh.msn = MARK_MSN(I.mark++);
		} else if (mr_op_desc(op)->attrs & MR_OPA_MULTI) {
			p.dxh.msg_len = 2 * PMTU;
			p.dxh.offset = 0;
			p.payload_len = PMTU;
			p.payload = pl;
			p.flags = req_flags(op, 0, 0, PMTU, 2 * PMTU);
		}
		ins_tx_attack(b, enc(&p, b, sizeof(b)));
		if (rnd_below(4) == 0 && !ins_valid_small())
			break;
	}
}

static void is_atomic(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint8_t b[256], pl[2 * PMTU];
		struct mr_pkt p;
		uint64_t va;
		uint32_t psn;

		switch (rnd_below(4)) {
		case 0:
			if (I.new_rd < 4) {
				if (!ins_atomic_fa0(ins_off(8)))
					return;
				break;
			}
			/* fall through */
		case 1:	/* misaligned (MR-HDR-25): dropped */
			rand_req(&p, rnd_below(2) ? MR_OP_ATOMIC_CS : MR_OP_ATOMIC_FA,
				 I.vqpn, I.aqpn, I.next_psn, pl);
			ins_fill(&p);
			p.psn = I.next_psn;
			p.dxh.msn = MARK_MSN(I.mark++);
			p.axh.va = I.base + ins_off(16);
			p.axh.rkey = I.rkey;
			{
				uint32_t n = enc(&p, b, sizeof(b));
				uint32_t o = hoff(p.opcode, MR_HDR_AXH);

				b[o + 7] |= (uint8_t)(1 + rnd_below(7));
				icrc_fix(b, n);
				ins_tx_attack(b, n);
			}
			break;
		default: /* a duplicate of an executed atomic: from the cache */
			psn = mr_psn_sub(ins_cum(), 1 + rnd_below(64));
			if (!ins_rdva_get(psn, &va, true)) {
				if (!ins_valid_small())
					return;
				break;
			}
			memset(&p, 0, sizeof(p));
			p.opcode = MR_OP_ATOMIC_CS;
			p.flags = MR_F_FIRST | MR_F_LAST | MR_F_RETX;
			ins_fill(&p);
			p.psn = psn;
			p.dxh.msn = rnd32();
			p.dxh.msg_len = MR_ATOMIC_LEN;
			p.axh.va = va;
			p.axh.rkey = I.rkey;
			p.axh.compare = pat_word(I.pseed, (va - I.base) / 8);
			p.axh.swap_add = ~p.axh.compare;
			ins_tx_attack(b, enc(&p, b, sizeof(b)));
			break;
		}
	}
}

static void is_write(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096];
		struct mr_pkt p;
		uint32_t len;

		switch (rnd_below(5)) {
		case 0:	/* zero length, any R_Key: not validated (MR-VERBS-29) */
			memset(&p, 0, sizeof(p));
			p.opcode = MR_OP_WRITE;
			p.flags = MR_F_FIRST | MR_F_LAST;
			p.dxh.msn = I.next_msn;
			p.rxh.va = rnd64() >> 2;
			p.rxh.rkey = rnd32();
			if (!ins_tx_valid(&p, 0))
				return;
			I.next_msn++;
			break;
		case 1:	/* reserved flag bits: ignored (MR-VER-2) */
			len = 1 + rnd_below(3 * PMTU);
			if (!ins_write(ins_off(len), len, false, (uint8_t)(1u << rnd_below(8))))
				return;
			break;
		case 2: {	/* exact duplicates of received packets */
			uint32_t psn = mr_psn_sub(ins_cum(), 1 + rnd_below(32));
			struct ihist *h = &I.hist[psn % 256];

			if (h->used && h->p.psn == psn) {
				p = h->p;
				p.payload = h->pl;
				ins_tx_attack(b, enc(&p, b, sizeof(b)));
			}
			break;
		}
		default:
			len = rnd_below(2) ? rnd_below(64 << 10) : rnd_below(3 * PMTU);
			if (!ins_write(ins_off(len), len, rnd_below(8) == 0, 0))
				return;
			break;
		}
	}
}

static void is_send(int arg, double end)
{
	(void)arg;
	for (int n = 0; n < 48 && ins_more(end); n++)
		if (!ins_send(rnd_below(RSGE_LEN + 1), rnd_below(2)))
			return;
	while (ins_more(end))
		if (!ins_valid_small())
			return;
}

/* Forged acknowledgement information towards the victim's requester that
 * a requester must survive: ACKs beyond nxt, stale, with SACK bits, credit
 * 0, random timestamps; NACK SEQ_ERR/TRIMMED/RNR; PROBEs; responses. */
static void is_forge_ack(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[PMTU];
		struct mr_pkt p;
		uint32_t v = I.have_vreq ? I.vreq : I.v0;

		switch (rnd_below(10)) {
		case 0:
			rand_ack(&p, false, I.vqpn, I.aqpn, mr_psn_add(v, 1000 + rnd_below(1u << 20)), 0);
			break;
		case 1:
			rand_ack(&p, false, I.vqpn, I.aqpn, mr_psn_sub(v, 300 + rnd_below(1u << 20)), 0);
			break;
		case 2:
			rand_ack(&p, false, I.vqpn, I.aqpn, mr_psn_sub(v, rnd_below(16)), 0);
			break;
		case 3:
			rand_ack(&p, false, I.vqpn, I.aqpn, mr_psn_add(v, 1), 0);
			p.akh.credit = rnd_below(2);
			break;
		case 4:
		case 5:
			rand_ack(&p, true, I.vqpn, I.aqpn, mr_psn_sub(v, rnd_below(4)), v);
			p.nkh.reason = (uint8_t)(MR_NACK_TRIMMED + rnd_below(3));
			p.nkh.rnr_timer = p.nkh.reason == MR_NACK_RNR ?
				(uint8_t)rnd_below(MR_RNR_TIMER_MAX + 1) : 0;
			break;
		case 6:
			memset(&p, 0, sizeof(p));
			p.opcode = rnd_below(2) ? MR_OP_PROBE : MR_OP_PROBE_REPLY;
			p.dqpn = I.vqpn;
			p.sqpn = I.aqpn;
			p.psn = rnd32() & MR_PSN_MASK;
			p.ts = rnd32();
			break;
		case 7:
		case 8:	/* garbage for the victim's own READ (its buffer, its risk) */
			memset(&p, 0, sizeof(p));
			p.opcode = MR_OP_READ_RESP;
			p.dqpn = I.vqpn;
			p.sqpn = I.aqpn;
			p.psn = I.have_vread ? I.vread : v;
			p.dxh.msn = rnd_below(64);
			p.dxh.msg_len = V_READ_LEN;
			p.dxh.offset = rnd_below(V_READ_LEN / PMTU) * PMTU;
			p.payload_len = PMTU;
			rnd_fill(pl, PMTU);
			p.payload = pl;
			p.flags = req_flags(MR_OP_READ_RESP, 0, p.dxh.offset, PMTU, V_READ_LEN);
			break;
		default:
			memset(&p, 0, sizeof(p));
			p.opcode = MR_OP_ATOMIC_RESP;
			p.dqpn = I.vqpn;
			p.sqpn = I.aqpn;
			p.psn = v;
			p.flags = MR_F_FIRST | MR_F_LAST;
			p.dxh.msn = rnd_below(64);
			p.dxh.msg_len = MR_ATOMIC_LEN;
			p.atomic_orig = rnd64();
			break;
		}
		if (p.opcode != MR_OP_PROBE && p.opcode != MR_OP_PROBE_REPLY)
			p.ts = rnd_below(2) ? ts_now() : rnd32();
		ins_tx_attack(b, enc(&p, b, sizeof(b)));
		if (rnd_below(8) == 0 && !ins_valid_small())
			return;
	}
}

/* ---- MAY steps ---- */

/* SENDs with SSNs ahead: draining the SRQ (MR-VERBS-20, MR-PLACE-12). */
static void is_ssn_ahead(int arg, double end)
{
	static const uint32_t ahead[] = { 1, 63, 200, 255, 256, 1000, 1u << 31 };

	(void)arg;
	for (unsigned int i = 0; ins_more(end); i++) {
		struct mr_pkt p = { .opcode = MR_OP_SEND };
		uint8_t pl[64];

		if (i % 2) {
			if (!ins_send(rnd_below(RSGE_LEN), false))
				return;
			continue;
		}
		rnd_fill(pl, sizeof(pl));
		p.dxh.msn = I.next_msn;
		p.dxh.ssn = I.next_ssn + ahead[(i / 2) % 7];
		p.dxh.msg_len = sizeof(pl);
		p.payload_len = sizeof(pl);
		p.payload = pl;
		p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
		if (!ins_tx_valid(&p, 0))
			return;
		I.next_msn++;
	}
}

/* MSNs ahead of or behind the responder's count (MR-REL-25). */
static void is_msn_bad(int arg, double end)
{
	static const int32_t delta[] = { 1, 2, 1000, INT32_MIN, -1, -100 };

	(void)arg;
	for (unsigned int i = 0; ins_more(end); i++) {
		struct mr_pkt p;
		uint8_t pl[2 * PMTU];
		uint8_t op = req_ops[rnd_below(8)];

		if (i % 2) {
			if (!ins_valid_small())
				return;
			continue;
		}
		rand_req(&p, op, I.vqpn, I.aqpn, I.next_psn, pl);
		p.dxh.msn = (uint32_t)((int64_t)I.next_msn + delta[(i / 2) % 6]);
		if (mr_op_desc(op)->attrs & MR_OPA_MULTI) {
			p.dxh.msg_len = rnd_below(PMTU + 1);
			p.dxh.offset = 0;
			p.payload_len = p.dxh.msg_len;
			pat_fill(pl, I.pseed, 0, p.payload_len);
			p.payload = pl;
			p.flags = req_flags(op, MR_F_ACKREQ, 0, p.payload_len, p.dxh.msg_len);
		}
		if (op == MR_OP_READ_REQ) {
			p.dxh.offset = 0;
			p.dxh.msg_len = 1 + rnd_below(4096);
		}
		if (mr_op_desc(op)->attrs & MR_OPA_SSN)
			p.dxh.ssn = I.next_ssn;
		p.rxh.va = I.base;
		p.rxh.rkey = I.rkey;
		p.axh.va = I.base;
		p.axh.rkey = I.rkey;
		p.axh.swap_add = 0;
		p.axh.compare = ~pat_word(I.pseed, 0);
		p.inv_rkey = rnd32();
		if (!ins_tx_valid(&p, 0))
			return;
	}
}

/* Random mutations of its own valid packets, with a correct ICRC, made
 * harmless to the pattern: WRITE payloads rewritten to the pattern of
 * where they land, atomics made FETCH_ADD 0, addressed to this pair. */
static void is_mutate_own(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint8_t b[4096], pl[2 * PMTU];
		struct mr_pkt p, q;
		uint32_t n;
		unsigned int k = 1 + rnd_below(4);
		const struct mr_op_desc *d;

		rand_req(&p, req_ops[rnd_below(8)], I.vqpn, I.aqpn, I.next_psn, pl);
		ins_fill(&p);
		p.psn = mr_psn_add(I.next_psn, rnd_below(4));
		p.rxh.va = I.base + ins_off(4 * PMTU);
		p.rxh.rkey = I.rkey;
		p.axh.va = I.base + ins_off(8);
		p.axh.rkey = I.rkey;
		n = enc(&p, b, sizeof(b));
		while (k--)
			b[rnd_below(n - MR_ICRC_LEN)] ^= (uint8_t)(1 + rnd_below(255));
		icrc_fix(b, n);
		if (mr_pkt_decode(b, n, &q)) {
			ins_tx_attack(b, n);	/* malformed now: dropped */
			continue;
		}
		d = mr_op_desc(q.opcode);
		q.dqpn = I.vqpn;
		q.sqpn = I.aqpn;
		if (q.opcode == MR_OP_UD_SEND || q.opcode == MR_OP_UD_SEND_IMM)
			q.deth.src_qpn = q.sqpn;
		if ((d->hdrs & MR_HDR_RXH) && q.payload_len) {
			memcpy(pl, q.payload, q.payload_len);
			pat_fill(pl, I.pseed, q.rxh.va + q.dxh.offset - I.base, q.payload_len);
			q.payload = pl;
		} else if (q.payload_len) {
			memcpy(pl, q.payload, q.payload_len);
			q.payload = pl;
		}
		if (d->hdrs & MR_HDR_AXH) {
			q.opcode = MR_OP_ATOMIC_FA;
			q.axh.swap_add = 0;
			q.axh.compare = 0;
			ins_rdva_put(q.psn, q.axh.va, true);
		}
		if (q.opcode == MR_OP_READ_REQ && !ins_rdva_get(q.psn, &(uint64_t){ 0 }, false))
			ins_rdva_put(q.psn, q.rxh.va, false);
		n = (uint32_t)mr_pkt_encode(&q, b, sizeof(b));
		if ((int)n < 0)
			continue;
		ins_tx_attack(b, n);
		if (rnd_below(4) == 0 && !ins_valid_small())
			return;
	}
}

/* Duplicates of the first READ_REQ naming ranges outside the MR: refused,
 * never a byte from outside (MR-REL-8 re-validates, MR-SEC-10). */
static void is_read_oob_replay(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint32_t l = (uint32_t)I.len;

		switch (rnd_below(4)) {
		case 0:
			ins_read_dup(0, l, 4096, 0);
			break;
		case 1:
			ins_read_dup(0, 0, MR_MAX_MSG_LEN, 0);
			break;
		case 2:
			ins_read_dup(0, l - PMTU, 2 * PMTU, 0);
			break;
		default:
			ins_read_dup(0, MR_MAX_MSG_LEN - PMTU, PMTU, 0);
			break;
		}
		if (rnd_below(8) == 0 && !ins_valid_small())
			return;
	}
}

/* WRITE messages of 2^31 bytes whose first packets land in the MR. */
static void is_write_2g(int arg, double end)
{
	(void)arg;
	while (ins_more(end)) {
		uint64_t start = rnd_below(2) ? 0 : I.len - 4 * PMTU;
		uint32_t msn = I.next_msn++;

		for (uint32_t k = 0; k < 4 && ins_more(end); k++) {
			struct mr_pkt p = { .opcode = MR_OP_WRITE };
			uint8_t pl[PMTU];

			p.dxh.msn = msn;
			p.dxh.msg_len = MR_MAX_MSG_LEN;
			p.dxh.offset = k * PMTU;
			p.payload_len = PMTU;
			pat_fill(pl, I.pseed, start + k * PMTU, PMTU);
			p.payload = pl;
			p.rxh.va = I.base + start;
			p.rxh.rkey = I.rkey;
			p.flags = req_flags(MR_OP_WRITE, 0, p.dxh.offset, PMTU, MR_MAX_MSG_LEN);
			if (!ins_tx_valid(&p, 0))
				return;
		}
	}
}

/* ---- DIE steps: one request the responder must refuse ---- */

enum { RK_OTHERPD, RK_LOCAL, RK_STALE, RK_KEYFLIP, RK_INDEX, RK_RANDOM,
       RG_BEYOND_END, RG_BEFORE_START, RG_READ_2G, RG_ATOMIC_END };

static void is_refused(int arg, double end)
{
	struct mr_pkt p;
	uint8_t pl[PMTU];
	uint32_t psn;

	memset(&p, 0, sizeof(p));
	rnd_fill(pl, sizeof(pl));
	p.dxh.msn = I.next_msn;
	switch (arg) {
	case RK_OTHERPD:
	case RK_LOCAL:
	case RK_STALE:
	case RG_BEYOND_END:
	case RG_BEFORE_START:
		p.opcode = MR_OP_WRITE;
		p.dxh.msg_len = PMTU;
		p.payload_len = PMTU;
		p.payload = pl;
		p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
		p.rxh.rkey = arg == RK_OTHERPD ? I.orkey : arg == RK_LOCAL ? I.lrkey :
			arg == RK_STALE ? I.srkey : I.rkey;
		p.rxh.va = arg == RK_OTHERPD ? I.ova : arg == RK_LOCAL ? I.lva :
			arg == RK_STALE ? I.sva :
			arg == RG_BEYOND_END ? I.base + I.len - PMTU / 2 : I.base - PMTU / 2;
		break;
	case RK_KEYFLIP:
	case RK_RANDOM:
	case RG_READ_2G:
		p.opcode = MR_OP_READ_REQ;
		p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
		p.dxh.msg_len = arg == RG_READ_2G ? MR_MAX_MSG_LEN : 4096;
		p.rxh.va = I.base;
		p.rxh.rkey = arg == RK_KEYFLIP ? I.rkey ^ (1 + rnd_below(255)) :
			arg == RK_RANDOM ? rnd32() : I.rkey;
		if (p.rxh.rkey == I.rkey && arg != RG_READ_2G)
			p.rxh.rkey ^= 1;
		break;
	default:	/* RK_INDEX, RG_ATOMIC_END */
		p.opcode = MR_OP_ATOMIC_FA;
		p.flags = MR_F_FIRST | MR_F_LAST | MR_F_ACKREQ;
		p.dxh.msg_len = MR_ATOMIC_LEN;
		p.axh.va = arg == RG_ATOMIC_END ? I.base + I.len : I.base;
		p.axh.rkey = arg == RG_ATOMIC_END ? I.rkey : I.rkey + 0x100;
		p.axh.swap_add = 1;
		break;
	}
	if (!ins_tx_valid(&p, 0))
		return;
	psn = p.psn;
	I.next_msn++;
	/* Resend it (a retransmission) until the victim reacts. */
	while (now_s() < end && !ins_dead()) {
		service(0.1);
		if (!ins_dead())
			ins_retransmit(psn);
	}
}

/* A SEND longer than the receive WQE's 1 KiB SGE (MR-VERBS-21: INVALID_REQ,
 * the WQE completes with IBV_WC_LOC_LEN_ERR). */
static void is_send_long(int arg, double end)
{
	(void)arg;
	if (!ins_send(2 * PMTU, false))
		return;
	while (now_s() < end && !ins_dead()) {
		service(0.1);
		if (!ins_dead())
			ins_retransmit(mr_psn_sub(I.next_psn, 1));
	}
}

/* A forged fatal NACK naming the victim's newest request PSN (cum_psn ==
 * nack_psn, MR-REL-18): the WR fails with the mapped status (MR-VERBS-22). */
static void is_forge_nack(int arg, double end)
{
	while (now_s() < end && !ins_dead()) {
		uint8_t b[256];
		struct mr_pkt p;

		if (!I.have_vreq) {
			service(0.01);
			continue;
		}
		rand_ack(&p, true, I.vqpn, I.aqpn, I.vreq, I.vreq);
		p.nkh.reason = (uint8_t)arg;
		p.nkh.rnr_timer = 0;
		p.akh.sack[0] = p.akh.sack[1] = p.akh.sack[2] = p.akh.sack[3] = 0;
		p.akh.credit = MR_CREDIT_UNLIMITED;
		p.ts = ts_now();
		ins_tx_attack(b, enc(&p, b, sizeof(b)));
		service(0.05);
	}
}

struct istep {
	const char *cls, *var;
	enum expect ex;
	void (*fn)(int arg, double end);
	int arg;
	const char *what;
};

static const struct istep isteps[] = {
	{ "read_replay", NULL, KEEP, is_read_replay, 0,
	  "duplicates of its READ_REQs, first the requester's initial PSN with MSN 0 for the whole MR" },
	{ "malformed", NULL, KEEP, is_malformed, 0,
	  "every malformation of the table at in-window PSNs" },
	{ "rkey", "other_pd", DIE, is_refused, RK_OTHERPD,
	  "WRITE with the R_Key of an MR of another PD (MR-SEC-10)" },
	{ "read_huge", NULL, KEEP, is_read_huge, 0,
	  "READs of the whole MR, half of it, its last byte; re-requests of their ranges" },
	{ "bad_icrc", NULL, KEEP, is_bad_icrc, 0,
	  "in-window requests (garbage WRITE/SEND, pattern-breaking CMP_SWP, marked READ) with a bad ICRC" },
	{ "forge_nack", "remote_access", DIE, is_forge_nack, MR_NACK_REMOTE_ACCESS,
	  "NACK REMOTE_ACCESS for the victim's newest request: IBV_WC_REM_ACCESS_ERR" },
	{ "psn_oow", NULL, KEEP, is_psn_oow, 0,
	  "every request opcode beyond the window and before cum_psn" },
	{ "rkey", "local_only", DIE, is_refused, RK_LOCAL,
	  "WRITE to an MR without remote access" },
	{ "truncated", NULL, KEEP, is_truncated, 0, "in-window requests cut at every length" },
	{ "trim", NULL, KEEP, is_trim, 0, "TRIM with garbage payload and ICRC, in and beyond the window" },
	{ "rkey", "stale", DIE, is_refused, RK_STALE, "WRITE with the R_Key of a deregistered MR" },
	{ "forge_ack", NULL, KEEP, is_forge_ack, 0,
	  "ACK/NACK/SACK/responses/PROBEs at the victim's requester" },
	{ "atomic", NULL, KEEP, is_atomic, 0,
	  "FETCH_ADD 0, misaligned atomics, duplicates of executed atomics as CMP_SWP" },
	{ "rkey", "key_flip", DIE, is_refused, RK_KEYFLIP, "READ with the R_Key's key bits changed (MR-SEC-1)" },
	{ "write", NULL, KEEP, is_write, 0,
	  "WRITEs of the pattern, zero-length WRITEs with any R_Key, reserved flag bits, duplicates" },
	{ "send", NULL, KEEP, is_send, 0, "SENDs checked byte for byte by the victim" },
	{ "range", "beyond_end", DIE, is_refused, RG_BEYOND_END, "WRITE across the end of the MR" },
	{ "read_overlap", NULL, KEEP, is_read_overlap, 0, "1 MiB READs and overlapping re-requests" },
	{ "ssn_ahead", NULL, MAY, is_ssn_ahead, 0, "SENDs with SSNs up to 2^31 ahead (SRQ draining)" },
	{ "range", "before_start", DIE, is_refused, RG_BEFORE_START, "WRITE starting before the MR" },
	{ "msn_bad", NULL, MAY, is_msn_bad, 0, "requests with MSNs ahead and behind" },
	{ "rkey", "index", DIE, is_refused, RK_INDEX, "FETCH_ADD with the next index's R_Key" },
	{ "mutate_own", NULL, MAY, is_mutate_own, 0, "random mutations of its own packets, correct ICRC" },
	{ "range", "read_2g", DIE, is_refused, RG_READ_2G, "READ of 2^31 bytes at the MR" },
	{ "read_oob_replay", NULL, MAY, is_read_oob_replay, 0,
	  "duplicate READ_REQs naming ranges outside the MR" },
	{ "send_long", NULL, DIE, is_send_long, 0, "a SEND longer than the receive WQE" },
	{ "rkey", "random", DIE, is_refused, RK_RANDOM, "READ with a random R_Key" },
	{ "write_2g", NULL, MAY, is_write_2g, 0, "WRITE messages of 2^31 bytes starting in the MR" },
	{ "range", "atomic_end", DIE, is_refused, RG_ATOMIC_END, "FETCH_ADD just past the MR" },
	{ "forge_nack", "invalid_req", DIE, is_forge_nack, MR_NACK_INVALID_REQ,
	  "NACK INVALID_REQ: IBV_WC_REM_INV_REQ_ERR" },
	{ "forge_nack", "remote_op", DIE, is_forge_nack, MR_NACK_REMOTE_OP,
	  "NACK REMOTE_OP: IBV_WC_REM_OP_ERR" },
};
#define N_ISTEPS ((int)MR_ARRAY_SIZE(isteps))

static int istep_cls(const char *cls)
{
	for (int i = 0; i < MAX_CLASSES; i++) {
		if (!cstat[i].name) {
			cstat[i].name = cls;
			return i;
		}
		if (!strcmp(cstat[i].name, cls))
			return i;
	}
	return 0;
}

static void ins_connect(const char *host)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	double end = now_s() + O.connect_timeout;
	int one = 1;

	if (getaddrinfo(host, O.ctl_port, &hints, &ai))
		die("getaddrinfo(%s)", host);
	for (;;) {
		ctl = socket(AF_INET, SOCK_STREAM, 0);
		if (ctl >= 0 && !connect(ctl, ai->ai_addr, ai->ai_addrlen))
			break;
		if (ctl >= 0)
			close(ctl);
		ctl = -1;
		if (now_s() > end)
			die("could not connect to the victim at %s:%s", host, O.ctl_port);
		usleep(200000);
	}
	freeaddrinfo(ai);
	setsockopt(ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static const char *wc_name(int st)
{
	return st < 0 ? "-" : ibv_wc_status_str((enum ibv_wc_status)st);
}

/* The health probe: one verified RDMA READ of the MR's first 4 KiB through
 * the real QP (PSN a0, MSN 0). */
static bool ins_probe(void)
{
	struct ibv_sge sg = { .addr = (uintptr_t)I.ab, .length = 4096, .lkey = I.amr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	double end = now_s() + 10;
	size_t x;
	int n;

	memset(I.ab, 0, 4096);
	wr.wr.rdma.remote_addr = I.base;
	wr.wr.rdma.rkey = I.rkey;
	ins_rdva_put(I.a0, I.base, false);
	I.reads[0].psn = I.a0;
	I.reads[0].msn = 0;
	I.reads[0].va = I.base;
	I.reads[0].len = 4096;
	I.nreads = 1;
	if (ibv_post_send(I.qp, &wr, &bad)) {
		ins_bad("health probe: ibv_post_send: %s", strerror(errno));
		return false;
	}
	while ((n = ibv_poll_cq(I.cq, 1, &wc)) == 0 && now_s() < end)
		service(0.002);
	if (n <= 0) {
		ins_bad("health probe: the victim did not serve a 4 KiB READ within 10 s");
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		ins_bad("health probe: READ completed with %s", ibv_wc_status_str(wc.status));
		return false;
	}
	x = pat_check(I.ab, I.pseed, 0, 4096);
	if (x < 4096) {
		ins_bad("health probe: byte %zu of the READ is %#x, the MR holds %#x",
			x, I.ab[x], pat_byte(I.pseed, x));
		return false;
	}
	return true;
}

static double ins_slice;

static void ins_step(unsigned int k, const struct istep *s)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	char l[512], gs[40], vst[16] = "?", events[256] = "-", flush[64] = "?",
		canary[256] = "?";
	int serr = -1, rerr = -1, ci = istep_cls(s->cls);
	unsigned int st, sok = 0, serrn = 0, rok = 0, rerrn = 0, rbad = 0;
	double t0 = now_s(), tend, slice;
	uint64_t sent0 = cstat[ci].pkts;
	bool ok = true, probe;

	memset(&I.hist, 0, sizeof(I.hist));
	memset(&I.rdva, 0, sizeof(I.rdva));
	memset(&I.atva, 0, sizeof(I.atva));
	I.step = k;
	I.cls = s->cls;
	I.var = s->var;
	I.ex = s->ex;
	I.have_cum = I.have_vreq = I.have_vread = false;
	I.new_rd = I.fatal_nack = 0;
	I.bad_reports = 0;
	memset(I.nacks, 0, sizeof(I.nacks));
	I.rresp_pkts = I.rresp_bytes = I.rresp_unknown = I.aresp = 0;
	I.max_lat = 0;
	I.ping_out = I.lat_reported = false;
	snprintf(I.vstate, sizeof(I.vstate), "RTS");
	cur_cls = ci;

	I.cq = ibv_create_cq(D.ctx, 16, NULL, NULL, 0);
	qa.send_cq = qa.recv_cq = I.cq;
	I.qp = I.cq ? ibv_create_qp(I.pd, &qa) : NULL;
	if (!I.qp || qp_to_init(I.qp, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE))
		die("creating the insider's QP: %s", strerror(errno));
	I.aqpn = I.qp->qp_num;
	I.a0 = rnd32() & MR_PSN_MASK;
	gid_hex(&D.gid, gs);
	ctl_send("ROUND %u qpn=%x psn=%x gid=%s ava=%llx alen=%x arkey=%x chk=%u", k,
		 I.aqpn, I.a0, gs, (unsigned long long)(uintptr_t)I.ab, ATT_MR_LEN,
		 I.amr->rkey, s->ex == KEEP);
	if (!ctl_wait("READY ", l, sizeof(l), 30) ||
	    sscanf(l, "READY %u qpn=%x psn=%x", &st, &I.vqpn, &I.v0) != 3 || st != k) {
		violation("step %u: the victim did not set up its QP (%s)", k,
			  ctl_take("FAIL", l, sizeof(l)) ? l : "no answer in 30 s");
		die("cannot go on without a victim");
	}
	if (qp_to_rtr_rts(I.qp, I.vqpn, I.v0, I.a0, &I.vgid))
		die("connecting the insider's QP: %s", strerror(errno));
	ctl_send("GO %u", k);
	I.active = true;
	I.next_psn = mr_psn_add(I.a0, 1);
	I.next_msn = 1;
	I.next_ssn = 0;
	I.cum_t = now_s();
	class_start("insider", s->cls, s->var);
	probe = ins_probe();
	slice = ins_slice;
	if (s->ex == DIE)
		slice = 1.5;	/* ends when the victim QP does */
	tend = now_s() + slice;
	if (probe)
		s->fn(s->arg, tend);
	if (!ins_dead())
		ins_drain(1.0);
	/* Let late answers arrive, then ask the victim. */
	for (double e = now_s() + 0.2; now_s() < e;)
		service(0.01);
	I.active = false;
	ctl_send("END %u", k);
	{
		double te = now_s();

		if (!ctl_wait("ENDED ", l, sizeof(l), 60)) {
			violation("step %u %s: the victim did not end the step within 60 s", k, s->cls);
			die("victim lost");
		}
		if (now_s() - te > 20)
			violation("step %u %s: ending the step (QP to ERR, flush, destroy) took %.1f s on the victim",
				  k, s->cls, now_s() - te);
	}
	sscanf(l, "ENDED %u state=%15s serr=%d rerr=%d sok=%u serrn=%u rok=%u rerrn=%u rbad=%u events=%255s flush=%63s canary=%255s",
	       &st, vst, &serr, &rerr, &sok, &serrn, &rok, &rerrn, &rbad, events, flush, canary);
	if (strcmp(flush, "ok") || strcmp(canary, "ok") || rbad)
		ok = false;	/* the victim reported (and counts) it */

	switch (s->ex) {
	case KEEP:
		if (strcmp(vst, "RTS") || I.fatal_nack) {
			ins_bad("the victim QP %s (fatal NACK reason %d, receive status %s, send status %s): input that must be dropped or ignored ended it (MR-MAL-1, MR-REL-1, MR-REL-7..10, MR-ICRC-4)",
				strcmp(vst, "RTS") ? "left RTS for ERR" : "sent a fatal NACK",
				I.fatal_nack, wc_name(rerr), wc_name(serr));
		}
		break;
	case DIE:
		if (!strcmp(s->cls, "forge_nack")) {
			int want = s->arg == MR_NACK_REMOTE_ACCESS ? IBV_WC_REM_ACCESS_ERR :
				s->arg == MR_NACK_INVALID_REQ ? IBV_WC_REM_INV_REQ_ERR :
				IBV_WC_REM_OP_ERR;

			if (!strcmp(vst, "ERR") && serr != want && serr >= 0)
				ins_bad("the forged NACK ended the victim's WR with %s, the spec maps it to %s (MR-VERBS-22)",
					wc_name(serr), wc_name(want));
			if (strcmp(vst, "ERR"))
				say("step %u forge_nack/%s: not hit (no victim request was outstanding when the NACKs came)",
				    k, s->var);
		} else if (strcmp(vst, "ERR")) {
			ins_bad("the victim QP is still %s: the request was not refused (MR-SEC-10, MR-VERBS-21, MR-VERBS-24)",
				vst);
		} else if (!strcmp(s->cls, "send_long") && rerr != IBV_WC_LOC_LEN_ERR) {
			ins_bad("the receive WQE completed with %s, MR-VERBS-21 requires IBV_WC_LOC_LEN_ERR",
				wc_name(rerr));
		}
		break;
	default:
		break;
	}
	if (I.bad_reports)
		ok = false;
	say("HOSTILE-STEP %u %s%s%s expect=%s sent=%" PRIu64 " %.1fs victim=%s nacks=trim:%u,seq:%u,rnr:%u,acc:%u,inv:%u,op:%u read_resp=%" PRIu64 "/%" PRIu64 "B(unmapped %" PRIu64 ") atomic_resp=%" PRIu64 " send_wc=%u/%u(%s) recv_wc=%u/%u(%s) events=%s ctl_max=%.0fms -> %s",
	    k, s->cls, s->var ? "/" : "", s->var ? s->var : "", expect_name[s->ex],
	    cstat[ci].pkts - sent0, now_s() - t0, vst, I.nacks[1], I.nacks[2],
	    I.nacks[3], I.nacks[4], I.nacks[5], I.nacks[6], I.rresp_pkts,
	    I.rresp_bytes, I.rresp_unknown, I.aresp, sok, serrn, wc_name(serr), rok,
	    rerrn, wc_name(rerr), events, I.max_lat * 1000, ok ? "ok" : "VIOLATION");
	ibv_destroy_qp(I.qp);
	ibv_destroy_cq(I.cq);
	I.qp = NULL;
	I.cq = NULL;
}

static void run_insider(void)
{
	int sel[N_ISTEPS], ns = 0;
	unsigned long long va, len, ova, lva, sva, seed;
	char l[512], gs[40];
	double end;
	unsigned int k;

	role = "insider";
	for (int i = 0; i < N_ISTEPS; i++)
		if (class_selected(isteps[i].cls))
			sel[ns++] = i;
	if (!ns)
		die("--classes selects no insider step (--list)");
	dev_open();
	net_open(O.peer, SP_INS_VALID, SP_INS_ATTACK * 2 - SP_INS_VALID - 1, true);
	cap_hook = ins_cap;
	ctl_line_hook = ins_ctl_line;
	svc_hook = ins_svc;
	I.pd = ibv_alloc_pd(D.ctx);
	I.ab = alloc_pinned(ATT_MR_LEN);
	I.amr = I.pd ? ibv_reg_mr(I.pd, I.ab, ATT_MR_LEN, IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (!I.amr)
		die("ibv_reg_mr: %s", strerror(errno));
	ins_connect(O.peer);
	if (!ctl_wait("HELLO ", l, sizeof(l), O.connect_timeout) ||
	    sscanf(l, "HELLO va=%llx len=%llx rkey=%x ova=%llx orkey=%x lva=%llx lrkey=%x sva=%llx srkey=%x seed=%llx gid=%32s",
		   &va, &len, &I.rkey, &ova, &I.orkey, &lva, &I.lrkey, &sva, &I.srkey,
		   &seed, gs) != 11 || !gid_parse(gs, &I.vgid))
		die("no HELLO from the victim (%s)", ctl_eof ? "connection closed" : l);
	I.base = va;
	I.len = len;
	I.ova = ova;
	I.lva = lva;
	I.sva = sva;
	I.pseed = seed;
	/* One pass over the table in --time (about 0.5 s of set-up per step),
	 * between 0.5 and 5 s per KEEP/MAY step; DIE steps end with the QP. */
	ins_slice = O.slice_ms ? O.slice_ms / 1000.0 : (double)O.time_s / ns - 0.6;
	if (!O.slice_ms && ins_slice < 0.5)
		ins_slice = 0.5;
	if (!O.slice_ms && ins_slice > 5)
		ins_slice = 5;
	say("victim %s: MR %llu MiB rkey %#x; %u packets/s for %us, seed %" PRIu64
	    ", %d steps of %.1fs, control-channel bound %u ms", ip_str(N.peer), len >> 20,
	    I.rkey, O.rate, O.time_s, O.seed, ns, ins_slice, O.max_lat_ms);
	t_start = now_s();
	end = t_start + O.time_s;
	for (k = 0; now_s() < end && !ctl_eof; k++)
		ins_step(k, &isteps[sel[k % (unsigned int)ns]]);
	if (k < (unsigned int)ns)
		say("the time ran out after %u of %d steps", k, ns);
	ctl_send("BYE");
	if (ctl_wait("BYE", l, sizeof(l), 120)) {
		unsigned int vv = 0;

		sscanf(l, "BYE violations=%u", &vv);
		if (vv)
			say("the victim reported %u violation(s)", vv);
	} else {
		violation("the victim did not answer BYE within 120 s (its final MR check)");
	}
	print_summary("insider", MAX_CLASSES);
}

/* ------------------------------------------------------------------ */
/* --count: the peer's module packets that reached this NIC           */

static volatile sig_atomic_t count_stop;

static void on_term(int sig)
{
	(void)sig;
	count_stop = 1;
}

/*
 * Until SIGTERM/SIGINT (or --time): count the MetaRoCE packets from PEER
 * with a module source port (0xC000 and up, MR-ENC-2; the attack tools
 * never use those) that arrived at the interface, before the IP stack.
 * The socket's statistics include what its buffer dropped, so the count is
 * exact however slowly this process runs. With the peer's tx_packets it
 * gives what its device sent that never arrived (egress queue overflow and
 * link loss): attack packets are not in it, unlike in rx_packets.
 */
static void run_count(void)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ALL) };
	struct sigaction sa = { .sa_handler = on_term };
	struct tpacket_stats st;
	socklen_t sl = sizeof(st);
	struct in_addr pa;
	uint8_t f[256];
	int c;

	role = "count";
	if (inet_pton(AF_INET, O.peer, &pa) != 1)
		die("'%s' is not an IPv4 address", O.peer);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	c = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (c < 0)
		die("socket(AF_PACKET): %s", strerror(errno));
	{
		struct sock_filter flt[] = {
			BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 12),
			BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 10),
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 26),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(pa.s_addr), 0, 8),
			BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20),
			BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 6, 0),
			BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
			BPF_STMT(BPF_LD | BPF_H | BPF_IND, 16),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)O.udp_port, 0, 3),
			BPF_STMT(BPF_LD | BPF_H | BPF_IND, 14),
			BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, MR_ENTROPY_BASE, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, 64),
			BPF_STMT(BPF_RET | BPF_K, 0),
		};
		struct sock_fprog fp = { .len = MR_ARRAY_SIZE(flt), .filter = flt };

		if (setsockopt(c, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)))
			die("SO_ATTACH_FILTER: %s", strerror(errno));
	}
	ll.sll_ifindex = (int)if_nametoindex(O.ifname);
	if (!ll.sll_ifindex || bind(c, (struct sockaddr *)&ll, sizeof(ll)))
		die("bind(AF_PACKET, %s): %s", O.ifname, strerror(errno));
	/* Whatever the socket saw before bind() counts from here. */
	getsockopt(c, SOL_PACKET, PACKET_STATISTICS, &st, &sl);
	say("counting %s's module packets on %s", O.peer, O.ifname);
	while (!count_stop && now_s() - t_start < O.time_s) {
		struct pollfd pf = { .fd = c, .events = POLLIN };

		if (poll(&pf, 1, 200) > 0)
			while (recv(c, f, sizeof(f), MSG_DONTWAIT) > 0)
				;
	}
	sl = sizeof(st);
	if (getsockopt(c, SOL_PACKET, PACKET_STATISTICS, &st, &sl))
		die("PACKET_STATISTICS: %s", strerror(errno));
	/* tp_packets includes the drops (af_packet adds them). */
	printf("HOSTILE-COUNT from=%s packets=%u socket_drops=%u\n", O.peer,
	       st.tp_packets, st.tp_drops);
	exit(0);
}

/* ------------------------------------------------------------------ */
/* --list, --selftest, main                                           */

static void list_tables(void)
{
	printf("off-path classes (--offpath; --classes NAME,...):\n");
	for (int i = 0; i < N_OCLASSES; i++)
		printf("  %-16s %s\n", oclasses[i].name, oclasses[i].what);
	printf("malformations (class malformed, both models):\n ");
	for (int i = 0; i < MF_NUM; i++)
		printf(" %s", mf_name[i]);
	printf("\ninsider steps (--insider; expectation; --classes CLASS,...):\n");
	for (int i = 0; i < N_ISTEPS; i++) {
		char n[48];

		snprintf(n, sizeof(n), "%s%s%s", isteps[i].cls, isteps[i].var ? "/" : "",
			 isteps[i].var ? isteps[i].var : "");
		printf("  %-26s %-4s %s\n", n, expect_name[isteps[i].ex], isteps[i].what);
	}
}

/*
 * Host-side proof of the generators: every malformation decodes to the
 * error it names (checked inside malform()), and no off-path class emits a
 * packet the guard would refuse, against made-up live pairs.
 */
static void selftest(void)
{
	struct mbase m = { .rq_dqpn = 0x12, .rq_sqpn = 0x34, .rq_psn = 0x100,
			   .ak_dqpn = 0x12, .ak_sqpn = 0x34, .ak_psn = 0x200 };
	struct mr_pkt p = { .opcode = MR_OP_SEND, .flags = MR_F_FIRST | MR_F_LAST };
	uint8_t b[4096];
	const char *name;
	bool valid;
	uint64_t total = 0;

	role = "selftest";
	N.dry = true;
	net_open("127.0.0.2", SP_OFFPATH, SP_OFFPATH_END, false);
	for (unsigned int k = 0; k < MF_NUM * 300; k++) {
		m.insider = k % 2;
		m.va = 0x10000 + 8 * rnd_below(1000);
		m.rkey = rnd32();
		m.mr_base = 0x10000;
		malform(k, &m, b, sizeof(b), &name, &valid);
	}
	/* Live pairs: responder 0x12 at the peer for requests from 0x34 here
	 * around PSN 0x500000; requester 0x56 at the peer around 0xfffff0. */
	p.dqpn = 0x12;
	p.sqpn = 0x34;
	p.psn = 0x500000;
	flow_learn(N.me, N.peer, &p);
	p.dqpn = 0x34;
	p.sqpn = 0x56;
	p.psn = 0xfffff0;
	flow_learn(N.peer, N.me, &p);
	memset(&p, 0, sizeof(p));
	p.opcode = MR_OP_ACK;
	p.dqpn = 0x12;
	p.sqpn = 0x34;
	p.akh.cum_psn = 0x4ffff0;
	flow_learn(N.peer, N.me, &p);
	/* The guard itself: an in-window forgery from the peer's address is
	 * refused, the same from another address or as a replay is not. */
	{
		struct mr_pkt q;
		uint8_t pl[2 * PMTU];
		uint32_t n;

		rand_req(&q, MR_OP_WRITE, 0x12, 0x34, 0x500010, pl);
		n = enc(&q, b, sizeof(b));
		if (offpath_guard(b, n, N.me, false) || !offpath_guard(b, n, N.me + 1, false) ||
		    !offpath_guard(b, n, N.me, true))
			die("selftest: the guard let an in-window WRITE through");
		rand_ack(&q, true, 0x56, 0x34, 0xfffff0, 0x10);
		n = enc(&q, b, sizeof(b));
		if (offpath_guard(b, n, N.me, false))
			die("selftest: the guard let an ACK near a live requester through");
		rand_req(&q, MR_OP_SEND, 0x12, 0x77, 0x500010, pl);
		n = enc(&q, b, sizeof(b));
		if (!offpath_guard(b, n, N.me, false))
			die("selftest: the guard refused a pair that is not live");
		guard_refused = 0;
	}
	/* A fake capture ring for the replay classes. */
	for (int i = 0; i < 32; i++) {
		struct mr_pkt q;
		uint8_t pl[2 * PMTU];

		rand_req(&q, req_ops[i % 8], 0x12, 0x34, 0x500000 - i, pl);
		ring[i].len = enc(&q, ring[i].b, CAP_MAX);
		ring[i].t = now_s() - (i % 2) * 5;
	}
	ring_n = 32;
	tx_guard = offpath_guard;
	for (int i = 0; i < N_OCLASSES; i++) {
		cstat[i].name = oclasses[i].name;
		cur_cls = i;
		oc_k = 0;
		for (int j = 0; j < 3000; j++)
			oclasses[i].fn();
		total += cstat[i].pkts;
		if (!cstat[i].pkts)
			die("selftest: class %s sent nothing", oclasses[i].name);
	}
	print_summary("selftest", N_OCLASSES);
	if (guard_refused)
		die("selftest: the guard refused %" PRIu64 " packets", guard_refused);
	say("PASS: %u malformations decode to their error, %" PRIu64
	    " off-path packets of %d classes pass the guard", MF_NUM * 300, total,
	    N_OCLASSES);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: mr-hostile --offpath PEER [options]     off-path attacker towards PEER\n"
"       mr-hostile --victim [options]           victim of the insider (listens)\n"
"       mr-hostile --insider VICTIM [options]   insider attacker\n"
"       mr-hostile --count PEER [-i IF]         count PEER's module packets\n"
"                                               arriving here, until SIGTERM\n"
"       mr-hostile --list | --selftest\n"
"Attacks live MetaRoCE QPs; see the comment at the top of mr-hostile.c and\n"
"userspace/tools/README.md.\n"
"\n"
"  -d, --ib-dev DEV        RDMA device (victim, insider; default: the first)\n"
"  -g, --gid-idx N         GID index (default: the RoCE v2 IPv4 GID)\n"
"  -i, --iface IF          interface to capture on (default eth0)\n"
"  -p, --port PORT         TCP control port of the victim (default 18790)\n"
"      --udp-port PORT     MetaRoCE UDP port (default %d)\n"
"  -r, --rate PPS          attack packets per second (default 500)\n"
"  -t, --time SECONDS      attack duration; the victim's lifetime (default 30)\n"
"      --seed N            PRNG seed (default: random, printed)\n"
"      --classes LIST      only these classes (names from --list)\n"
"      --slice-ms MS       time per class or step (default: one pass over the\n"
"                          table in --time; insider DIE steps: until the QP\n"
"                          ends, at most 1500)\n"
"      --mr-size BYTES     the victim's MR (default 256m)\n"
"      --max-latency MS    bound on the victim's control-channel answers\n"
"                          (insider; default 3000)\n"
"      --connect-timeout S (default 120)\n"
"  -v, --verbose\n"
"Exit status: 0 no violation, 1 a violation, 2 usage or set-up error.\n",
		MR_UDP_PORT);
}

enum { OPT_VICTIM = 256, OPT_INSIDER, OPT_OFFPATH, OPT_COUNT, OPT_LIST, OPT_SELFTEST,
       OPT_SEED, OPT_CLASSES, OPT_SLICE, OPT_MRSIZE, OPT_MAXLAT, OPT_UDPPORT,
       OPT_CONNTMO };

static const struct option long_opts[] = {
	{ "victim", 0, NULL, OPT_VICTIM }, { "insider", 1, NULL, OPT_INSIDER },
	{ "offpath", 1, NULL, OPT_OFFPATH }, { "list", 0, NULL, OPT_LIST },
	{ "count", 1, NULL, OPT_COUNT },
	{ "selftest", 0, NULL, OPT_SELFTEST }, { "ib-dev", 1, NULL, 'd' },
	{ "gid-idx", 1, NULL, 'g' }, { "iface", 1, NULL, 'i' },
	{ "port", 1, NULL, 'p' }, { "udp-port", 1, NULL, OPT_UDPPORT },
	{ "rate", 1, NULL, 'r' }, { "time", 1, NULL, 't' },
	{ "seed", 1, NULL, OPT_SEED }, { "classes", 1, NULL, OPT_CLASSES },
	{ "slice-ms", 1, NULL, OPT_SLICE }, { "mr-size", 1, NULL, OPT_MRSIZE },
	{ "max-latency", 1, NULL, OPT_MAXLAT },
	{ "connect-timeout", 1, NULL, OPT_CONNTMO },
	{ "verbose", 0, NULL, 'v' }, { "help", 0, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static uint64_t num(const char *s, const char *what, uint64_t lo, uint64_t hi)
{
	uint64_t v = parse_size(s, what);

	if (v < lo || v > hi)
		die("%s: %s out of range %" PRIu64 "..%" PRIu64, what, s, lo, hi);
	return v;
}

static void set_mode(enum mode m)
{
	if (O.mode != M_NONE)
		die("give one of --offpath, --victim, --insider, --count, --list, --selftest");
	O.mode = m;
}

int main(int argc, char **argv)
{
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	while ((c = getopt_long(argc, argv, "d:g:i:p:r:t:vh", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_VICTIM: set_mode(M_VICTIM); break;
		case OPT_INSIDER: set_mode(M_INSIDER); O.peer = optarg; break;
		case OPT_OFFPATH: set_mode(M_OFFPATH); O.peer = optarg; break;
		case OPT_COUNT: set_mode(M_COUNT); O.peer = optarg; break;
		case OPT_LIST: set_mode(M_LIST); break;
		case OPT_SELFTEST: set_mode(M_SELFTEST); break;
		case 'd': O.dev = optarg; break;
		case 'g': O.gid_idx = (int)num(optarg, "-g", 0, 255); break;
		case 'i': O.ifname = optarg; break;
		case 'p': O.ctl_port = optarg; break;
		case OPT_UDPPORT: O.udp_port = (int)num(optarg, "--udp-port", 1, 65535); break;
		case 'r': O.rate = (uint32_t)num(optarg, "--rate", 1, 1000000); break;
		case 't': O.time_s = (uint32_t)num(optarg, "--time", 1, 1u << 30); break;
		case OPT_SEED: O.seed = parse_size(optarg, "--seed"); O.seed_set = true; break;
		case OPT_CLASSES: O.classes = optarg; break;
		case OPT_SLICE: O.slice_ms = (uint32_t)num(optarg, "--slice-ms", 100, 1u << 30); break;
		case OPT_MRSIZE:
			O.mr_size = num(optarg, "--mr-size", 1 << 20, 1ull << 31) & ~4095ull;
			break;
		case OPT_MAXLAT: O.max_lat_ms = (uint32_t)num(optarg, "--max-latency", 10, 1u << 30); break;
		case OPT_CONNTMO: O.connect_timeout = (int)num(optarg, "--connect-timeout", 1, 86400); break;
		case 'v': O.verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || O.mode == M_NONE) {
		usage(stderr);
		return 2;
	}
	if (!O.seed_set) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		O.seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
			 ((uint64_t)getpid() << 40);
	}
	rng = O.seed;
	ts_off = rnd32();
	t_start = now_s();
	switch (O.mode) {
	case M_LIST: list_tables(); return 0;
	case M_SELFTEST: selftest(); return 0;
	case M_OFFPATH: run_offpath(); break;
	case M_COUNT: run_count(); break;
	case M_VICTIM: run_victim(); break;
	default: run_insider(); break;
	}
	if (violations)
		say("FAIL: %u violation(s), seed %" PRIu64, violations, O.seed);
	else
		say("PASS: no violation, seed %" PRIu64, O.seed);
	return violations ? 1 : 0;
}
