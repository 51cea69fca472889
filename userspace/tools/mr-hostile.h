/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * mr-hostile, a hostile peer for MetaRoCE (see mr-hostile.c): what its
 * parts share.
 *
 *   mr-hostile.c          the modes' documentation, --count, options, main
 *   mr-hostile-common.c   utilities, packets through the core's codec,
 *                         sockets and capture, control channel,
 *                         malformations, verbs helpers, class accounting
 *   mr-hostile-offpath.c  --offpath (its guard and classes), --selftest
 *   mr-hostile-victim.c   --victim
 *   mr-hostile-insider.c  --insider (its step table)
 */
#ifndef MR_HOSTILE_H
#define MR_HOSTILE_H

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
#include <sys/wait.h>
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
#define PROBE_LEN	4096	/* the insider's health probe lands here; no WRITE does */
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

/* Every QP here: max_dest_rd_atomic, max_rd_atomic (MR-VERBS-15). */
#define MAX_DEST_RD	16
#define MAX_RD		4

/* The pattern of the insider's SENDs; receive WQE ids of the victim. */
#define SEND_SEED	0x5E4D5E4D5E4D5E4Dull
#define WR_RECV		(1ull << 62)

enum mode { M_NONE, M_VICTIM, M_INSIDER, M_OFFPATH, M_COUNT, M_LIST, M_SELFTEST };

struct hopts {
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
	uint32_t slowdown;	/* multiplies the time bounds on the victim's kernel */
	const char *classes;
	int verbose;
	int connect_timeout;
};
extern struct hopts O;

extern const char *role;
extern unsigned int violations;
extern double t_start;

/* Utilities */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double now_s(void);
double wall_s(void);
/* splitmix64: the one PRNG; everything random comes from --seed. */
extern uint64_t rng;
uint64_t rnd64(void);
uint32_t rnd32(void);
uint32_t rnd_below(uint32_t n);
void rnd_fill(uint8_t *p, size_t n);
/*
 * The sender clock of MBH.ts: microseconds plus a random offset (MR-SEC-6).
 * The insider sets the offset to its kernel QP's, learned from the QP's
 * own packets, so that the victim's timestamp window (MR-WIN-6) sees one
 * clock.
 */
extern uint32_t ts_off;
uint32_t mono_us(void);
uint32_t ts_now(void);
const char *ip_str(uint32_t a);
void put_be32(uint8_t *p, uint32_t v);
void put_be64(uint8_t *p, uint64_t v);
/* The memory pattern of the victim's MR. */
uint64_t pat_word(uint64_t seed, uint64_t k);
uint8_t pat_byte(uint64_t seed, uint64_t off);
void pat_fill(uint8_t *p, uint64_t seed, uint64_t off, size_t n);
size_t pat_check(const uint8_t *p, uint64_t seed, uint64_t off, size_t n);
uint64_t parse_size(const char *s, const char *what);

/* Packets through the core's codec */
extern const uint8_t req_ops[8];
uint32_t hoff(uint8_t op, uint16_t which);
uint32_t enc(const struct mr_pkt *p, uint8_t *buf, uint32_t cap);
void icrc_fix(uint8_t *buf, uint32_t len);
void icrc_break(uint8_t *buf, uint32_t len);
uint16_t req_flags(uint8_t op, uint16_t want, uint32_t off, uint32_t plen,
		   uint32_t msg_len);
void rand_req(struct mr_pkt *p, uint8_t op, uint32_t dqpn, uint32_t sqpn,
	      uint32_t psn, uint8_t *pl);
void rand_ack(struct mr_pkt *p, bool nack, uint32_t dqpn, uint32_t sqpn,
	      uint32_t cum, uint32_t nack_psn);

/* Network: UDP, raw IPv4, AF_PACKET capture */
struct hnet {
	int udp, udp2, raw, cap;
	uint32_t me, peer;	/* IPv4, network order */
	uint16_t sport, sport2;
	int ifindex;
	bool dry;		/* --selftest: build and check, never send */
};
extern struct hnet N;

/* Per-class accounting. */
#define MAX_CLASSES	64
struct cls_stat {
	const char *name;
	uint64_t pkts, bytes, skipped, refused;
};
extern struct cls_stat cstat[MAX_CLASSES];
extern int cur_cls;

