/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mr-conform, the MetaRoCE conformance tester: what its parts share.
 *
 *   mr-conform.c        options, the case registry, requirement-ID ranges,
 *                       TAP, the reStructuredText report, --selftest
 *   mrc-net.c           the wire (UDP sockets, receive queue, the tester's
 *                       HELLO answers), the agent's control channel, the
 *                       tester's side of a QP, the packet checkers
 *   mrc-cases-resp.c    cases with the DUT as responder
 *   mrc-cases-req.c     cases with the DUT as requester, and VER (HELLO)
 *   mrc-cases-ud.c      UD receives and sends, the GSI QP
 *   mrc-cases-uc.c      UC receives and sends (revision 1.1)
 *   mrc-cases-wire.c    rules for every packet the DUT sends (ENC, HDR,
 *                       MP spraying, CC credit and ECN echo)
 *   mrc-cases-loss.c    the DUT as requester under loss (LOSS, RETRY)
 *   mrc-cases-mal.c     hostile input: MAL, SEC, TRIM, VER-8, QP states
 *   mrc-cases-win.c     the receive window and timestamps, ACK timing,
 *                       placement and execution order, responder verbs
 */
#ifndef MR_CONFORM_H
#define MR_CONFORM_H

#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* enum values only (IBV_ACCESS_*, IBV_WC_*): the tester does not link
 * libibverbs. */
#include <infiniband/verbs.h>

#include "wire.h"
#include "mrc-proto.h"

#define PMTU		1024	/* every QP of the suite (a 1500-byte link) */
#define MR_LEN		65536	/* the DUT's MRs 0 (remote) and 1 (local) */
#define RX_QLEN		256
#define RX_BUF		2048
#define WAIT_SILENT	0.4	/* s: "no response" means none within this */
#define WAIT_RESP	2.0	/* s: a response the spec requires at once */

/* ---- Options ---- */
struct copts {
	const char *agent;	/* host[:port] of mr-conform-agent */
	const char *dut;	/* the DUT's IPv4 address (default: agent's) */
	int udp_port;
	const char *report;	/* reStructuredText report path */
	const char *filter;	/* substring of area/name */
	double slow;		/* multiplies every wait (TCG guests) */
	const char *vectors;	/* golden packets for --selftest */
	int verbose;
};
extern struct copts O;

/* ---- Results ---- */
struct tctx {
	const struct tcase *tc;
	int nfail;		/* failed assertions */
	char first[256];	/* the first failure, for the report */
	const char *skip;	/* not run: why */
};

struct tcase {
	const char *area;	/* spec area: VER, REL, PLACE, ... */
	const char *name;
	const char *ids;	/* "MR-REL-12, MR-REL-14..16" */
	void (*fn)(struct tctx *t);
	/* Known deviation of the implementation tested in CI: a failure is
	 * reported as TODO (expected), neither pass nor fail. */
	const char *deviation;
};

