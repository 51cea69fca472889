// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-ue: two processes speak MetaRoCE over UDP on the user endpoint
 * (mrue.h) and verify every byte.
 *
 *   mr-ue --listen PORT [--bind ADDR] [--loss PCT] [--dup PCT]
 *         [--reorder PCT] [--qp-timeout CODE] [--seed N] [--timeout SEC]
 *   mr-ue --connect HOST:PORT [--bind ADDR] [--udp-port PORT]
 *         [--loss PCT] [--dup PCT] [--reorder PCT] [--qp-timeout CODE]
 *         [--seed N] [--count N] [--size BYTES] [--timeout SEC]
 *
 * The server's endpoint binds UDP PORT and it listens on TCP PORT for the
 * handshake (PORT 0: a free port for both, printed as "mr-ue: listening
 * on port P"); the client's endpoint binds UDP --udp-port (default: a
 * free one). Both sides then run the verified workload (mr-ue-load.h)
 * over the side channel (mr-ue-chan.h, where the handshake is): each
 * posts COUNT messages (default 1000) of 0..SIZE bytes (default 4096)
 * cycling through SEND, SEND_IMM, WRITE, WRITE_IMM, READ, FETCH_ADD and
 * CMP_SWAP to the other, checks every completion, every READ byte and
 * every atomic's original value, and at the end what the peer wrote into
 * its region. --loss, --dup, --reorder: the endpoint's receive shim
 * drops, duplicates or holds back that percentage of the datagrams it
 * receives. --qp-timeout: the verbs local ACK timeout code (default 14,
 * MR-RETRY-3). Exit status 0 only if everything completed successfully
 * and verified on this side, and the peer said so too.
 *
 * The peer may be mr-ue-verbs on a kernel device instead (the same
 * channel): then this endpoint must bind the UDP port the kernel sends
 * to, its udp_port (MR_UDP_PORT, 4794 by default: MR-ENC-11), with
 * --listen 4794 or --udp-port 4794.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrue.h"
#include "mr-ue-chan.h"

struct opts {
	struct ue_opts c;
	const char *bind;
	uint32_t loss, dup, reorder;	/* ppm */
};

static void usage(void)
{
	fprintf(stderr,
		"usage: mr-ue --listen PORT [--bind ADDR] [--loss PCT] "
		"[--dup PCT] [--reorder PCT]\n"
		"             [--qp-timeout CODE] [--seed N] [--timeout SEC]\n"
		"       mr-ue --connect HOST:PORT [--bind ADDR] "
		"[--udp-port PORT] [--loss PCT]\n"
		"             [--dup PCT] [--reorder PCT] [--qp-timeout CODE] "
		"[--seed N]\n"
		"             [--count N] [--size BYTES] [--timeout SEC]\n");
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

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		UE_OPTS_LONG,
		{ "bind", required_argument, NULL, 'b' },
		{ "loss", required_argument, NULL, 'L' },
		{ "dup", required_argument, NULL, 'D' },
		{ "reorder", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	ue_opts_default(&o->c);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (ue_opts_take(&o->c, c, optarg, usage))
			continue;
		switch (c) {
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
		default:
			usage();
		}
	}
	if (optind != argc || !ue_opts_ok(&o->c) ||
	    (o->c.listen && o->c.udp_port))
		usage();
}

/* ---- the endpoint under the channel ------------------------------------- */

static void ue_local(void *ctx, struct hello *h)
{
	struct mrue_info me;

	mrue_local_info(ctx, &me);
	h->qpn = me.qpn;
	h->psn = me.psn;
	h->port = me.port;
	h->mtu = me.mtu;
	h->rd_atomic = me.max_rd_atomic;
}

static int ue_connect(void *ctx, const struct hello *h, uint32_t addr)
{
	struct mrue_info peer = {
		.addr = addr, .port = (uint16_t)h->port, .qpn = h->qpn,
		.psn = h->psn, .mtu = h->mtu,
		.max_rd_atomic = (uint8_t)h->rd_atomic,
	};

	return mrue_connect(ctx, &peer);
}