/* The off-path guard (mr-hostile-offpath.c) when set, and what it refused. */
extern bool (*tx_guard)(const uint8_t *pkt, uint32_t len, uint32_t src, bool replay);
extern uint64_t guard_refused;

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

void tx_udp_sock(const uint8_t *pkt, uint32_t len, bool alt, bool replay);
void tx_udp(const uint8_t *pkt, uint32_t len);
void tx_raw(const uint8_t *pkt, uint32_t len, const struct rawopt *o);
int capture_open(int ifindex, const struct sock_fprog *fp);
void capture_selftest(void);
void net_open(const char *peer, uint16_t plo, uint16_t phi, bool two);

/* What the capture learns: one direction of a QP pair, packets from
 * @sqpn at @src to @dqpn at @dst. */
struct flow {
	uint32_t src, dst, sqpn, dqpn;
	uint32_t req_psn;	/* newest request PSN it carried */
	uint32_t cum;		/* newest cum_psn of its ACK/NACKs */
	bool have_req, have_cum, used, have_ts;
	uint32_t ts;		/* newest request MBH.ts, seen at ts_t */
	double t, ts_t;
	uint64_t pkts;
};
extern struct flow flows[MAX_FLOWS];
void flow_learn(uint32_t src, uint32_t dst, const struct mr_pkt *p);
/* The requester clock of flow (@src, @dst, @sqpn, @dqpn) now, as far as
 * its requests tell (never ahead of it); false if unknown. */
bool flow_clock(uint32_t src, uint32_t dst, uint32_t sqpn, uint32_t dqpn,
		uint32_t *ts);
int pair_ref(uint32_t src, uint32_t dst, uint32_t sqpn, uint32_t dqpn,
	     bool ack, uint32_t *ref);

/* Outgoing packets of the module to the peer, for replays. */
struct cap_pkt {
	double t;
	uint32_t len;
	uint8_t b[CAP_MAX];
};
extern struct cap_pkt ring[RING_LEN];
extern unsigned int ring_n;
/* Hook for the insider: every MetaRoCE packet seen that decodes. */
extern void (*cap_hook)(uint32_t src, uint32_t dst, uint16_t sport,
			const struct mr_pkt *p, const uint8_t *raw, uint32_t len);
extern uint64_t cap_seen, cap_learned;
/* How long before now the frame cap_hook is handed was captured. */
extern uint32_t cap_lag_us;
void cap_drain(void);

/* Control channel (TCP, one text line per message) */
#define LQ_LEN 32
extern int ctl;
extern bool ctl_eof;
extern char lq[LQ_LEN][512];
extern int lq_n;
extern bool (*ctl_line_hook)(const char *line);
extern void (*svc_hook)(void);
void ctl_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ctl_read(void);
void lq_copy(char *out, size_t n, const char *l);
bool ctl_take(const char *prefix, char *out, size_t n);
bool ctl_wait(const char *prefix, char *out, size_t n, double tmo);
/* Wait up to @dt seconds for the capture or the control channel, serve both. */
void service(double dt);

/* Malformed headers: one valid encoding, then one field broken */
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

extern const char *const mf_name[MF_NUM];
uint32_t malform(unsigned int k, const struct mbase *m, uint8_t *b,
		 uint32_t cap, const char **name, bool *valid);

/* Classes: selection (--classes), summary, start marks */
bool class_selected(const char *name);
void print_summary(const char *model, int n);
void class_start(const char *model, const char *name, const char *variant);

/* Verbs */
struct hdev {
	struct ibv_context *ctx;
	struct ibv_port_attr pattr;
	int gid_idx;
	union ibv_gid gid;
};
extern struct hdev D;
void dev_open(void);
void gid_hex(const union ibv_gid *g, char *out);
bool gid_parse(const char *s, union ibv_gid *g);
int qp_to_init(struct ibv_qp *qp, int access);
int qp_to_rtr_rts(struct ibv_qp *qp, uint32_t dqpn, uint32_t rq_psn,
		  uint32_t sq_psn, const union ibv_gid *dgid);
const char *qps_name(int s);
int qp_state(struct ibv_qp *qp);
void *alloc_pinned(size_t n);

/* The modes */
void run_offpath(void);
void list_offpath(void);
void selftest(void);
void run_victim(void);
void run_insider(void);
void list_insider(void);

#endif /* MR_HOSTILE_H */