void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail_at(struct tctx *t, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define EXPECT(t, c, ...) do { if (!(c)) fail_at(t, __LINE__, __VA_ARGS__); } while (0)
/* Stop the case at a failure the rest depends on. */
#define REQUIRE(t, c, ...) do { if (!(c)) { fail_at(t, __LINE__, __VA_ARGS__); return; } } while (0)
void not_run(struct tctx *t, const char *why);

/* Requirement-ID ranges: "MR-REL-12, MR-REL-14..16" -> one ID per call
 * of @cb; false (and nothing reported) if @s is malformed. */
bool ids_expand(const char *s, void (*cb)(const char *id, void *arg), void *arg);

/* Case tables of the case files. */
extern const struct tcase cases_resp[];
extern const unsigned int n_cases_resp;
extern const struct tcase cases_req[];
extern const unsigned int n_cases_req;
extern const struct tcase cases_ud[];
extern const unsigned int n_cases_ud;
extern const struct tcase cases_uc[];
extern const unsigned int n_cases_uc;
extern const struct tcase cases_wire[];
extern const unsigned int n_cases_wire;
extern const struct tcase cases_loss[];
extern const unsigned int n_cases_loss;
extern const struct tcase cases_last[];
extern const unsigned int n_cases_last;

/* ---- Wire ---- */
struct rxpkt {
	uint8_t b[RX_BUF];
	uint32_t len;
	uint8_t tos;		/* IP TOS: DSCP << 2 | ECN; 0xFF unknown */
	uint16_t sport;
	uint32_t src;		/* IPv4, network order */
	uint32_t dst;		/* IPv4 destination (IP_PKTINFO); 0 unknown */
	double t;
	int err;		/* mr_pkt_decode() */
	int icrc;		/* mr_icrc_check() */
	struct mr_pkt p;	/* p.payload points into b: copy with rx_copy() */
	uint32_t poff;		/* payload offset in b */
};

double now_s(void);
uint32_t ts_now(void);
void net_open(void);
bool net_ecn_visible(void);
/* Every packet that arrived, each HELLO of the DUT answered (MR-VER-12). */
void net_pump(double tmo);
/* net_pump() until now_s() reaches @t (once if it has). */
void net_pump_until(double t);
/* Drop what is queued (a case starts clean). */
void rx_flush(void);
/* The next queued or arriving packet for tester QPN @qpn whose opcode is
 * @op (0: any but HELLO), within @tmo s (times O.slow); false if none. */
bool rx_take(uint32_t qpn, uint8_t op, double tmo, struct rxpkt *out);
/* Send an encoded packet; mr_pkt_encode() refusing is a suite bug. */
uint32_t pkt_build(const struct mr_pkt *p, uint8_t *buf, uint32_t cap);
void tx_bytes(const uint8_t *b, uint32_t len);
void tx_pkt(const struct mr_pkt *p);
/* The same from the tester's second UDP source port (tx_sport[1]). */
void tx_pkt_alt(const struct mr_pkt *p);
extern uint16_t tx_sport[2];
/* IP TOS of what tx_pkt() sends next (default DSCP 26, ECT(0)). */
void tx_set_tos(uint8_t tos);
/* An ICMP "fragmentation needed" (next-hop MTU @mtu) quoting a datagram
 * of the DUT's of @ip_len bytes from its UDP port @dut_sport, as a router
 * would send it; false without the privilege of a raw socket. */
bool tx_icmp_frag_needed(uint16_t dut_sport, uint16_t ip_len, uint16_t mtu);

/* Packets of the DUT that did not decode (rx_take never returns them). */
extern uint64_t rx_undecodable;
/* IP and UDP headers of the DUT's MetaRoCE datagrams, from a raw socket
 * (net_raw_visible() false: no privilege, nothing counted). */
struct rawstat {
	uint64_t seen, no_df, frag, bad_csum, zero_csum, bad_len;
	uint8_t ttl_min, ttl_max;
};
extern struct rawstat RAW;
bool net_raw_visible(void);
/* Whether the tester answers the DUT's HELLOs automatically. */
extern bool hello_auto;
extern uint64_t hello_answered;
void hello_fill(struct mr_pkt *p, uint32_t dqpn, uint32_t sqpn, bool seen,
		uint32_t caps);

/* ---- Agent (control channel) ---- */
void agent_open(void);
void agent_close(void);
/* Send one request; the answer line after "OK " (static), or NULL after
 * "ERR" (the text in agent_err). */
const char *agent(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern char agent_err[512];
const char *agent_line(void);
/* key=value from an answer: false if missing. */
bool kv_u64(const char *ans, const char *key, uint64_t *v);
/* A counter of the DUT by its spec name (mapped by --counter); false and
 * a diagnostic if the DUT does not expose it. */
bool counter(const char *spec_name, uint64_t *v);
void counter_map_add(const char *arg);

struct dut {
	uint32_t ip;		/* network order */
	uint32_t me;		/* the tester's address */
	char gid[33];
	char my_gid[33];
	uint32_t rkey0, lkey1;
	uint64_t addr0, addr1;
};
extern struct dut DUT;

/* The DUT's MR 0 (remote access) and MR 1 (local buffers). */
void dut_setup(void);
bool mr_fill(int mr, uint64_t seed);
bool mr_read(int mr, uint32_t off, uint32_t len, uint8_t *out);
bool mr_hash(int mr, uint32_t off, uint32_t len, uint64_t *h);

/* ---- The tester's side of one RC QP ---- */
struct tqp {
	int id;			/* agent's QP id */
	uint32_t dut_qpn, my_qpn;
	uint32_t psn;		/* tester's next request PSN */
	uint32_t msn;		/* tester's next request MSN */
	uint32_t ssn;		/* tester's next SSN */
	uint32_t dut_psn;	/* the DUT's first request PSN */
	uint8_t path;		/* MBH.path the tester sends */
	bool have_hello;
	struct rxpkt hello;	/* the DUT's first HELLO */
};

#define ACC_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
/* Create and connect a DUT RC QP to the tester's QPN; false on failure
 * (reported in @t). */
bool tqp_open(struct tctx *t, struct tqp *q, unsigned int access);
/* The same with the verbs timeout (T_verbs = 4.096 us * 2^timeout),
 * retry_cnt and rnr_retry of the DUT's QP. */
bool tqp_open_retry(struct tctx *t, struct tqp *q, unsigned int access,
		    unsigned int timeout, unsigned int retry, unsigned int rnr_retry);

void tqp_close(struct tqp *q);
/* A request from the tester to the DUT's QP, fields for @op filled;
 * payload taken from @pl. */
void req_fill(struct mr_pkt *p, const struct tqp *q, uint8_t op, uint32_t psn,
	      uint16_t flags);
/* A one-packet WRITE of @len bytes of @pl at MR 0 offset @moff, at the
 * tester's next PSN, ACKREQ set; not sent. */
void wr_fill(struct mr_pkt *p, const struct tqp *q, uint32_t moff, const uint8_t *pl,
	     uint32_t len);
/* The DUT QP's state name ("RTS", "ERR"), or "?" */
const char *dut_qp_state(const struct tqp *q);

/* Up to @n request packets of @q with opcode @op (0: any), the first copy
 * of each PSN, in PSN order from q->dut_psn + @first, within @tmo s. */
unsigned int req_take(struct tqp *q, uint8_t op, uint32_t first, unsigned int n,
		      struct rxpkt *out, double tmo);
/* An ACK of the tester's to DUT QP @q: cum_psn @cum, msn @msn, path and
 * ts_echo of @trig, pkt_count 1, credit unlimited. */
void ack_fill(struct mr_pkt *a, const struct tqp *q, uint32_t cum, uint32_t msn,
	      const struct rxpkt *trig);
void tx_ack(const struct tqp *q, uint32_t cum, uint32_t msn, const struct rxpkt *trig);

/* The tester's answer to the DUT's READ_REQ @r for a READ of @data
 * (@len bytes): READ_RESPs for its whole range in PMTU pieces, FIRST at
 * offset 0, LAST at the range's end, msg_len the range's end (MR-HDR-24);
 * false, nothing sent, if the range is not within @len (mrc-cases-loss.c). */
bool read_answer(const struct tqp *q, const struct rxpkt *r, const uint8_t *data,
		 uint32_t len);

/* A CQE the agent reported. */
struct cqe {
	uint64_t wrid;
	int status, opcode;
	uint32_t byte_len, imm, wc_flags, qpn, src_qp;
};
/* Up to @max CQEs of @q's QP within @tmo s; their number. */
int cqe_wait(const struct tqp *q, struct cqe *c, int max, double tmo);

/* ---- Checkers (also run by --selftest on golden packets) ---- */
/* Every rule a single packet of the DUT obeys (opcode table, reserved
 * bits, header lengths, ICRC, QPNs, ports, addresses, ECN): mrc-cases-wire.c */
void wire_check(struct tctx *t, const char *what, const struct tqp *q,
		const struct rxpkt *r);
/* An ACK or NACK of DUT QP @q: every MR-REL-11/12 field. @nack_reason 0:
 * an ACK. Failures into @t, prefixed with @what. */
struct ack_expect {
	uint32_t cum;
	uint32_t msn;
	uint32_t ts_echo;
	uint8_t path;
	const uint32_t *sacked;	/* PSN offsets from cum with bit set */
	unsigned int n_sacked;
	uint8_t nack_reason;
	uint32_t nack_psn;
	uint8_t rnr_timer;	/* RNR and RESOURCE NACKs; else 0 */
};
void check_ack(struct tctx *t, const char *what, const struct rxpkt *r,
	       uint32_t my_qpn, uint32_t dut_qpn, const struct ack_expect *e);
/* ECN of a data packet from the DUT (MR-ENC-5): ECT(0). */
void check_ect0(struct tctx *t, const char *what, const struct rxpkt *r);
/* Decode @b into @r as the receive path does. */
void rx_parse(struct rxpkt *r, const uint8_t *b, uint32_t len);
/* Copy a received packet, its payload pointer into the copy. */
void rx_copy(struct rxpkt *dst, const struct rxpkt *src);

/* ---- The registry (mr-conform.c) ---- */
int run_selftest(void);
/* Golden packets (mrc-vectors.c): the failures; *@n vectors checked. */
int vectors_check(const char *path, unsigned int *n);

/* ---- Shared by the case files (defined in mrc-cases-resp.c) ---- */
/* The expected content of the DUT's MR 0. */
extern uint8_t mem0[MR_LEN];
uint64_t seed_new(void);
/* Fill MR 0 with a fresh pattern, mirrored in mem0; false: reported. */
bool mem_reset(struct tctx *t);
/* MR 0 equals mem0; on a difference, the first differing byte. */
void mem_check(struct tctx *t, const char *what, const char *ids);
uint32_t tx_write(const struct tqp *q, uint8_t op, uint32_t psn, uint32_t msn,
		  uint32_t moff, uint32_t len, unsigned int k, const uint8_t *pl,
		  uint16_t extra, uint32_t rkey);
bool ack_expect(struct tctx *t, const struct tqp *q, const char *what,
		const struct ack_expect *e);
void expect_silence(struct tctx *t, const struct tqp *q, const char *what,
		    const char *ids);
void counter_moved(struct tctx *t, const char *name, uint64_t before,
		   const char *ids);
uint64_t counter_now(const char *name);
struct ack_expect ack_of(const struct tqp *q, uint32_t cum, uint32_t msn, uint32_t ts);
struct ack_expect nack_of(const struct tqp *q, uint32_t cum, uint32_t msn,
			  uint32_t ts, uint8_t reason, uint32_t nack_psn);
void expect_state(struct tctx *t, const struct tqp *q, const char *want,
		  const char *ids);
uint32_t tx_send1(const struct tqp *q, uint8_t op, uint32_t psn, uint16_t extra,
		  const uint8_t *pl, uint32_t len, uint32_t inv_rkey);
void write_ok(struct tctx *t, struct tqp *q, uint32_t moff, uint32_t n,
	      const char *what);
bool atomic_rt(struct tctx *t, struct tqp *q, uint8_t op, uint32_t psn,
	       uint32_t moff, uint64_t add_swap, uint64_t cmp, uint16_t extra,
	       uint64_t *orig);
uint64_t word_at(uint32_t moff);
void word_put(uint32_t moff, uint64_t v);

/* Case tables of mrc-cases-mal.c (hostile input) and mrc-cases-win.c
 * (the receive window, placement and responder verbs). */
extern const struct tcase cases_mal[];
extern const unsigned int n_cases_mal;
extern const struct tcase cases_win[];
extern const unsigned int n_cases_win;

/* tqp_open() with the tester's first PSN (the DUT's rq_psn) @rq_psn. */
bool tqp_open_at(struct tctx *t, struct tqp *q, unsigned int access, uint32_t rq_psn);
/* tqp_open_at() with path MTU @mtu, its QP on the agent's CQ @cq and
 * shared receive queue @srq (-1: none). */
bool tqp_open_ex(struct tctx *t, struct tqp *q, unsigned int access, uint32_t rq_psn,
		 int mtu, int cq, int srq);
/* tx_bytes() with the IP TOS @tos (-1: the socket's) to UDP port @port
 * (0: the MetaRoCE port). */
void tx_bytes_ex(const uint8_t *b, uint32_t len, int tos, uint16_t port);
/* tx_bytes() through a raw socket: UDP checksum zero (@bad_csum false)
 * or a wrong non-zero one; false if the tester may not open raw sockets. */
bool tx_bytes_udp_csum(const uint8_t *b, uint32_t len, bool bad_csum);

/* tx_bytes() from IPv4 source address @src (a raw IP socket, UDP checksum
 * zero); false if the tester may not open one. */
bool tx_bytes_from(const uint8_t *b, uint32_t len, uint32_t src);
/* The same from the tester's own address, as two IPv4 fragments. */
bool tx_bytes_frag(const uint8_t *b, uint32_t len);
/* tx_bytes() to the subnet broadcast address of the tester's interface;
 * false if there is none or the send failed. */
bool tx_bytes_bcast(const uint8_t *b, uint32_t len);

#endif /* MR_CONFORM_H */