static void ue_progress(void *ctx, int ms)
{
	mrue_progress(ctx, ms);
}

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
	c->timeout = o->c.qp_timeout;
	c->sq_size = 2 * UE_DEPTH;
	c->rq_size = 2 * UE_DEPTH;
}

/*
 * The server's endpoint on UDP @port and a TCP listener on the same
 * number; port 0: a free one for both.
 */
static int server_open(const struct opts *o, const char *role,
		       struct mrue **ue, int *lfd)
{
	uint16_t port = (uint16_t)ue_num(o->c.listen, 65535, usage);
	struct mrue_info me;
	struct mrue_cfg c;
	int tries;

	for (tries = 0; tries < 32; tries++) {
		ue_cfg(o, &c, port, o->c.seed_set ? o->c.seed ^ 0x5e7e : 0);
		if (mrue_create(&c, ue))
			return -1;
		mrue_local_info(*ue, &me);
		*lfd = chan_listen(me.addr, me.port);
		if (*lfd >= 0) {
			printf("%s: listening on port %u\n", role, me.port);
			fflush(stdout);
			return 0;
		}
		mrue_destroy(*ue);
		*ue = NULL;
		if (port)
			break;
	}
	return -1;
}

static void report(const struct ue_peer *p, const struct load *l, bool ok)
{
	struct mrue_stats s;
	char extra[512];

	mrue_get_stats(p->ctx, &s);
	snprintf(extra, sizeof(extra), "sent=%" PRIu64 " retx=%" PRIu64
		 " rto=%" PRIu64 " shim_drops=%" PRIu64 " shim_dups=%" PRIu64
		 " dups=%" PRIu64 " replays=%" PRIu64 " rnr=%" PRIu64
		 " drops=%" PRIu64 " sock_drops=%" PRIu64
		 " hello=%s common=0x%x", s.tx_pkts, s.retx,
		 s.rto, s.shim_drops, s.shim_dups, s.dup + s.old_dup,
		 s.replays, s.rnr_events, s.drop_decode + s.drop_icrc +
		 s.drop_trimmed + s.drop_qpn + s.drop_src + s.drop_payload + s.drop_pmtu +
		 s.drop_oversize,
		 s.sock_drops, mrue_hello_state_str(s.hello_state),
		 s.hello_common);
	chan_report(p, l, ok, extra);
}

int main(int argc, char **argv)
{
	struct ue_peer peer = {
		.role = "mr-ue", .be = &load_mrue_backend, .local = ue_local,
		.connect = ue_connect, .progress = ue_progress,
	};
	struct mrue *ue = NULL;
	struct mrue_cfg c;
	struct opts o;
	struct load l;
	uint64_t deadline;
	int lfd = -1, tfd = -1, rc = 1;

	signal(SIGPIPE, SIG_IGN);
	parse(argc, argv, &o);
	deadline = now_ms() + (uint64_t)o.c.timeout_s * 1000;
	memset(&l, 0, sizeof(l));
	if (o.c.listen) {
		peer.role = "mr-ue server";
		if (server_open(&o, peer.role, &ue, &lfd)) {
			fprintf(stderr, "%s: cannot bind\n", peer.role);
			return 1;
		}
		peer.ctx = ue;
		tfd = chan_server(&peer, lfd, &l, deadline);
	} else {
		peer.role = "mr-ue client";
		ue_cfg(&o, &c, o.c.udp_port, o.c.seed_set ? o.c.seed ^ 0xc11e : 0);
		if (mrue_create(&c, &ue)) {
			fprintf(stderr, "%s: cannot bind\n", peer.role);
			return 1;
		}
		peer.ctx = ue;
		tfd = chan_client(&peer, &o.c, &l, deadline);
	}
	if (tfd >= 0) {
		rc = chan_run(&peer, &l, tfd, deadline) ? 1 : 0;
		report(&peer, &l, rc == 0);
		close(tfd);
	}
	if (lfd >= 0)
		close(lfd);
	if (l.be)
		load_fini(&l);
	mrue_destroy(ue);
	return rc;
}
