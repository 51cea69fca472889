/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The TCP side channel of mr-ue and mr-ue-verbs: the handshake that
 * connects two queue pairs and the run of the verified workload
 * (mr-ue-load.h) until both sides said DONE. The two tools differ only in
 * the queue pair under it (struct ue_peer): a libmrue endpoint or a verbs
 * QP, so either tool talks to the other, or to itself.
 *
 * Handshake (one text line each way, client first):
 *
 *   MRUE1 qpn=<hex> psn=<dec> port=<dec> mtu=<dec> rd_atomic=<dec>
 *         va=<hex> rkey=<hex> len=<dec> count=<dec> size=<dec> seed=<dec>
 *
 * qpn, psn, mtu, rd_atomic: the queue pair (rd_atomic: the READ/ATOMIC
 * requests it may have outstanding, the peer's responder resources);
 * port: the UDP port its packets are received on (the address is the TCP
 * peer's); va, rkey, len: the region the peer targets; count, size, seed:
 * the workload, set by the client (the server echoes them). Each side
 * posts its first receive WQEs before it sends its hello; the server
 * connects its queue pair before it answers, the client after the answer,
 * and then sends "READY": only then does the server start sending, so no
 * first packet meets a queue pair that is not connected. At the end each
 * side sends "DONE <0|1>" (0: its own messages and the peer's all
 * completed and verified) and waits for the peer's before it checks its
 * region.
 */
#ifndef MR_UE_CHAN_H
#define MR_UE_CHAN_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "mr-ue-load.h"

#define UE_DEPTH	32	/* messages in flight, receives posted */

struct hello {
	uint32_t qpn, psn, port, mtu, rd_atomic, rkey, count, size;
	unsigned long long va, len, seed;
};

/* The queue pair under the channel. */
struct ue_peer {
	const char *role;	/* "mr-ue server", for messages */
	const struct load_backend *be;
	void *ctx;		/* the backend's and the callbacks' */
	/* This side's qpn, psn, port, mtu and rd_atomic into @h. */
	void (*local)(void *ctx, struct hello *h);
	/* Connect to the peer of hello @h at IPv4 @addr (network order). */
	int (*connect)(void *ctx, const struct hello *h, uint32_t addr);
	/* Wait up to @ms for the queue pair to have work, and do it. */
	void (*progress)(void *ctx, int ms);
};

/* The options both tools take (usage(): the tool's, on a bad one). */
struct ue_opts {
	const char *listen;	/* --listen PORT */
	const char *connect;	/* --connect HOST:PORT */
	uint64_t seed;		/* --seed N */
	bool seed_set;
	uint32_t count;		/* --count N, default 1000 */
	uint32_t size;		/* --size BYTES, default 4096 */
	int timeout_s;		/* --timeout SEC, default 60 */
	uint16_t udp_port;	/* --udp-port PORT, default 0 (the tool's) */
	uint8_t qp_timeout;	/* --qp-timeout CODE, default 14 */
};

#define UE_OPTS_LONG \
	{ "listen", required_argument, NULL, 'l' }, \
	{ "connect", required_argument, NULL, 'c' }, \
	{ "seed", required_argument, NULL, 's' }, \
	{ "count", required_argument, NULL, 'n' }, \
	{ "size", required_argument, NULL, 'z' }, \
	{ "timeout", required_argument, NULL, 't' }, \
	{ "udp-port", required_argument, NULL, 'u' }, \
	{ "qp-timeout", required_argument, NULL, 'T' }

void ue_opts_default(struct ue_opts *o);
/*
 * getopt_long()'s @c and @arg, if one of UE_OPTS_LONG: 1 taken, 0 not
 * one of them; calls @usage on a bad value.
 */
int ue_opts_take(struct ue_opts *o, int c, const char *arg,
		 void (*usage)(void));
/* After all options: exactly one of --listen and --connect? */
bool ue_opts_ok(const struct ue_opts *o);
/* A number 0..@max in @s (0x.. and 0.. too), or @usage. */
unsigned long long ue_num(const char *s, unsigned long long max,
			  void (*usage)(void));

uint64_t now_ms(void);

/* A TCP listener on IPv4 @addr (network order), @port. fd or -1. */
int chan_listen(uint32_t addr, uint16_t port);
/*
 * Accept one client on @lfd and shake hands as the server: @l is set up
 * from the client's hello (load_init() on @p's backend) and the queue
 * pair connected. The channel's fd, or -1 (said on stderr).
 */
int chan_server(const struct ue_peer *p, int lfd, struct load *l,
		uint64_t deadline);
/*
 * Set up @l for @o's seed (without --seed: from the time and the pid),
 * count and size, dial @o's --connect HOST:PORT and shake hands as the
 * client. The channel's fd, or -1 (said on stderr).
 */
int chan_client(const struct ue_peer *p, const struct ue_opts *o,
		struct load *l, uint64_t deadline);
/*
 * Run the workload until this side is done and the peer said DONE too,
 * then check the region. 0 if both sides are fine; -1 otherwise (l->err).
 */
int chan_run(const struct ue_peer *p, struct load *l, int tfd,
	     uint64_t deadline);
/*
 * The result line: "<role>: ok|FAILED count=N size=N seed=N verified:
 * send=N ... cmp_swap=N; <extra>" (load_verified_str()), then the first
 * failure, if any. "ok" needs every opcode verified at least once too.
 */
void chan_report(const struct ue_peer *p, const struct load *l, bool ok,
		 const char *extra);

#endif /* MR_UE_CHAN_H */
