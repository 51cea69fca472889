// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-verify: RC data-integrity tool over standard verbs.
 *
 * Two hosts, one RC connection (or -q N), every RC opcode, many message
 * sizes, data checked on both sides. Runs over any verbs provider
 * (MetaRoCE, rdma_rxe, a NIC) because it uses nothing but ibv_*.
 *
 *   server:  mr-verify [options]
 *   client:  mr-verify [options] SERVER
 *
 * Connection set-up goes over a TCP socket (like ibv_rc_pingpong: QPN,
 * PSN, GID, buffer addresses and rkeys); the same socket then carries the
 * small control messages that pace the test. No rdma_cm.
 *
 * The plan. Both sides derive the same sequence of phases from the options:
 *   for pass (one, or until --time is up)
 *     for direction (server requests, then client requests)
 *       for op in send, send_imm, write, write_imm, read, cas, fadd
 *         for size in the size list (atomics: 8 bytes)
 *           iterations, in rounds of up to 32 messages per QP
 * Every message's content, placement offsets, SGE count, immediate value and
 * atomic operands come from a PRNG keyed by (seed, pass, direction, op, size,
 * iteration), so the side that did not produce the data can recompute it.
 *
 * A round, requester R and responder P:
 *   P  posts receives (SEND, SEND_IMM, WRITE_IMM), fills the target slots
 *      with a position-dependent canary pattern (or, for READ, places the
 *      source data), then sends READY.
 *   R  fills its sources (or canaries its READ targets), posts the WRs,
 *      waits for every completion (status, opcode, order), checks READ data,
 *      atomic return values and that its own sources did not change, and
 *      sends DONE with a checksum of the data as it saw it.
 *   P  collects its receive completions (status, opcode, byte_len, imm,
 *      flags, order), checks every byte of every target slot (message bytes
 *      against the PRNG, everything around them against the canary), the
 *      atomic words against its own model, compares checksums, sends RESULT.
 * Any mismatch or error completion ends the run on both sides: the side that
 * found it prints the diagnostic and forwards it to the peer.
 *
 * Reuse (--reuse-after-error, with --expect-error). A QP that failed must be
 * usable again after a reset (IB spec 10.3.1), so when the run ends with the
 * expected error both sides bring back the very same QPs, on the same PD,
 * MRs and CQs: ERR (flushes every WR still posted), drain the CQs, RESET,
 * INIT, new starting PSNs over the control channel, RTR, RTS; then one short
 * verified pass of every opcode on them ("REUSE: PASS ..." or a failure).
 * The side the peer told of the error goes through the same steps: its QPs
 * may still be RTS, with receives posted.
 *
 * Exit status: 0 all verified (or, with --expect-error, the run ended with
 * exactly that completion status, and with --reuse-after-error the reused
 * QPs then verified); 1 mismatch, error completion, timeout or peer failure;
 * 2 usage or set-up error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_QP		16
#define QDEPTH		32	/* messages per QP per round */
#define MAX_SGE		4	/* SGEs per WR we use at most */
#define CANARY		64	/* canary bytes before and after a slot's data */
#define GAP_MAX		64	/* gap between SGEs of one message: 0..63 */
#define EXTRA_MAX	64	/* receive room beyond the message: 0..63 */
#define WORDS_PER_QP	4	/* atomic target words per QP */
#define MAX_SIZES	64
#define SPEC_LEN	256
#define INLINE_WANT	64
#define HELLO_LEN	1024
#define HELLO2_LEN	64
#define CTL_LEN		256
#define CTL_TEXT	(CTL_LEN - 48)
#define DEFAULT_SIZES	"1,7,64,1000,mtu-1,mtu,mtu+1,4096,4097,65536,1048576"
#define MAGIC		"MRVERIFY"
#define PROTO_VERSION	1
#define REUSE_MAGIC	"MRREUSE1"
#define REUSE_LEN	160	/* magic, QP count, QPNs, PSNs */
#define REUSE_ITERS	8	/* messages per op and size on reused QPs */

enum op { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_CAS,
	  OP_FADD, OP_COUNT };

static const char *const op_name[OP_COUNT] = {
	"send", "send_imm", "write", "write_imm", "read", "cas", "fadd",
};

#define OPS_ALL		((1u << OP_COUNT) - 1)
#define OPS_ATOMIC	((1u << OP_CAS) | (1u << OP_FADD))

static bool op_atomic(int op) { return op == OP_CAS || op == OP_FADD; }
static bool op_recv(int op)
{
	return op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM;
}
static bool op_imm(int op) { return op == OP_SEND_IMM || op == OP_WRITE_IMM; }
static bool op_send(int op) { return op == OP_SEND || op == OP_SEND_IMM; }

/* ------------------------------------------------------------------ */
/* Options                                                            */

static struct {
	const char *dev;
	int ib_port;
	int gid_idx;
	const char *sizes_spec;
	bool sizes_explicit;
	uint64_t max_size;
	uint32_t iters;
	uint64_t phase_bytes;
	uint32_t ops_mask;
	bool ops_explicit;
	uint64_t seed;
	bool seed_set;
	uint32_t time_s;
	int mtu;		/* bytes, 0 = port's active MTU */
	uint32_t nqp;
	int timeout;
	int retry;
	int rnr_retry;
	int expect_err;		/* -1 none */
	int verbose;
	const char *tcp_port;
	int watchdog;
	int connect_timeout;
	int corrupt;
	bool busy_poll;
	bool reuse;		/* --reuse-after-error */
	bool reuse_hold;	/* --reuse-hold: wait for SIGUSR1 first */
	const char *server;
} O = {
	.ib_port = 1, .gid_idx = -1, .sizes_spec = DEFAULT_SIZES,
	.max_size = 1 << 20, .iters = 100, .phase_bytes = 8 << 20,
	.ops_mask = OPS_ALL, .nqp = 1, .timeout = 14, .retry = 7,
	.rnr_retry = 7, .expect_err = -1, .tcp_port = "18777",
	.watchdog = 60, .connect_timeout = 60,
};

/* ------------------------------------------------------------------ */
/* State                                                              */

struct peer {
	uint32_t lid;
	union ibv_gid gid;
	uint32_t qpn[MAX_QP];
	uint32_t psn[MAX_QP];
	uint32_t mtu;		/* enum ibv_mtu */
	uint32_t rd_atom;	/* max_qp_rd_atom (as responder) */
	uint32_t init_rd_atom;	/* max_qp_init_rd_atom (as requester) */
	uint64_t rbuf_addr, rbuf_len, abuf_addr, abuf_len;
	uint32_t rbuf_rkey, abuf_rkey;
};

static struct {
	bool server;
	const char *role;	/* "server" or "client" */
	int sock;
	bool fail_sent;
	bool peer_reported;	/* the failure came from the peer */
	struct timespec t0;

	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *sch, *rch;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp[MAX_QP];
	uint32_t psn[MAX_QP];
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	int gid_idx;		/* -1: no GRH (InfiniBand LID routing) */
	enum ibv_mtu mtu;
	uint32_t send_sge, recv_sge, read_sge, max_inline;
	struct peer peer;
	uint32_t ops;		/* effective op mask */
	uint32_t ops_avail;	/* every op both devices support */
	uint32_t sq_posted;	/* send WRs posted and not yet polled */
	uint32_t rq_posted;	/* receive WRs likewise */
	bool reusing;		/* past the expected error, on reset QPs */

	uint64_t sizes[MAX_SIZES];
	int nsizes;
	size_t bufsize;
	uint8_t *sbuf, *rbuf, *ebuf, *abuf, *aret;
	size_t abuf_len, aret_len;
	struct ibv_mr *smr, *rmr, *amr, *retmr;

	uint32_t round_seq;
	bool corrupted;

	/* totals */
	uint64_t msgs[OP_COUNT], bytes[OP_COUNT];
	uint64_t rounds, phases, passes;
	unsigned dirs_run;	/* bit per direction that ran */
} S = { .sock = -1, .gid_idx = -1 };

struct phase {
	uint32_t pass;
	uint32_t dir;		/* 0: server requests, 1: client requests */
	uint32_t op;
	uint32_t size_idx;
	uint64_t size;
	uint32_t iters;
};

/* Everything both sides know about one message. */
struct mdesc {
	uint64_t data_seed;
	uint64_t lay_seed;
	uint32_t imm;
	unsigned misalign;	/* remote placement offset 0..7 */
	bool multi_r;		/* several SGEs on the requester's side */
	bool multi_p;		/* several receive SGEs on the responder's side */
	bool inl;		/* IBV_SEND_INLINE when it fits */
	unsigned extra;		/* receive room beyond the message */
	bool recv_buf;		/* WRITE_IMM receive with a (canary) buffer */
	unsigned wsel;		/* atomic word selector */
	bool cas_hit;		/* CMP_SWP compare equals current value */
	uint64_t a, b;		/* atomic operands */
};

struct layout {
	unsigned n;
	size_t start, end;	/* the slot: [start, end) */
	size_t off[MAX_SGE];
	size_t dlen[MAX_SGE];	/* message bytes in this SGE */
	uint32_t len[MAX_SGE];	/* SGE length (dlen + receive room) */
};

/* ------------------------------------------------------------------ */
/* Time, output, failure                                              */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static double elapsed_s(void)
{
	return now_s() - (S.t0.tv_sec + S.t0.tv_nsec / 1e9);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	printf("mr-verify[%s]: ", S.role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void vsay(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void vsay(const char *fmt, ...)
{
	va_list ap;

	if (!O.verbose)
		return;
	printf("mr-verify[%s]: ", S.role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void setup_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static void setup_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "mr-verify[%s]: error: ", S.role ? S.role : "?");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static const struct {
	int status;
	const char *name;
} wc_names[] = {
	{ IBV_WC_SUCCESS, "SUCCESS" },
	{ IBV_WC_LOC_LEN_ERR, "LOC_LEN_ERR" },
	{ IBV_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR" },
	{ IBV_WC_LOC_EEC_OP_ERR, "LOC_EEC_OP_ERR" },
	{ IBV_WC_LOC_PROT_ERR, "LOC_PROT_ERR" },
	{ IBV_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR" },
	{ IBV_WC_MW_BIND_ERR, "MW_BIND_ERR" },
	{ IBV_WC_BAD_RESP_ERR, "BAD_RESP_ERR" },
	{ IBV_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR" },
	{ IBV_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR" },
	{ IBV_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR" },
	{ IBV_WC_REM_OP_ERR, "REM_OP_ERR" },
	{ IBV_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR" },
	{ IBV_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR" },
	{ IBV_WC_LOC_RDD_VIOL_ERR, "LOC_RDD_VIOL_ERR" },
	{ IBV_WC_REM_INV_RD_REQ_ERR, "REM_INV_RD_REQ_ERR" },
	{ IBV_WC_REM_ABORT_ERR, "REM_ABORT_ERR" },
	{ IBV_WC_INV_EECN_ERR, "INV_EECN_ERR" },
	{ IBV_WC_INV_EEC_STATE_ERR, "INV_EEC_STATE_ERR" },
	{ IBV_WC_FATAL_ERR, "FATAL_ERR" },
	{ IBV_WC_RESP_TIMEOUT_ERR, "RESP_TIMEOUT_ERR" },
	{ IBV_WC_GENERAL_ERR, "GENERAL_ERR" },
	{ IBV_WC_TM_ERR, "TM_ERR" },
	{ IBV_WC_TM_RNDV_INCOMPLETE, "TM_RNDV_INCOMPLETE" },
};

static const char *wc_name(int status)
{
	for (size_t i = 0; i < sizeof(wc_names) / sizeof(wc_names[0]); i++)
		if (wc_names[i].status == status)
			return wc_names[i].name;
	return "UNKNOWN";
}

static int parse_wc_status(const char *s)
{
	char *end;
	long v;

	if (!strncasecmp(s, "IBV_WC_", 7))
		s += 7;
	for (size_t i = 0; i < sizeof(wc_names) / sizeof(wc_names[0]); i++)
		if (!strcasecmp(s, wc_names[i].name))
			return wc_names[i].status;
	v = strtol(s, &end, 0);
	if (*s && !*end && v > 0 && v < 256)
		return (int)v;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Control channel                                                    */

enum ctl_type { CTL_SYNC = 1, CTL_PHASE, CTL_READY, CTL_DONE, CTL_RESULT,
	CTL_REUSE };
static const char *const ctl_name[] = {
	"?", "SYNC", "PHASE", "READY", "DONE", "RESULT", "REUSE",
};

struct ctl {
	uint32_t type;
	uint32_t fail;		/* nonzero: the sender's run failed */
	uint32_t wc_status;	/* failing completion status, 0 if none */
	uint32_t pad;
	uint64_t v[4];
	char text[CTL_TEXT];
};

static void put32(uint8_t **p, uint32_t v)
{
	v = htobe32(v);
	memcpy(*p, &v, 4);
	*p += 4;
}

static void put64(uint8_t **p, uint64_t v)
{
	v = htobe64(v);
	memcpy(*p, &v, 8);
	*p += 8;
}

static uint32_t get32(const uint8_t **p)
{
	uint32_t v;

	memcpy(&v, *p, 4);
	*p += 4;
	return be32toh(v);
}

static uint64_t get64(const uint8_t **p)
{
	uint64_t v;

	memcpy(&v, *p, 8);
	*p += 8;
	return be64toh(v);
}

/* Write all of buf, waiting at most tmo seconds. 0 or -errno. */
static int sock_write(const void *buf, size_t len, int tmo)
{
	const uint8_t *p = buf;
	double end = now_s() + tmo;

	while (len) {
		struct pollfd pfd = { .fd = S.sock, .events = POLLOUT };
		int ms = (int)((end - now_s()) * 1000);
		ssize_t n;

		if (ms <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		n = send(S.sock, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Read exactly len bytes within tmo seconds. 0, -ETIMEDOUT, -EPIPE (EOF). */
static int sock_read(void *buf, size_t len, int tmo)
{
	uint8_t *p = buf;
	double end = now_s() + tmo;

	while (len) {
		struct pollfd pfd = { .fd = S.sock, .events = POLLIN };
		int ms = (int)((end - now_s()) * 1000);
		ssize_t n;

		if (ms <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		n = recv(S.sock, p, len, MSG_DONTWAIT);
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int ctl_tmo(void)
{
	/* The peer may itself be waiting a full watchdog on its CQ. */
	return 2 * O.watchdog + 30;
}

static int ctl_send(const struct ctl *c)
{
	uint8_t buf[CTL_LEN] = { 0 }, *p = buf;

	put32(&p, c->type);
	put32(&p, c->fail);
	put32(&p, c->wc_status);
	put32(&p, 0);
	for (int i = 0; i < 4; i++)
		put64(&p, c->v[i]);
	memcpy(p, c->text, CTL_TEXT);
	buf[CTL_LEN - 1] = 0;
	return sock_write(buf, CTL_LEN, ctl_tmo());
}

static void finish(int wc_status, bool failed) __attribute__((noreturn));
static void reuse_after_error(void) __attribute__((noreturn));

/* The ending --expect-error asks for: reported without "FAIL". */
static const char *fail_tag(int wc_status)
{
	return O.expect_err >= 0 && wc_status == O.expect_err ? "" : "FAIL: ";
}

/* Report a failure of the run, tell the peer, exit. */
static void fail_wc(int wc_status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void fail_wc(int wc_status, const char *fmt, ...)
{
	/*
	 * On reused QPs the report is a REUSE: the peer may be skipping
	 * stale messages until it sees one (reuse_sync).
	 */
	struct ctl c = { .type = S.reusing ? CTL_REUSE : CTL_RESULT, .fail = 1 };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c.text, sizeof(c.text), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "mr-verify[%s]: %s", S.role, fail_tag(wc_status));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (S.sock >= 0 && !S.fail_sent) {
		S.fail_sent = true;
		c.wc_status = wc_status;
		if (ctl_send(&c))
			fprintf(stderr, "mr-verify[%s]: (could not tell the peer)\n",
				S.role);
	}
	finish(wc_status, true);
}

#define fail(...) fail_wc(0, __VA_ARGS__)

/* Extra detail lines before a fail(): stderr only. */
static void detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void detail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "mr-verify[%s]:   ", S.role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The next control message, whatever its type; want names it in errors. */
static void ctl_read(struct ctl *c, uint32_t want)
{
	uint8_t buf[CTL_LEN];
	const uint8_t *p = buf;
	int rc = sock_read(buf, CTL_LEN, ctl_tmo());

	if (rc == -ETIMEDOUT)
		fail("control channel: no %s from the peer within %d s (watchdog)",
		     ctl_name[want], ctl_tmo());
	if (rc == -EPIPE)
		fail("control channel: the peer closed the connection (waiting for %s)",
		     ctl_name[want]);
	if (rc)
		fail("control channel: %s", strerror(-rc));
	c->type = get32(&p);
	c->fail = get32(&p);
	c->wc_status = get32(&p);
	get32(&p);
	for (int i = 0; i < 4; i++)
		c->v[i] = get64(&p);
	memcpy(c->text, p, CTL_TEXT);
	c->text[CTL_TEXT - 1] = 0;
}

/* The peer's run failed and it said why. */
static void peer_failed(const struct ctl *c) __attribute__((noreturn));
static void peer_failed(const struct ctl *c)
{
	/* The peer already printed it; repeat it here so each log is complete. */
	S.fail_sent = true;
	S.peer_reported = true;
	fflush(stdout);
	fprintf(stderr, "mr-verify[%s]: %speer reported: %s\n",
		S.role, fail_tag((int)c->wc_status), c->text);
	finish((int)c->wc_status, true);
}

static void ctl_recv(struct ctl *c, uint32_t want)
{
	ctl_read(c, want);
	if (c->fail)
		peer_failed(c);
	if (c->type != want)
		fail("control channel: expected %s, got message type %u",
		     ctl_name[want], c->type);
}

static void ctl_simple(uint32_t type, uint64_t v0, uint64_t v1)
{
	struct ctl c = { .type = type, .v = { v0, v1 } };
	int rc = ctl_send(&c);

	if (rc)
		fail("control channel: sending %s: %s", ctl_name[type],
		     strerror(-rc));
}

static void finish(int wc_status, bool failed)
{
	if (S.reusing) {
		/* Only reuse_after_error() ends a good pass on reused QPs. */
		say("REUSE: FAIL: the QPs reset after the error did not verify (%s)",
		    failed && wc_status ? wc_name(wc_status) : "see above");
		exit(1);
	}
	if (O.expect_err >= 0) {
		if (failed && wc_status == O.expect_err) {
			say("PASS: run ended with the expected completion status %s (%d)%s",
			    wc_name(wc_status), wc_status,
			    S.peer_reported ? ", reported by the peer" : "");
			if (O.reuse)
				reuse_after_error();
			exit(0);
		}
		if (!failed) {
			say("FAIL: expected completion status %s but the run completed without error",
			    wc_name(O.expect_err));
			exit(1);
		}
		fflush(stdout);
		fprintf(stderr, "mr-verify[%s]: FAIL: expected completion status %s, run ended %s%s\n",
			S.role, wc_name(O.expect_err),
			wc_status ? "with status " : "with a failure that is not a completion status",
			wc_status ? wc_name(wc_status) : "");
		exit(1);
	}
	exit(failed ? 1 : 0);
}

/* ------------------------------------------------------------------ */
/* PRNG, data, checksums                                              */

static inline uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	uint64_t s = h ^ (v * 0xD6E8FEB86659FD93ull);

	return splitmix64(&s);
}

static void gen_data(uint64_t seed, uint8_t *out, size_t len)
{
	uint64_t s = seed, v;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		v = splitmix64(&s);
		memcpy(out + i, &v, 8);
	}
	if (i < len) {
		v = splitmix64(&s);
		memcpy(out + i, &v, len - i);
	}
}

/* Canary/poison byte at a buffer offset: position-dependent, so shifted or
 * stale data does not pass for it. */
static inline uint8_t canary_at(size_t off)
{
	return (uint8_t)(0xC5 ^ (off * 0x9D) ^ (off >> 8));
}

static void fill_canary(uint8_t *buf, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		buf[i] = canary_at(i);
}

static inline uint8_t junk_at(size_t off)
{
	return (uint8_t)(0x3A + off * 0x4F);
}

static void fill_junk(uint8_t *buf, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		buf[i] = junk_at(i);
}

/* FNV-1a 64 over a byte stream. */
#define FNV_INIT 0xcbf29ce484222325ull
static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t fnv_layout(uint64_t h, const uint8_t *buf,
			   const struct layout *lo)
{
	for (unsigned j = 0; j < lo->n; j++)
		h = fnv(h, buf + lo->off[j], lo->dlen[j]);
	return h;
}

/* ------------------------------------------------------------------ */
/* The plan                                                           */

static uint64_t phase_key(const struct phase *ph)
{
	uint64_t h = mix(O.seed, 0x6d722d7665726966ull);

	h = mix(h, ph->pass);
	h = mix(h, ph->dir);
	h = mix(h, ph->op);
	return mix(h, ph->size);
}

static void msg_desc(const struct phase *ph, uint32_t iter, struct mdesc *d)
{
	uint64_t s = mix(phase_key(ph), iter), r;

	d->data_seed = splitmix64(&s);
	d->lay_seed = splitmix64(&s);
	d->imm = (uint32_t)splitmix64(&s);
	r = splitmix64(&s);
	d->misalign = r & 7;
	d->multi_r = ((r >> 3) & 3) >= 2;
	d->multi_p = ((r >> 5) & 3) >= 2;
	d->inl = (r >> 7) & 1;
	d->extra = (r >> 8) & (EXTRA_MAX - 1);
	d->recv_buf = (r >> 14) & 1;
	d->wsel = (r >> 16) & 0xffff;
	d->cas_hit = ((r >> 32) & 3) != 0;
	d->a = splitmix64(&s);
	d->b = splitmix64(&s);
}

static uint32_t phase_iters(uint32_t op, uint64_t size)
{
	uint64_t n = O.iters, cap;

	if (op_atomic(op))
		return O.iters;
	cap = O.phase_bytes / (size ? size : 1);
	if (cap < 1)
		cap = 1;
	return (uint32_t)(n < cap ? n : cap);
}

/* The next phase after *ph (ph->op == OP_COUNT: the first). */
static bool next_phase(struct phase *ph)
{
	bool first = ph->op == OP_COUNT;

	for (;;) {
		if (first) {
			*ph = (struct phase){ .op = 0 };
			first = false;
		} else if (!op_atomic(ph->op) &&
			   ph->size_idx + 1 < (uint32_t)S.nsizes) {
			ph->size_idx++;
		} else if (ph->op + 1 < OP_COUNT) {
			ph->op++;
			ph->size_idx = 0;
		} else if (ph->dir == 0) {
			ph->dir = 1;
			ph->op = 0;
			ph->size_idx = 0;
		} else {
			if (!O.time_s)
				return false;
			ph->pass++;
			ph->dir = 0;
			ph->op = 0;
			ph->size_idx = 0;
		}
		if (!(S.ops & (1u << ph->op)))
			continue;
		if (op_atomic(ph->op) && ph->size_idx)
			continue;
		ph->size = op_atomic(ph->op) ? 8 : S.sizes[ph->size_idx];
		ph->iters = phase_iters(ph->op, ph->size);
		return true;
	}
}

static size_t stride_of(uint64_t size)
{
	size_t s = 2 * CANARY + 8 + size + (MAX_SGE - 1) * GAP_MAX + EXTRA_MAX;

	return (s + 63) & ~(size_t)63;
}

static uint32_t round_width(const struct phase *ph, uint32_t left)
{
	uint32_t w = QDEPTH * O.nqp;

	if (!op_atomic(ph->op)) {
		size_t per = S.bufsize / stride_of(ph->size);

		if (per < w)
			w = (uint32_t)per;
	}
	return left < w ? left : w;
}

static void make_layout(struct layout *lo, size_t slot, size_t stride,
			size_t len, unsigned nsge, unsigned extra,
			uint64_t seed)
{
	uint64_t s = seed;
	size_t cut[MAX_SGE + 1], pos;
	unsigned k, n;

	lo->start = slot;
	lo->end = slot + stride;
	pos = slot + CANARY + (splitmix64(&s) & 7);
	lo->n = 0;
	if (len == 0 && extra == 0)
		return;
	if (nsge > MAX_SGE)
		nsge = MAX_SGE;
	if (nsge < 1)
		nsge = 1;
	if (len < nsge)
		nsge = len ? (unsigned)len : 1;
	cut[0] = 0;
	for (k = 1; k < nsge; k++)
		cut[k] = 1 + splitmix64(&s) % (len - 1);
	cut[nsge] = len;
	/* sort the inner cuts, drop duplicates */
	for (unsigned a = 1; a < nsge; a++)
		for (unsigned b = a + 1; b < nsge; b++)
			if (cut[b] < cut[a]) {
				size_t t = cut[a];

				cut[a] = cut[b];
				cut[b] = t;
			}
	n = 0;
	for (k = 0; k < nsge; k++) {
		if (cut[k + 1] == cut[k] && !(k + 1 == nsge && n == 0))
			continue;
		lo->off[n] = pos;
		lo->dlen[n] = cut[k + 1] - cut[k];
		lo->len[n] = (uint32_t)lo->dlen[n];
		pos += lo->dlen[n] + (splitmix64(&s) % GAP_MAX);
		n++;
	}
	lo->n = n;
	lo->len[n - 1] += extra;
}

static void contig_layout(struct layout *lo, size_t slot, size_t stride,
			  size_t len, unsigned misalign)
{
	lo->start = slot;
	lo->end = slot + stride;
	lo->n = 1;
	lo->off[0] = slot + CANARY + misalign;
	lo->dlen[0] = len;
	lo->len[0] = (uint32_t)len;
}

static void copy_in(uint8_t *buf, const struct layout *lo, const uint8_t *src)
{
	size_t m = 0;

	for (unsigned j = 0; j < lo->n; j++) {
		memcpy(buf + lo->off[j], src + m, lo->dlen[j]);
		m += lo->dlen[j];
	}
}

/* Location of message byte m in a layout (buffer offset). */
static size_t layout_pos(const struct layout *lo, size_t m)
{
	for (unsigned j = 0; j < lo->n; j++) {
		if (m < lo->dlen[j])
			return lo->off[j] + m;
		m -= lo->dlen[j];
	}
	return lo->start;
}

/* ------------------------------------------------------------------ */
/* Verification                                                       */

struct mctx {
	const struct phase *ph;
	uint32_t iter;
	uint32_t qp;
	const char *what;	/* which buffer */
};

static const char *req_name(const struct phase *ph)
{
	return ph->dir == 0 ? "server" : "client";
}

static void hexdump16(char *out, size_t outlen, const uint8_t *p, size_t n)
{
	size_t o = 0;

	out[0] = 0;
	for (size_t i = 0; i < n && i < 16 && o + 4 < outlen; i++)
		o += snprintf(out + o, outlen - o, "%s%02x", i ? " " : "", p[i]);
}

static void check_canary(const uint8_t *buf, const struct layout *lo,
			 size_t from, size_t to, const struct mctx *mc)
{
	for (size_t i = from; i < to; i++) {
		if (buf[i] == canary_at(i))
			continue;
		size_t first = lo->n ? lo->off[0] : lo->start + CANARY;
		size_t endd = lo->n ? lo->off[lo->n - 1] + lo->dlen[lo->n - 1] : first;
		const char *where = i < first ? "before the message" :
				    i >= endd ? "after the message" :
				    "in a gap between SGEs";
		size_t bad = 0;

		for (size_t j = from; j < to; j++)
			bad += buf[j] != canary_at(j);
		fail("CANARY op=%s size=%" PRIu64 " pass=%u msg=%u qp=%u requester=%s: "
		     "%s byte at slot offset %zu (%s) overwritten: expected 0x%02x got 0x%02x (%zu such bytes in that range)",
		     op_name[mc->ph->op], mc->ph->size, mc->ph->pass, mc->iter,
		     mc->qp, req_name(mc->ph), mc->what, i - lo->start, where,
		     canary_at(i), buf[i], bad);
	}
}

/* Compare the message bytes in a layout against exp; with canaries, also
 * check everything else in the slot. */
static void check_layout(const uint8_t *buf, const struct layout *lo,
			 const uint8_t *exp, bool canaries,
			 const struct mctx *mc)
{
	size_t m = 0, cur = lo->start;

	for (unsigned j = 0; j < lo->n; j++) {
		const uint8_t *got = buf + lo->off[j], *want = exp + m;

		if (canaries)
			check_canary(buf, lo, cur, lo->off[j], mc);
		if (memcmp(got, want, lo->dlen[j])) {
			size_t i = 0, bad = 0, mm = 0;
			char e[64], g[64];

			while (got[i] == want[i])
				i++;
			for (unsigned k = 0; k < lo->n; k++) {
				for (size_t x = 0; x < lo->dlen[k]; x++)
					bad += buf[lo->off[k] + x] != exp[mm + x];
				mm += lo->dlen[k];
			}
			hexdump16(e, sizeof(e), want + i,
				  lo->dlen[j] - i);
			hexdump16(g, sizeof(g), got + i, lo->dlen[j] - i);
			detail("expected: %s", e);
			detail("got:      %s", g);
			fail("MISMATCH op=%s size=%" PRIu64 " pass=%u msg=%u qp=%u requester=%s: "
			     "%s: first bad byte at message offset %zu (SGE %u of %u, slot offset %zu): "
			     "expected 0x%02x got 0x%02x; %zu bad byte(s) in the message",
			     op_name[mc->ph->op], mc->ph->size, mc->ph->pass,
			     mc->iter, mc->qp, req_name(mc->ph), mc->what, m + i,
			     j + 1, lo->n, lo->off[j] + i - lo->start, want[i],
			     got[i], bad);
		}
		m += lo->dlen[j];
		cur = lo->off[j] + lo->dlen[j];
	}
	if (canaries)
		check_canary(buf, lo, cur, lo->end, mc);
}

/* --corrupt-for-test: flip one byte of the first non-empty message this
 * process is the source of, in the source buffer and in its own record of
 * what it sent (so that only the peer's check can notice). */
static void maybe_corrupt(uint8_t *buf, const struct layout *lo,
			  uint8_t *exp, size_t size, const struct mctx *mc)
{
	size_t m, pos;

	if (!O.corrupt || S.corrupted || size == 0)
		return;
	S.corrupted = true;
	m = size / 2;
	pos = layout_pos(lo, m);
	buf[pos] ^= 0x5a;
	exp[m] ^= 0x5a;
	say("corrupt-for-test: flipped byte %zu of the %s message %u (size %" PRIu64 ") in the source buffer",
	    m, op_name[mc->ph->op], mc->iter, mc->ph->size);
}

/* ------------------------------------------------------------------ */
/* Completions                                                        */

static void arm_events(struct ibv_cq *cq)
{
	if (ibv_req_notify_cq(cq, 0))
		fail("ibv_req_notify_cq failed");
}

/*
 * Poll up to n completions and count them off the WRs posted to that CQ: a
 * reuse after an error must know how many are still to come back flushed.
 */
static int poll_counted(struct ibv_cq *cq, int n, struct ibv_wc *wc,
			const char *what)
{
	uint32_t *posted = cq == S.scq ? &S.sq_posted : &S.rq_posted;
	int k = ibv_poll_cq(cq, n, wc);

	if (k < 0)
		fail("ibv_poll_cq (%s) failed: %d", what, k);
	if ((uint32_t)k > *posted)
		fail("%d %s completion(s) but only %u WR(s) outstanding",
		     k, what, *posted);
	*posted -= (uint32_t)k;
	return k;
}

/*
 * Collect n completions from cq, waiting at most the watchdog. Returns how
 * many were collected: n, or fewer when one with an error status arrived
 * (it is the last one returned).
 */
static int wait_cq(struct ibv_cq *cq, struct ibv_comp_channel *ch, int n,
		   struct ibv_wc *wc, const char *what)
{
	double deadline = now_s() + O.watchdog;
	bool armed = false;
	int got = 0;

	while (got < n) {
		int k = poll_counted(cq, n - got, wc + got, what);

		if (k > 0) {
			for (int i = got; i < got + k; i++)
				if (wc[i].status != IBV_WC_SUCCESS)
					return i + 1;
			got += k;
			continue;
		}
		if (now_s() >= deadline)
			fail_wc(0, "watchdog: %d of %d %s completions after %d s",
				got, n, what, O.watchdog);
		if (O.busy_poll) {
			sched_yield();
			continue;
		}
		if (!armed) {
			arm_events(cq);
			armed = true;
			continue;	/* poll once more: no lost wake-up */
		}
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		int ms = (int)((deadline - now_s()) * 1000) + 1;

		if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
			fail("poll on the completion channel: %s", strerror(errno));
		if (pfd.revents & POLLIN) {
			struct ibv_cq *ecq;
			void *ectx;

			if (!ibv_get_cq_event(ch, &ecq, &ectx)) {
				ibv_ack_cq_events(ecq, 1);
				armed = false;
			}
		}
	}
	return got;
}

static uint64_t wr_id_of(uint32_t k)
{
	return ((uint64_t)S.round_seq << 20) | k;
}

static const char *wc_opcode_name(int op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "?";
	}
}

/*
 * Check n completions of one round: success, the expected opcode, and per QP
 * the posting order (message k is on QP k % nqp, in increasing k).
 */
static void check_wcs(const struct phase *ph, uint32_t base, struct ibv_wc *wc,
		      int got, int n, bool recv, const struct mdesc *d)
{
	uint32_t next[MAX_QP];
	int want_op;

	for (uint32_t q = 0; q < O.nqp; q++)
		next[q] = q;
	switch (ph->op) {
	case OP_SEND:
	case OP_SEND_IMM: want_op = recv ? IBV_WC_RECV : IBV_WC_SEND; break;
	case OP_WRITE:
	case OP_WRITE_IMM:
		want_op = recv ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RDMA_WRITE;
		break;
	case OP_READ: want_op = IBV_WC_RDMA_READ; break;
	case OP_CAS: want_op = IBV_WC_COMP_SWAP; break;
	default: want_op = IBV_WC_FETCH_ADD; break;
	}
	for (int i = 0; i < got; i++) {
		struct ibv_wc *w = &wc[i];
		uint32_t k = w->wr_id & 0xfffff, q;

		if ((w->wr_id >> 20) != S.round_seq || k >= (uint32_t)n) {
			if (w->status != IBV_WC_SUCCESS)
				fail_wc(w->status, "error completion %s (%d, vendor_err 0x%x) with unknown wr_id 0x%" PRIx64 " (op=%s size=%" PRIu64 " requester=%s, %s side)",
					ibv_wc_status_str(w->status), w->status,
					w->vendor_err, w->wr_id,
					op_name[ph->op], ph->size,
					req_name(ph),
					recv ? "receive" : "send");
			fail("completion with unexpected wr_id 0x%" PRIx64 " (round %u, %d messages; op=%s size=%" PRIu64 ")",
			     w->wr_id, S.round_seq, n, op_name[ph->op],
			     ph->size);
		}
		q = k % O.nqp;
		if (w->status != IBV_WC_SUCCESS)
			fail_wc(w->status, "error completion op=%s size=%" PRIu64 " pass=%u msg=%u qp=%u requester=%s (%s side): status %s (%d: %s), vendor_err 0x%x",
				op_name[ph->op], ph->size, ph->pass,
				base + k, q,
				req_name(ph), recv ? "receive" : "send",
				wc_name(w->status), w->status,
				ibv_wc_status_str(w->status), w->vendor_err);
		if (w->qp_num != S.qp[q]->qp_num)
			fail("completion for msg slot %u carries qp_num 0x%x, expected 0x%x (op=%s size=%" PRIu64 ")",
			     k, w->qp_num, S.qp[q]->qp_num, op_name[ph->op],
			     ph->size);
		if (k != next[q])
			fail("completion order on qp %u: got slot %u, expected slot %u (op=%s size=%" PRIu64 ")",
			     q, k, next[q], op_name[ph->op], ph->size);
		next[q] += O.nqp;
		if ((int)w->opcode != want_op)
			fail("completion opcode %s (%d), expected %s (op=%s size=%" PRIu64 " slot %u, %s side)",
			     wc_opcode_name(w->opcode), w->opcode,
			     wc_opcode_name(want_op), op_name[ph->op],
			     ph->size, k, recv ? "receive" : "send");
		if (!recv)
			continue;
		if (w->byte_len != ph->size)
			fail("RECV byte_len %u, expected %" PRIu64 " (op=%s slot %u qp %u requester=%s)",
			     w->byte_len, ph->size, op_name[ph->op], k, q,
			     req_name(ph));
		if (op_imm(ph->op)) {
			if (!(w->wc_flags & IBV_WC_WITH_IMM))
				fail("completion without IBV_WC_WITH_IMM (op=%s size=%" PRIu64 " slot %u)",
				     op_name[ph->op], ph->size, k);
			if (ntohl(w->imm_data) != d[k].imm)
				fail("immediate 0x%08x, expected 0x%08x (op=%s size=%" PRIu64 " slot %u qp %u)",
				     ntohl(w->imm_data), d[k].imm,
				     op_name[ph->op], ph->size, k, q);
		} else if (w->wc_flags & IBV_WC_WITH_IMM) {
			fail("completion has IBV_WC_WITH_IMM for a plain %s (size=%" PRIu64 " slot %u)",
			     op_name[ph->op], ph->size, k);
		}
	}
	if (got != n)
		fail("internal: %d of %d completions", got, n);
}

/* ------------------------------------------------------------------ */
/* Rounds                                                             */

static uint64_t atom_model[WORDS_PER_QP * MAX_QP];

static uint32_t atom_words(void) { return WORDS_PER_QP * O.nqp; }

static uint32_t atom_word(const struct mdesc *d, uint32_t k)
{
	return k % O.nqp + O.nqp * (d->wsel % WORDS_PER_QP);
}

static size_t atom_off(uint32_t w) { return CANARY + 8 * (size_t)w; }

/* Apply message k to the model; returns the value the op must return. */
static uint64_t atom_apply(const struct phase *ph, const struct mdesc *d,
			   uint32_t k, uint64_t *cmp, uint64_t *arg)
{
	uint32_t w = atom_word(d, k);
	uint64_t old = atom_model[w];

	if (ph->op == OP_CAS) {
		*cmp = d->cas_hit ? old : old ^ (d->a | 1);
		*arg = d->b;
		if (d->cas_hit)
			atom_model[w] = d->b;
	} else {
		*cmp = d->a;
		*arg = 0;
		atom_model[w] = old + d->a;
	}
	return old;
}

static uint64_t atom_hash_model(void)
{
	return fnv(FNV_INIT, (const uint8_t *)atom_model, 8 * atom_words());
}

static void atom_phase_init(const struct phase *ph, bool responder)
{
	uint64_t key = mix(phase_key(ph), 0x61746f6dull);

	for (uint32_t w = 0; w < atom_words(); w++)
		atom_model[w] = mix(key, w);
	if (!responder)
		return;
	fill_canary(S.abuf, 0, S.abuf_len);
	for (uint32_t w = 0; w < atom_words(); w++)
		memcpy(S.abuf + atom_off(w), &atom_model[w], 8);
	if (O.corrupt && !S.corrupted) {
		struct mdesc d;
		uint32_t w;

		msg_desc(ph, 0, &d);
		w = atom_word(&d, 0);
		S.corrupted = true;
		S.abuf[atom_off(w)] ^= 0x5a;
		((uint8_t *)&atom_model[w])[0] ^= 0x5a;
		say("corrupt-for-test: flipped a byte of atomic word %u before the %s phase",
		    w, op_name[ph->op]);
	}
}

static void requester_round(const struct phase *ph, uint32_t base,
			    uint32_t n, struct mdesc *d)
{
	static struct ibv_send_wr wr[QDEPTH * MAX_QP];
	static struct ibv_sge sge[QDEPTH * MAX_QP][MAX_SGE];
	static struct layout lo[QDEPTH * MAX_QP];
	static uint64_t ret_want[QDEPTH * MAX_QP];
	static struct ibv_wc wc[QDEPTH * MAX_QP];
	struct ibv_send_wr *head[MAX_QP] = { 0 }, *tail[MAX_QP] = { 0 };
	size_t stride = op_atomic(ph->op) ? 0 : stride_of(ph->size);
	uint64_t csum = FNV_INIT;
	struct ctl c;
	int got;

	for (uint32_t k = 0; k < n; k++) {
		struct mctx mc = { ph, base + k, k % O.nqp, "source" };
		struct ibv_send_wr *w = &wr[k];
		uint32_t q = k % O.nqp;
		unsigned cap = ph->op == OP_READ ? S.read_sge : S.send_sge;
		unsigned nsge = 1;

		msg_desc(ph, base + k, &d[k]);
		memset(w, 0, sizeof(*w));
		w->wr_id = wr_id_of(k);
		w->sg_list = sge[k];
		w->send_flags = IBV_SEND_SIGNALED;
		if (op_atomic(ph->op)) {
			uint64_t cmp, arg;

			ret_want[k] = atom_apply(ph, &d[k], k, &cmp, &arg);
			memset(S.aret + 8 * k, 0xEE, 8);
			sge[k][0] = (struct ibv_sge){
				.addr = (uintptr_t)(S.aret + 8 * k),
				.length = 8, .lkey = S.retmr->lkey };
			w->num_sge = 1;
			w->opcode = ph->op == OP_CAS ?
				IBV_WR_ATOMIC_CMP_AND_SWP :
				IBV_WR_ATOMIC_FETCH_AND_ADD;
			w->wr.atomic.remote_addr = S.peer.abuf_addr +
				atom_off(atom_word(&d[k], k));
			w->wr.atomic.rkey = S.peer.abuf_rkey;
			w->wr.atomic.compare_add = cmp;
			w->wr.atomic.swap = arg;
		} else {
			if (d[k].multi_r && cap >= 2)
				nsge = 2 + d[k].lay_seed % (cap - 1);
			make_layout(&lo[k], k * stride, stride, ph->size, nsge,
				    0, d[k].lay_seed ^ 0x5245510aull);
			mc.what = ph->op == OP_READ ? "READ destination" :
							 "source";
			if (ph->op == OP_READ) {
				fill_canary(S.sbuf, lo[k].start, lo[k].end);
			} else {
				uint8_t *e = S.ebuf + k * stride;

				gen_data(d[k].data_seed, e, ph->size);
				fill_junk(S.sbuf, lo[k].start, lo[k].end);
				copy_in(S.sbuf, &lo[k], e);
				maybe_corrupt(S.sbuf, &lo[k], e, ph->size, &mc);
			}
			for (unsigned j = 0; j < lo[k].n; j++)
				sge[k][j] = (struct ibv_sge){
					.addr = (uintptr_t)(S.sbuf + lo[k].off[j]),
					.length = lo[k].len[j],
					.lkey = S.smr->lkey };
			w->num_sge = (int)lo[k].n;
			if (ph->op != OP_READ && d[k].inl && ph->size &&
			    ph->size <= S.max_inline)
				w->send_flags |= IBV_SEND_INLINE;
			w->wr.rdma.remote_addr = S.peer.rbuf_addr +
				k * stride + CANARY + d[k].misalign;
			w->wr.rdma.rkey = S.peer.rbuf_rkey;
			switch (ph->op) {
			case OP_SEND: w->opcode = IBV_WR_SEND; break;
			case OP_SEND_IMM: w->opcode = IBV_WR_SEND_WITH_IMM; break;
			case OP_WRITE: w->opcode = IBV_WR_RDMA_WRITE; break;
			case OP_WRITE_IMM:
				w->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
				break;
			default: w->opcode = IBV_WR_RDMA_READ; break;
			}
			if (op_imm(ph->op))
				w->imm_data = htonl(d[k].imm);
		}
		if (tail[q])
			tail[q]->next = w;
		else
			head[q] = w;
		tail[q] = w;
	}

	ctl_recv(&c, CTL_READY);
	for (uint32_t q = 0; q < O.nqp; q++) {
		struct ibv_send_wr *bad = NULL;
		int rc;

		if (!head[q])
			continue;
		rc = ibv_post_send(S.qp[q], head[q], &bad);
		if (rc)
			fail("ibv_post_send (op=%s size=%" PRIu64 " qp %u): %s, bad wr slot %d",
			     op_name[ph->op], ph->size, q, strerror(rc),
			     bad ? (int)(bad->wr_id & 0xfffff) : -1);
	}
	/* A failed post ends the run above, never in a reuse: all n are out. */
	S.sq_posted += n;
	got = wait_cq(S.scq, S.sch, (int)n, wc, "send");
	check_wcs(ph, base, wc, got, (int)n, false, d);

	for (uint32_t k = 0; k < n; k++) {
		struct mctx mc = { ph, base + k, k % O.nqp, "source" };

		if (op_atomic(ph->op)) {
			uint64_t v;

			memcpy(&v, S.aret + 8 * k, 8);
			if (v != ret_want[k])
				fail("ATOMIC MISMATCH op=%s pass=%u msg=%u qp=%u requester=%s: word %u returned 0x%016" PRIx64 ", expected original value 0x%016" PRIx64,
				     op_name[ph->op], ph->pass, base + k,
				     k % O.nqp, req_name(ph),
				     atom_word(&d[k], k), v, ret_want[k]);
			continue;
		}
		if (ph->op == OP_READ) {
			uint8_t *e = S.ebuf + k * stride;

			mc.what = "READ destination";
			gen_data(d[k].data_seed, e, ph->size);
			check_layout(S.sbuf, &lo[k], e, true, &mc);
		} else {
			mc.what = "requester's source buffer (changed by the send)";
			check_layout(S.sbuf, &lo[k], S.ebuf + k * stride,
				     false, &mc);
		}
		csum = fnv_layout(csum, S.sbuf, &lo[k]);
	}
	if (op_atomic(ph->op))
		csum = atom_hash_model();

	ctl_simple(CTL_DONE, csum, n);
	ctl_recv(&c, CTL_RESULT);
	if (c.v[0] != csum)
		fail("CHECKSUM op=%s size=%" PRIu64 " pass=%u msgs %u..%u requester=%s: peer's 0x%016" PRIx64 " != mine 0x%016" PRIx64,
		     op_name[ph->op], ph->size, ph->pass, base, base + n - 1,
		     req_name(ph), c.v[0], csum);
}

static void responder_round(const struct phase *ph, uint32_t base,
			    uint32_t n, struct mdesc *d)
{
	static struct ibv_recv_wr wr[QDEPTH * MAX_QP];
	static struct ibv_sge sge[QDEPTH * MAX_QP][MAX_SGE];
	static struct layout lo[QDEPTH * MAX_QP];
	static struct ibv_wc wc[QDEPTH * MAX_QP];
	struct ibv_recv_wr *head[MAX_QP] = { 0 }, *tail[MAX_QP] = { 0 };
	size_t stride = op_atomic(ph->op) ? 0 : stride_of(ph->size);
	uint64_t csum = FNV_INIT;
	struct ctl c;

	for (uint32_t k = 0; k < n; k++) {
		struct mctx mc = { ph, base + k, k % O.nqp, "READ source" };
		struct ibv_recv_wr *w = &wr[k];
		uint32_t q = k % O.nqp;

		msg_desc(ph, base + k, &d[k]);
		if (op_atomic(ph->op)) {
			uint64_t cmp, arg;

			atom_apply(ph, &d[k], k, &cmp, &arg);
			continue;
		}
		if (op_send(ph->op)) {
			unsigned nsge = 1;

			if (d[k].multi_p && S.recv_sge >= 2)
				nsge = 2 + d[k].lay_seed % (S.recv_sge - 1);
			make_layout(&lo[k], k * stride, stride, ph->size, nsge,
				    d[k].extra, d[k].lay_seed ^ 0x52435600ull);
		} else {
			contig_layout(&lo[k], k * stride, stride, ph->size,
				      d[k].misalign);
		}
		fill_canary(S.rbuf, lo[k].start, lo[k].end);
		if (ph->op == OP_READ) {
			uint8_t *e = S.ebuf + k * stride;

			gen_data(d[k].data_seed, e, ph->size);
			copy_in(S.rbuf, &lo[k], e);
			maybe_corrupt(S.rbuf, &lo[k], e, ph->size, &mc);
		}
		if (!op_recv(ph->op))
			continue;
		memset(w, 0, sizeof(*w));
		w->wr_id = wr_id_of(k);
		w->sg_list = sge[k];
		if (op_send(ph->op)) {
			for (unsigned j = 0; j < lo[k].n; j++)
				sge[k][j] = (struct ibv_sge){
					.addr = (uintptr_t)(S.rbuf + lo[k].off[j]),
					.length = lo[k].len[j],
					.lkey = S.rmr->lkey };
			w->num_sge = (int)lo[k].n;
		} else if (d[k].recv_buf) {
			/* WRITE_IMM: a receive buffer that must stay untouched */
			fill_canary(S.sbuf, k * stride, k * stride + 2 * CANARY);
			sge[k][0] = (struct ibv_sge){
				.addr = (uintptr_t)(S.sbuf + k * stride + CANARY),
				.length = CANARY, .lkey = S.smr->lkey };
			w->num_sge = 1;
		}
		if (tail[q])
			tail[q]->next = w;
		else
			head[q] = w;
		tail[q] = w;
	}
	for (uint32_t q = 0; q < O.nqp; q++) {
		struct ibv_recv_wr *bad = NULL;
		int rc;

		if (!head[q])
			continue;
		rc = ibv_post_recv(S.qp[q], head[q], &bad);
		if (rc)
			fail("ibv_post_recv (op=%s size=%" PRIu64 " qp %u): %s",
			     op_name[ph->op], ph->size, q, strerror(rc));
	}
	if (op_recv(ph->op))
		S.rq_posted += n;

	ctl_simple(CTL_READY, 0, n);
	ctl_recv(&c, CTL_DONE);

	if (op_recv(ph->op)) {
		int got = wait_cq(S.rcq, S.rch, (int)n, wc, "receive");

		check_wcs(ph, base, wc, got, (int)n, true, d);
	}
	if (op_atomic(ph->op)) {
		struct layout alo = { .start = 0, .end = S.abuf_len, .n = 1,
				      .off = { CANARY },
				      .dlen = { 8 * atom_words() } };
		struct mctx mc = { ph, base, 0, "atomic words" };

		for (uint32_t w = 0; w < atom_words(); w++) {
			uint64_t v;

			memcpy(&v, S.abuf + atom_off(w), 8);
			if (v != atom_model[w])
				fail("ATOMIC MISMATCH op=%s pass=%u msgs %u..%u requester=%s: word %u holds 0x%016" PRIx64 ", expected 0x%016" PRIx64,
				     op_name[ph->op], ph->pass, base,
				     base + n - 1, req_name(ph), w, v,
				     atom_model[w]);
		}
		check_layout(S.abuf, &alo, (const uint8_t *)atom_model, true,
			     &mc);
		csum = atom_hash_model();
	} else {
		for (uint32_t k = 0; k < n; k++) {
			struct mctx mc = { ph, base + k, k % O.nqp, "" };
			uint8_t *e = S.ebuf + k * stride;

			if (ph->op == OP_READ) {
				mc.what = "READ source (changed by the read)";
			} else {
				mc.what = op_send(ph->op) ? "receive buffer" :
							    "WRITE target";
				gen_data(d[k].data_seed, e, ph->size);
			}
			check_layout(S.rbuf, &lo[k], e, true, &mc);
			if (ph->op == OP_WRITE_IMM && d[k].recv_buf) {
				struct layout rl = { .start = k * stride,
					.end = k * stride + 2 * CANARY };

				mc.what = "WRITE_IMM receive buffer (must stay untouched)";
				check_canary(S.sbuf, &rl, rl.start, rl.end, &mc);
			}
			csum = fnv_layout(csum, S.rbuf, &lo[k]);
		}
	}
	if (c.v[0] != csum)
		fail("CHECKSUM op=%s size=%" PRIu64 " pass=%u msgs %u..%u requester=%s: peer's 0x%016" PRIx64 " != mine 0x%016" PRIx64,
		     op_name[ph->op], ph->size, ph->pass, base, base + n - 1,
		     req_name(ph), c.v[0], csum);
	ctl_simple(CTL_RESULT, csum, n);
}

static void do_phase(const struct phase *ph)
{
	static struct mdesc d[QDEPTH * MAX_QP];
	bool requester = (ph->dir == 0) == S.server;
	double t = now_s();

	if (op_atomic(ph->op))
		atom_phase_init(ph, !requester);
	for (uint32_t done = 0; done < ph->iters;) {
		uint32_t n = round_width(ph, ph->iters - done);

		S.round_seq = (S.round_seq + 1) & 0xfffffff;
		if (requester)
			requester_round(ph, done, n, d);
		else
			responder_round(ph, done, n, d);
		done += n;
		S.rounds++;
	}
	S.msgs[ph->op] += ph->iters;
	S.bytes[ph->op] += ph->iters * ph->size;
	S.phases++;
	S.dirs_run |= 1u << ph->dir;
	vsay("pass %u requester=%s %-9s size %-8" PRIu64 " x%-4u ok (%.2f s)",
	     ph->pass, req_name(ph), op_name[ph->op], ph->size, ph->iters,
	     now_s() - t);
}

/* ------------------------------------------------------------------ */
/* Set-up                                                             */

static int mtu_enum(int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return -1;
	}
}

static int mtu_bytes(enum ibv_mtu m) { return 128 << m; }

static uint64_t parse_num(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		setup_error("bad %s '%s'", what, s);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		setup_error("bad %s '%s'", what, s);
	return v;
}

/* Resolve the size list (tokens: N[kKmM], mtu, mtu+N, mtu-N). */
static int resolve_sizes(const char *spec, int mtu, uint64_t *out,
			 bool bound, char *err, size_t errlen)
{
	char buf[SPEC_LEN], *save = NULL, *tok;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		long long v;
		char *end;

		if (!strncasecmp(tok, "mtu", 3)) {
			v = mtu;
			if (tok[3]) {
				long long dv = strtoll(tok + 3, &end, 10);

				if ((tok[3] != '+' && tok[3] != '-') || *end) {
					snprintf(err, errlen, "bad size '%s'", tok);
					return -1;
				}
				v += dv;
			}
		} else {
			errno = 0;
			v = strtoll(tok, &end, 0);
			if (*end == 'k' || *end == 'K') { v <<= 10; end++; }
			else if (*end == 'm' || *end == 'M') { v <<= 20; end++; }
			if (errno || end == tok || *end) {
				snprintf(err, errlen, "bad size '%s'", tok);
				return -1;
			}
		}
		if (v < 0 || v > (1ll << 31)) {
			snprintf(err, errlen, "size '%s' out of range", tok);
			return -1;
		}
		if (bound && (uint64_t)v > O.max_size)
			continue;
		if (n == MAX_SIZES) {
			snprintf(err, errlen, "more than %d sizes", MAX_SIZES);
			return -1;
		}
		out[n++] = (uint64_t)v;
	}
	/* sort, unique */
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++)
			if (out[b] < out[a]) {
				uint64_t t = out[a];

				out[a] = out[b];
				out[b] = t;
			}
	int m = 0;

	for (int a = 0; a < n; a++)
		if (!m || out[m - 1] != out[a])
			out[m++] = out[a];
	if (!m) {
		snprintf(err, errlen, "no message size left (sizes '%s', max %" PRIu64 ")",
			 spec, O.max_size);
		return -1;
	}
	return m;
}

static uint32_t parse_ops(const char *s)
{
	char buf[256], *save = NULL, *tok;
	uint32_t mask = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i;

		if (!strcmp(tok, "all")) {
			mask |= OPS_ALL;
			continue;
		}
		if (!strcmp(tok, "atomic")) {
			mask |= OPS_ATOMIC;
			continue;
		}
		for (i = 0; i < OP_COUNT; i++)
			if (!strcmp(tok, op_name[i]))
				break;
		if (i == OP_COUNT)
			setup_error("unknown op '%s' (send,send_imm,write,write_imm,read,cas,fadd,atomic,all)",
				    tok);
		mask |= 1u << i;
	}
	if (!mask)
		setup_error("--ops: empty list");
	return mask;
}

static void open_device(void)
{
	struct ibv_device **list;
	int num, i;

	list = ibv_get_device_list(&num);
	if (!list || !num)
		setup_error("no RDMA devices (is the driver loaded, a link added?)");
	for (i = 0; i < num; i++)
		if (!O.dev || !strcmp(ibv_get_device_name(list[i]), O.dev))
			break;
	if (i == num)
		setup_error("RDMA device %s not found", O.dev);
	S.ctx = ibv_open_device(list[i]);
	if (!S.ctx)
		setup_error("ibv_open_device(%s) failed",
			    ibv_get_device_name(list[i]));
	if (!O.dev)
		O.dev = strdup(ibv_get_device_name(list[i]));
	ibv_free_device_list(list);
	if (ibv_query_device(S.ctx, &S.dattr))
		setup_error("ibv_query_device failed");
	if (ibv_query_port(S.ctx, (uint8_t)O.ib_port, &S.pattr))
		setup_error("ibv_query_port(%d) failed", O.ib_port);
	if (S.pattr.state != IBV_PORT_ACTIVE)
		setup_error("%s port %d is not ACTIVE (state %d)", O.dev,
			    O.ib_port, S.pattr.state);

	S.gid_idx = O.gid_idx;
	if (S.gid_idx < 0 && S.pattr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		/* Prefer the RoCEv2 GID of an IPv4 address, then any RoCEv2. */
		int v2 = -1;

		for (int g = 0; g < S.pattr.gid_tbl_len; g++) {
			struct ibv_gid_entry e;

			if (ibv_query_gid_ex(S.ctx, O.ib_port, g, &e, 0))
				continue;
			if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
				continue;
			if (v2 < 0)
				v2 = g;
			if (!memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {
				v2 = g;
				break;
			}
		}
		S.gid_idx = v2 >= 0 ? v2 : 0;
	}
	if (S.gid_idx >= 0) {
		if (ibv_query_gid(S.ctx, (uint8_t)O.ib_port, S.gid_idx, &S.gid))
			setup_error("ibv_query_gid(%d) failed", S.gid_idx);
	}
}

/* A random starting PSN: a reused QP starts elsewhere in the PSN space. */
static uint32_t new_psn(void)
{
	uint32_t rnd;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint32_t)(now_s() * 1e6) ^ (uint32_t)getpid();
	return rnd & 0xffffff;
}

/* RESET -> INIT with the access every opcode needs. 0 or an errno. */
static int qp_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0,
		.port_num = (uint8_t)O.ib_port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void create_qps(void)
{
	int cqe = QDEPTH * (int)O.nqp + 8;

	S.pd = ibv_alloc_pd(S.ctx);
	if (!S.pd)
		setup_error("ibv_alloc_pd failed");
	S.sch = ibv_create_comp_channel(S.ctx);
	S.rch = ibv_create_comp_channel(S.ctx);
	if (!S.sch || !S.rch)
		setup_error("ibv_create_comp_channel failed");
	fcntl(S.sch->fd, F_SETFL, fcntl(S.sch->fd, F_GETFL) | O_NONBLOCK);
	fcntl(S.rch->fd, F_SETFL, fcntl(S.rch->fd, F_GETFL) | O_NONBLOCK);
	if (cqe > S.dattr.max_cqe)
		cqe = S.dattr.max_cqe;
	S.scq = ibv_create_cq(S.ctx, cqe, NULL, S.sch, 0);
	S.rcq = ibv_create_cq(S.ctx, cqe, NULL, S.rch, 0);
	if (!S.scq || !S.rcq)
		setup_error("ibv_create_cq(%d) failed", cqe);

	for (uint32_t q = 0; q < O.nqp; q++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = S.scq, .recv_cq = S.rcq,
			.qp_type = IBV_QPT_RC, .sq_sig_all = 0,
			.cap = {
				.max_send_wr = QDEPTH, .max_recv_wr = QDEPTH,
				.max_send_sge = MAX_SGE, .max_recv_sge = MAX_SGE,
				.max_inline_data = INLINE_WANT,
			},
		};

		if ((int)ia.cap.max_send_sge > S.dattr.max_sge)
			ia.cap.max_send_sge = ia.cap.max_recv_sge = S.dattr.max_sge;
		S.qp[q] = ibv_create_qp(S.pd, &ia);
		if (!S.qp[q]) {
			ia.cap.max_inline_data = 0;
			S.qp[q] = ibv_create_qp(S.pd, &ia);
		}
		if (!S.qp[q])
			setup_error("ibv_create_qp(RC) failed: %s", strerror(errno));
		if (q == 0) {
			S.send_sge = ia.cap.max_send_sge < MAX_SGE ?
				ia.cap.max_send_sge : MAX_SGE;
			S.recv_sge = ia.cap.max_recv_sge < MAX_SGE ?
				ia.cap.max_recv_sge : MAX_SGE;
			S.read_sge = S.send_sge;
			if (S.dattr.max_sge_rd > 0 &&
			    (uint32_t)S.dattr.max_sge_rd < S.read_sge)
				S.read_sge = S.dattr.max_sge_rd;
			S.max_inline = ia.cap.max_inline_data;
		}
		S.psn[q] = new_psn();
		if (qp_to_init(S.qp[q]))
			setup_error("modify QP to INIT failed");
	}
}

static void connect_qps(void)
{
	uint32_t rd = S.dattr.max_qp_rd_atom, ird = S.dattr.max_qp_init_rd_atom;
	uint32_t out_rd = ird < S.peer.rd_atom ? ird : S.peer.rd_atom;
	uint32_t in_rd = rd < S.peer.init_rd_atom ? rd : S.peer.init_rd_atom;

	if (out_rd > 16)
		out_rd = 16;
	if (in_rd > 16)
		in_rd = 16;
	if (!out_rd)
		out_rd = 1;
	if (!in_rd)
		in_rd = 1;
	for (uint32_t q = 0; q < O.nqp; q++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = S.mtu,
			.dest_qp_num = S.peer.qpn[q],
			.rq_psn = S.peer.psn[q],
			.max_dest_rd_atomic = (uint8_t)in_rd,
			.min_rnr_timer = 12,
			.ah_attr = {
				.is_global = 0,
				.dlid = (uint16_t)S.peer.lid,
				.sl = 0,
				.src_path_bits = 0,
				.port_num = (uint8_t)O.ib_port,
			},
		};
		if (S.gid_idx >= 0) {
			a.ah_attr.is_global = 1;
			a.ah_attr.grh.dgid = S.peer.gid;
			a.ah_attr.grh.sgid_index = (uint8_t)S.gid_idx;
			a.ah_attr.grh.hop_limit = 64;
		}
		if (ibv_modify_qp(S.qp[q], &a, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
			fail("modify QP %u to RTR failed: %s", q, strerror(errno));
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = (uint8_t)O.timeout;
		a.retry_cnt = (uint8_t)O.retry;
		a.rnr_retry = (uint8_t)O.rnr_retry;
		a.sq_psn = S.psn[q];
		a.max_rd_atomic = (uint8_t)out_rd;
		if (ibv_modify_qp(S.qp[q], &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
			fail("modify QP %u to RTS failed: %s", q, strerror(errno));
	}
}

static void tcp_connect(void)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	double deadline = now_s() + O.connect_timeout;
	int one = 1, last = 0;

	if (O.server) {
		for (;;) {
			struct addrinfo *res, *ai;
			int rc = getaddrinfo(O.server, O.tcp_port, &hints, &res);

			if (rc)
				setup_error("%s: %s", O.server, gai_strerror(rc));
			for (ai = res; ai; ai = ai->ai_next) {
				int fd = socket(ai->ai_family, ai->ai_socktype,
						ai->ai_protocol);

				if (fd < 0)
					continue;
				if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
					S.sock = fd;
					break;
				}
				last = errno;
				close(fd);
			}
			freeaddrinfo(res);
			if (S.sock >= 0)
				break;
			if (now_s() >= deadline)
				setup_error("could not connect to %s port %s within %d s: %s",
					    O.server, O.tcp_port,
					    O.connect_timeout, strerror(last));
			usleep(200000);
		}
	} else {
		int lfd = -1, rc;
		char *end;
		long port = strtol(O.tcp_port, &end, 10);

		if (*end || port <= 0 || port > 65535)
			setup_error("bad TCP port '%s'", O.tcp_port);
		/* Dual-stack: IPv6 any with V6ONLY off, else IPv4 any. */
		lfd = socket(AF_INET6, SOCK_STREAM, 0);
		if (lfd >= 0) {
			struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				.sin6_port = htons((uint16_t)port),
				.sin6_addr = IN6ADDR_ANY_INIT };
			int zero = 0;

			setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (bind(lfd, (struct sockaddr *)&a6, sizeof(a6)) ||
			    listen(lfd, 1)) {
				close(lfd);
				lfd = -1;
			}
		}
		if (lfd < 0) {
			struct sockaddr_in a4 = { .sin_family = AF_INET,
				.sin_port = htons((uint16_t)port),
				.sin_addr = { htonl(INADDR_ANY) } };

			lfd = socket(AF_INET, SOCK_STREAM, 0);
			if (lfd < 0)
				setup_error("socket: %s", strerror(errno));
			setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (bind(lfd, (struct sockaddr *)&a4, sizeof(a4)) ||
			    listen(lfd, 1))
				setup_error("cannot listen on TCP port %s: %s",
					    O.tcp_port, strerror(errno));
		}
		vsay("listening on TCP port %s", O.tcp_port);
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };

		rc = poll(&pfd, 1, O.connect_timeout * 1000);
		if (rc <= 0)
			setup_error("no client within %d s", O.connect_timeout);
		S.sock = accept(lfd, NULL, NULL);
		if (S.sock < 0)
			setup_error("accept: %s", strerror(errno));
		close(lfd);
	}
	setsockopt(S.sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Send len bytes and read as many from the peer. 0 or -errno. */
static int swap_blocks(const void *mine, void *theirs, size_t len, int tmo)
{
	int rc = sock_write(mine, len, tmo);

	return rc ? rc : sock_read(theirs, len, tmo);
}

static void exchange(void *mine, void *theirs, size_t len, const char *what)
{
	int rc = swap_blocks(mine, theirs, len, O.connect_timeout);

	if (rc)
		setup_error("%s exchange with the peer failed: %s", what,
			    rc == -EPIPE ? "connection closed" : strerror(-rc));
}

static void handshake(void)
{
	uint8_t mine[HELLO_LEN] = { 0 }, theirs[HELLO_LEN], *p = mine;
	const uint8_t *r = theirs;
	char pspec[SPEC_LEN], err[160];
	uint32_t p_nqp, p_iters, p_ops, p_time, p_seed_set, p_ops_expl;
	uint32_t p_atomic_ok, p_sizes_expl, p_reuse;
	uint64_t p_max, p_pb, p_seed;
	uint32_t atomic_ok = S.dattr.atomic_cap != IBV_ATOMIC_NONE;
	int want_mtu = S.pattr.active_mtu;

	if (O.mtu) {
		want_mtu = mtu_enum(O.mtu);
		if (want_mtu > (int)S.pattr.active_mtu)
			say("note: --mtu %d exceeds the port's active MTU %d",
			    O.mtu, mtu_bytes(S.pattr.active_mtu));
	}
	memcpy(p, MAGIC, 8);
	p += 8;
	put32(&p, PROTO_VERSION);
	put32(&p, O.nqp);
	put32(&p, O.iters);
	put32(&p, O.ops_mask);
	put32(&p, O.ops_explicit);
	put32(&p, atomic_ok);
	put32(&p, O.time_s);
	put64(&p, O.max_size);
	put64(&p, O.phase_bytes);
	put64(&p, O.seed);
	put32(&p, O.seed_set);
	put32(&p, (uint32_t)want_mtu);
	put32(&p, S.pattr.lid);
	memcpy(p, S.gid.raw, 16);
	p += 16;
	put32(&p, (uint32_t)S.dattr.max_qp_rd_atom);
	put32(&p, (uint32_t)S.dattr.max_qp_init_rd_atom);
	for (int q = 0; q < MAX_QP; q++)
		put32(&p, q < (int)O.nqp ? S.qp[q]->qp_num : 0);
	for (int q = 0; q < MAX_QP; q++)
		put32(&p, q < (int)O.nqp ? S.psn[q] : 0);
	put32(&p, O.sizes_explicit);
	snprintf((char *)p, SPEC_LEN, "%s", O.sizes_spec);
	p += SPEC_LEN;
	put32(&p, O.reuse);

	exchange(mine, theirs, HELLO_LEN, "parameter");

	if (memcmp(r, MAGIC, 8))
		setup_error("the peer is not mr-verify (bad magic)");
	r += 8;
	if (get32(&r) != PROTO_VERSION)
		setup_error("the peer speaks another mr-verify protocol version");
	p_nqp = get32(&r);
	p_iters = get32(&r);
	p_ops = get32(&r);
	p_ops_expl = get32(&r);
	p_atomic_ok = get32(&r);
	p_time = get32(&r);
	p_max = get64(&r);
	p_pb = get64(&r);
	p_seed = get64(&r);
	p_seed_set = get32(&r);
	S.peer.mtu = get32(&r);
	S.peer.lid = get32(&r);
	memcpy(S.peer.gid.raw, r, 16);
	r += 16;
	S.peer.rd_atom = get32(&r);
	S.peer.init_rd_atom = get32(&r);
	for (int q = 0; q < MAX_QP; q++)
		S.peer.qpn[q] = get32(&r);
	for (int q = 0; q < MAX_QP; q++)
		S.peer.psn[q] = get32(&r);
	p_sizes_expl = get32(&r);
	memcpy(pspec, r, SPEC_LEN);
	pspec[SPEC_LEN - 1] = 0;
	r += SPEC_LEN;
	p_reuse = get32(&r);

#define SAME(mine_, theirs_, opt)						\
	do {								\
		if ((uint64_t)(mine_) != (uint64_t)(theirs_))		\
			setup_error("option mismatch with the peer: %s is %" PRIu64 " here, %" PRIu64 " there", \
				    opt, (uint64_t)(mine_), (uint64_t)(theirs_)); \
	} while (0)
	SAME(O.nqp, p_nqp, "-q");
	SAME(O.iters, p_iters, "-n");
	SAME(O.ops_mask, p_ops, "--ops (mask)");
	SAME(O.time_s, p_time, "--time");
	SAME(O.phase_bytes, p_pb, "--phase-bytes");
	SAME(O.max_size, p_max, "--max-size");
	SAME(O.sizes_explicit, p_sizes_expl, "-s given");
	/* Both sides reset their QPs after the error, or neither. */
	SAME(O.reuse, p_reuse, "--reuse-after-error");
	if (strcmp(pspec, O.sizes_spec))
		setup_error("option mismatch with the peer: -s is '%s' here, '%s' there",
			    O.sizes_spec, pspec);
	if (O.seed_set && p_seed_set && O.seed != p_seed)
		setup_error("option mismatch with the peer: --seed %" PRIu64 " here, %" PRIu64 " there",
			    O.seed, p_seed);
	/* One seed for both: an explicit one, else the server's. */
	if (!O.seed_set && (p_seed_set || !S.server))
		O.seed = p_seed;

	S.ops = O.ops_mask;
	S.ops_avail = OPS_ALL;
	if (!atomic_ok || !p_atomic_ok) {
		S.ops_avail &= ~OPS_ATOMIC;
		if ((O.ops_mask & OPS_ATOMIC) && (O.ops_explicit || p_ops_expl))
			setup_error("atomics requested but %s device does not support them",
				    atomic_ok ? "the peer's" : "this");
		if (S.ops & OPS_ATOMIC)
			say("note: atomics skipped (%s device has atomic_cap NONE)",
			    atomic_ok ? "the peer's" : "this");
		S.ops &= ~OPS_ATOMIC;
	}
	if (!S.ops)
		setup_error("no operation left to test");
	S.mtu = (enum ibv_mtu)(want_mtu < (int)S.peer.mtu ? want_mtu : (int)S.peer.mtu);

	S.nsizes = resolve_sizes(O.sizes_spec, mtu_bytes(S.mtu), S.sizes,
				 !O.sizes_explicit, err, sizeof(err));
	if (S.nsizes < 0)
		setup_error("%s", err);
	for (int i = 0; i < S.nsizes; i++)
		if (S.sizes[i] > S.dattr.max_mr_size ||
		    S.sizes[i] > S.pattr.max_msg_sz)
			setup_error("size %" PRIu64 " exceeds the device's max_msg_sz %u",
				    S.sizes[i], S.pattr.max_msg_sz);
}

static void *alloc_buf(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len))
		setup_error("out of memory (%zu bytes)", len);
	memset(p, 0, len);
	return p;
}

static void setup_buffers(void)
{
	uint8_t mine[HELLO2_LEN] = { 0 }, theirs[HELLO2_LEN], *p = mine;
	const uint8_t *r = theirs;
	uint64_t maxs = S.sizes[S.nsizes - 1];
	int rw = IBV_ACCESS_LOCAL_WRITE;

	S.bufsize = 4 * stride_of(maxs);
	if (S.bufsize < QDEPTH * O.nqp * stride_of(4096))
		S.bufsize = QDEPTH * O.nqp * stride_of(4096);
	S.bufsize = (S.bufsize + 4095) & ~(size_t)4095;
	S.abuf_len = (2 * CANARY + 8 * atom_words() + 4095) & ~(size_t)4095;
	S.aret_len = 8 * QDEPTH * MAX_QP;
	S.sbuf = alloc_buf(S.bufsize);
	S.rbuf = alloc_buf(S.bufsize);
	S.ebuf = alloc_buf(S.bufsize);
	S.abuf = alloc_buf(S.abuf_len);
	S.aret = alloc_buf(S.aret_len);
	S.smr = ibv_reg_mr(S.pd, S.sbuf, S.bufsize, rw);
	S.rmr = ibv_reg_mr(S.pd, S.rbuf, S.bufsize, rw |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	S.amr = ibv_reg_mr(S.pd, S.abuf, S.abuf_len, rw |
			   IBV_ACCESS_REMOTE_ATOMIC);
	S.retmr = ibv_reg_mr(S.pd, S.aret, S.aret_len, rw);
	if (!S.smr || !S.rmr || !S.amr || !S.retmr)
		setup_error("ibv_reg_mr failed: %s (RLIMIT_MEMLOCK?)",
			    strerror(errno));

	put64(&p, (uintptr_t)S.rbuf);
	put64(&p, S.bufsize);
	put32(&p, S.rmr->rkey);
	put64(&p, (uintptr_t)S.abuf);
	put64(&p, S.abuf_len);
	put32(&p, S.amr->rkey);
	exchange(mine, theirs, HELLO2_LEN, "buffer");
	S.peer.rbuf_addr = get64(&r);
	S.peer.rbuf_len = get64(&r);
	S.peer.rbuf_rkey = get32(&r);
	S.peer.abuf_addr = get64(&r);
	S.peer.abuf_len = get64(&r);
	S.peer.abuf_rkey = get32(&r);
	if (S.peer.rbuf_len != S.bufsize || S.peer.abuf_len != S.abuf_len)
		setup_error("buffer sizes differ from the peer's (%" PRIu64 "/%zu)",
			    S.peer.rbuf_len, S.bufsize);
}

static void print_gid(char *out, size_t len, const union ibv_gid *g)
{
	if (!inet_ntop(AF_INET6, g->raw, out, (socklen_t)len))
		snprintf(out, len, "?");
}

/* ------------------------------------------------------------------ */
/* Main                                                               */

static void usage(FILE *f)
{
	fprintf(f,
"usage: mr-verify [options]            (server)\n"
"       mr-verify [options] SERVER     (client)\n"
"RC data-integrity test over verbs: every opcode, many sizes, both directions,\n"
"every byte checked on both sides. Both sides must be given the same test\n"
"options (-s, -n, --ops, -q, --time, --max-size, --phase-bytes).\n"
"\n"
"  -d, --ib-dev DEV        RDMA device (default: the first)\n"
"  -i, --ib-port PORT      device port (default 1)\n"
"  -g, --gid-idx N         GID index (default: RoCEv2 IPv4 GID on Ethernet)\n"
"  -p, --port PORT         TCP port for set-up and control (default 18777)\n"
"  -s, --sizes LIST        message sizes, comma separated: N[k|m], mtu, mtu+N,\n"
"                          mtu-N (default " DEFAULT_SIZES ",\n"
"                          bounded by --max-size)\n"
"      --max-size BYTES    bound for the default size list (default 1m)\n"
"  -n, --iters N           messages per op and size (default 100)\n"
"      --phase-bytes BYTES at most this many bytes per op and size (default 8m)\n"
"      --ops LIST          send,send_imm,write,write_imm,read,cas,fadd,\n"
"                          atomic, all (default all)\n"
"      --seed N            data seed (default: random, the server's)\n"
"  -t, --time SECONDS      continuous mode: repeat the plan with new data until\n"
"                          the time is up, still checking everything\n"
"  -m, --mtu BYTES         path MTU 256..4096 (default: the port's active MTU)\n"
"  -q, --qps N             QPs, messages spread round-robin (default 1, max %d)\n"
"      --timeout N         QP local ACK timeout, 4.096us*2^N (default 14)\n"
"      --retry N           QP retry_cnt 0..7 (default 7)\n"
"      --rnr-retry N       QP rnr_retry 0..7 (default 7)\n"
"      --expect-error ST   succeed only if the run ends with completion status\n"
"                          ST (e.g. RETRY_EXC_ERR or IBV_WC_RETRY_EXC_ERR)\n"
"      --reuse-after-error (with --expect-error, on both sides) after that\n"
"                          error, move the same QPs through ERR (CQs drained of\n"
"                          the flushed WRs), RESET, INIT, RTR, RTS with new\n"
"                          PSNs and verify one short pass of every opcode on\n"
"                          them (-n at most %d): REUSE: PASS, or exit 1\n"
"      --reuse-hold        with --reuse-after-error: once the QPs are reset,\n"
"                          wait for SIGUSR1 (at most --watchdog s), e.g. for a\n"
"                          test to lift the fault that caused the error\n"
"      --watchdog SECONDS  longest wait for completions (default 60)\n"
"      --connect-timeout S TCP accept/connect retry time (default 60)\n"
"      --busy-poll         poll the CQs instead of waiting for events\n"
"  -v, --verbose           one line per op and size\n"
"      --corrupt-for-test  (testing the tool) flip one byte of the first\n"
"                          message this side sources; the run must fail\n"
"Exit status: 0 verified, 1 mismatch/error/timeout, 2 usage or set-up error.\n",
		MAX_QP, REUSE_ITERS);
}

enum {
	OPT_OPS = 256, OPT_SEED, OPT_TIMEOUT, OPT_RETRY, OPT_RNR, OPT_EXPECT,
	OPT_WATCHDOG, OPT_CONNTMO, OPT_CORRUPT, OPT_BUSY, OPT_MAXSIZE,
	OPT_PHASEB, OPT_REUSE, OPT_REUSE_HOLD,
};

static const struct option long_opts[] = {
	{ "ib-dev", 1, NULL, 'd' }, { "ib-port", 1, NULL, 'i' },
	{ "gid-idx", 1, NULL, 'g' }, { "port", 1, NULL, 'p' },
	{ "sizes", 1, NULL, 's' }, { "iters", 1, NULL, 'n' },
	{ "time", 1, NULL, 't' }, { "mtu", 1, NULL, 'm' },
	{ "qps", 1, NULL, 'q' }, { "verbose", 0, NULL, 'v' },
	{ "help", 0, NULL, 'h' },
	{ "ops", 1, NULL, OPT_OPS }, { "seed", 1, NULL, OPT_SEED },
	{ "timeout", 1, NULL, OPT_TIMEOUT }, { "retry", 1, NULL, OPT_RETRY },
	{ "rnr-retry", 1, NULL, OPT_RNR },
	{ "expect-error", 1, NULL, OPT_EXPECT },
	{ "watchdog", 1, NULL, OPT_WATCHDOG },
	{ "connect-timeout", 1, NULL, OPT_CONNTMO },
	{ "corrupt-for-test", 0, NULL, OPT_CORRUPT },
	{ "busy-poll", 0, NULL, OPT_BUSY },
	{ "max-size", 1, NULL, OPT_MAXSIZE },
	{ "phase-bytes", 1, NULL, OPT_PHASEB },
	{ "reuse-after-error", 0, NULL, OPT_REUSE },
	{ "reuse-hold", 0, NULL, OPT_REUSE_HOLD },
	{ 0 },
};

static long range(const char *s, const char *what, long lo, long hi)
{
	uint64_t v = parse_num(s, what);

	if ((long long)v < lo || (long long)v > hi)
		setup_error("%s %s out of range %ld..%ld", what, s, lo, hi);
	return (long)v;
}

static void parse_args(int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "d:i:g:p:s:n:t:m:q:vh", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'd': O.dev = optarg; break;
		case 'i': O.ib_port = (int)range(optarg, "-i", 1, 255); break;
		case 'g': O.gid_idx = (int)range(optarg, "-g", 0, 255); break;
		case 'p': O.tcp_port = optarg; break;
		case 's': O.sizes_spec = optarg; O.sizes_explicit = true; break;
		case 'n': O.iters = (uint32_t)range(optarg, "-n", 1, 1 << 30); break;
		case 't': O.time_s = (uint32_t)range(optarg, "--time", 1, 1 << 30); break;
		case 'm':
			O.mtu = (int)parse_num(optarg, "--mtu");
			if (mtu_enum(O.mtu) < 0)
				setup_error("--mtu must be 256, 512, 1024, 2048 or 4096");
			break;
		case 'q': O.nqp = (uint32_t)range(optarg, "-q", 1, MAX_QP); break;
		case 'v': O.verbose++; break;
		case 'h': usage(stdout); exit(0);
		case OPT_OPS:
			O.ops_mask = parse_ops(optarg);
			O.ops_explicit = true;
			break;
		case OPT_SEED:
			O.seed = parse_num(optarg, "--seed");
			O.seed_set = true;
			break;
		case OPT_TIMEOUT: O.timeout = (int)range(optarg, "--timeout", 0, 31); break;
		case OPT_RETRY: O.retry = (int)range(optarg, "--retry", 0, 7); break;
		case OPT_RNR: O.rnr_retry = (int)range(optarg, "--rnr-retry", 0, 7); break;
		case OPT_EXPECT:
			O.expect_err = parse_wc_status(optarg);
			if (O.expect_err < 0)
				setup_error("--expect-error: unknown completion status '%s'",
					    optarg);
			break;
		case OPT_WATCHDOG:
			O.watchdog = (int)range(optarg, "--watchdog", 1, 86400);
			break;
		case OPT_CONNTMO:
			O.connect_timeout = (int)range(optarg, "--connect-timeout", 1, 86400);
			break;
		case OPT_CORRUPT: O.corrupt = 1; break;
		case OPT_BUSY: O.busy_poll = true; break;
		case OPT_MAXSIZE:
			O.max_size = parse_num(optarg, "--max-size");
			break;
		case OPT_PHASEB:
			O.phase_bytes = parse_num(optarg, "--phase-bytes");
			if (!O.phase_bytes)
				setup_error("--phase-bytes must be > 0");
			break;
		case OPT_REUSE: O.reuse = true; break;
		case OPT_REUSE_HOLD: O.reuse_hold = true; break;
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind + 1 < argc) {
		usage(stderr);
		exit(2);
	}
	if (optind < argc)
		O.server = argv[optind];
	S.server = !O.server;
	S.role = S.server ? "server" : "client";
	if (O.reuse && O.expect_err < 0)
		setup_error("--reuse-after-error needs --expect-error (the error to reuse the QPs after)");
	if (O.reuse_hold && !O.reuse)
		setup_error("--reuse-hold needs --reuse-after-error");
	if (strlen(O.sizes_spec) >= SPEC_LEN)
		setup_error("-s list too long");
	{
		uint64_t tmp[MAX_SIZES];
		char err[160];

		if (resolve_sizes(O.sizes_spec, 1024, tmp, false, err,
				  sizeof(err)) < 0)
			setup_error("-s: %s", err);
	}
	if (!O.seed_set && S.server) {
		if (getrandom(&O.seed, sizeof(O.seed), 0) != sizeof(O.seed))
			O.seed = (uint64_t)(now_s() * 1e9) ^ (uint64_t)getpid();
		O.seed &= 0xffffffffffffull;	/* short enough to retype */
	}
}

/* The totals of the run, after tag ("PASS:", or "REUSE: PASS"). */
static void summary(const char *tag)
{
	uint64_t msgs = 0, bytes = 0, atom = 0;
	char ops[128] = "";
	double t = elapsed_s();
	size_t o = 0;

	for (int i = 0; i < OP_COUNT; i++) {
		if (!(S.ops & (1u << i)))
			continue;
		o += snprintf(ops + o, sizeof(ops) - o, "%s%s", o ? "," : "",
			      op_name[i]);
		msgs += S.msgs[i];
		if (op_atomic(i))
			atom += S.msgs[i];
		else
			bytes += S.bytes[i];
	}
	say("%s ops=%s sizes=%d dirs=%d passes=%" PRIu64 " phases=%" PRIu64 " msgs=%" PRIu64 " (atomics %" PRIu64 ") bytes=%" PRIu64 " verified both sides, %.1f s, %.2f MB/s",
	    tag, ops, S.nsizes, __builtin_popcount(S.dirs_run), S.passes, S.phases,
	    msgs, atom, bytes, t,
	    t > 0 ? bytes / t / 1e6 : 0.0);
}

/* Both sides' QPs are RTS before either sends. */
static void sync_peer(void)
{
	struct ctl c;

	ctl_simple(CTL_SYNC, 0, 0);
	ctl_recv(&c, CTL_SYNC);
	clock_gettime(CLOCK_MONOTONIC, &S.t0);
}

/* Every phase of the plan, the server pacing the client. */
static void run_plan(void)
{
	struct phase ph = { .op = OP_COUNT };

	for (;;) {
		bool have = next_phase(&ph);
		struct ctl c;

		if (S.server) {
			bool stop = !have ||
				    (O.time_s && elapsed_s() >= O.time_s);
			struct ctl pc = { .type = CTL_PHASE,
					  .v = { stop, ph.pass,
						 (uint64_t)ph.dir << 32 | ph.op,
						 ph.size } };
			int rc = ctl_send(&pc);

			if (rc)
				fail("control channel: sending PHASE: %s",
				     strerror(-rc));
			if (stop)
				break;
		} else {
			ctl_recv(&c, CTL_PHASE);
			if (c.v[0])
				break;
			if (!have || c.v[1] != ph.pass ||
			    c.v[2] != ((uint64_t)ph.dir << 32 | ph.op) ||
			    c.v[3] != ph.size)
				fail("plan out of step with the server (phase pass %" PRIu64 " op %" PRIu64 " size %" PRIu64 " there)",
				     c.v[1], c.v[2] & 0xff, c.v[3]);
		}
		if (ph.pass + 1 > S.passes)
			S.passes = ph.pass + 1;
		do_phase(&ph);
	}
}

/* ------------------------------------------------------------------ */
/* Reuse after the expected error                                     */

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static const char *qp_state_name(enum ibv_qp_state st)
{
	static const char *const n[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return (unsigned)st < sizeof(n) / sizeof(n[0]) ? n[st] : "?";
}

/* Move every QP to st (RESET and ERR are allowed from any state). */
static void qps_to(enum ibv_qp_state st)
{
	for (uint32_t q = 0; q < O.nqp; q++) {
		struct ibv_qp_attr a = { .qp_state = st };
		int rc = ibv_modify_qp(S.qp[q], &a, IBV_QP_STATE);

		if (rc)
			fail("REUSE: modify QP %u (0x%x) to %s failed: %s", q,
			     S.qp[q]->qp_num, qp_state_name(st), strerror(rc));
	}
}

/* The QPs' states as the device reports them, for the log. */
static void qp_states(char *out, size_t len)
{
	size_t o = 0;

	out[0] = 0;
	for (uint32_t q = 0; q < O.nqp && o < len; q++) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		const char *st = "?";

		if (!ibv_query_qp(S.qp[q], &a, IBV_QP_STATE, &ia))
			st = qp_state_name(a.qp_state);
		o += snprintf(out + o, len - o, "%s%s", q ? "," : "", st);
	}
}

/* What the drain took off the CQs, for the log. */
struct drained {
	uint32_t n, ok, flushed;
};

/*
 * After the move to ERR every WR still posted comes back, flushed (IB spec
 * 10.3.1). Take them all off the CQ, so that nothing of the QPs' first life
 * shows up in their second. Some may have succeeded: a message that arrived
 * but whose ACK the fault lost completes at the responder only.
 */
static void drain_cq(struct ibv_cq *cq, const char *what, struct drained *dr)
{
	uint32_t *posted = cq == S.scq ? &S.sq_posted : &S.rq_posted;
	double deadline = now_s() + O.watchdog;
	struct ibv_wc wc[QDEPTH];

	while (*posted) {
		int k = poll_counted(cq, QDEPTH, wc, what);

		for (int i = 0; i < k; i++) {
			dr->ok += wc[i].status == IBV_WC_SUCCESS;
			dr->flushed += wc[i].status == IBV_WC_WR_FLUSH_ERR;
		}
		dr->n += (uint32_t)k;
		if (k)
			continue;
		if (now_s() >= deadline)
			fail("REUSE: %u %s WR(s) never completed within %d s of the move to ERR",
			     *posted, what, O.watchdog);
		usleep(1000);
	}
}

/*
 * --reuse-hold: wait for SIGUSR1, so that a test lifts the fault that caused
 * the error before the reused QPs send again. The QPs sit in INIT meanwhile:
 * they neither send nor accept anything.
 */
static void reuse_hold(void)
{
	double deadline = now_s() + O.watchdog;

	say("REUSE: holding for SIGUSR1 (at most %d s)", O.watchdog);
	while (!got_usr1) {
		if (now_s() >= deadline)
			fail("REUSE: no SIGUSR1 within %d s (--reuse-hold)",
			     O.watchdog);
		usleep(20000);
	}
}

/*
 * Meet the peer on the control channel. Before its REUSE the stream may
 * still hold what it sent before it learnt of the error (its own report of
 * the same failure, when both sides saw it): skip that.
 */
static void reuse_sync(void)
{
	struct ctl c;

	ctl_simple(CTL_REUSE, 0, 0);
	for (int skipped = 0;; skipped++) {
		ctl_read(&c, CTL_REUSE);
		if (c.type == CTL_REUSE)
			break;
		if (skipped == 16)
			fail("REUSE: no REUSE from the peer, %d other messages instead",
			     skipped);
		vsay("REUSE: skipped a stale %s from the peer",
		     c.type < CTL_REUSE ? ctl_name[c.type] : "?");
	}
	if (c.fail)
		peer_failed(&c);
}

/*
 * The new starting PSNs, each way. The peer's QPNs must be the ones of the
 * first connection: its QPs were reset, not replaced.
 */
static void reuse_exchange(void)
{
	uint8_t mine[REUSE_LEN] = { 0 }, theirs[REUSE_LEN], *p = mine;
	const uint8_t *r = theirs;
	int rc;

	memcpy(p, REUSE_MAGIC, 8);
	p += 8;
	put32(&p, O.nqp);
	for (uint32_t q = 0; q < O.nqp; q++) {
		put32(&p, S.qp[q]->qp_num);
		put32(&p, S.psn[q]);
	}
	rc = swap_blocks(mine, theirs, REUSE_LEN, ctl_tmo());
	if (rc)
		fail("REUSE: PSN exchange with the peer failed: %s",
		     rc == -EPIPE ? "connection closed" : strerror(-rc));
	if (memcmp(r, REUSE_MAGIC, 8))
		fail("REUSE: the peer's PSN message is malformed");
	r += 8;
	if (get32(&r) != O.nqp)
		fail("REUSE: the peer has another QP count");
	for (uint32_t q = 0; q < O.nqp; q++) {
		uint32_t qpn = get32(&r);

		if (qpn != S.peer.qpn[q])
			fail("REUSE: the peer's QP %u is 0x%x, it was 0x%x: not the same QP",
			     q, qpn, S.peer.qpn[q]);
		S.peer.psn[q] = get32(&r);
	}
}

/* A short plan on the reused QPs: one pass, every opcode, new data. */
static void reuse_plan(void)
{
	O.time_s = 0;
	if (O.iters > REUSE_ITERS)
		O.iters = REUSE_ITERS;
	O.seed = mix(O.seed, 0x7265757365ull);
	S.ops = S.ops_avail;
	memset(S.msgs, 0, sizeof(S.msgs));
	memset(S.bytes, 0, sizeof(S.bytes));
	S.rounds = S.phases = S.passes = 0;
	S.dirs_run = 0;
}

/*
 * --reuse-after-error: the run ended with the expected error, seen here or
 * reported by the peer. Both sides bring back their very same QPs on the
 * same PD, MRs and CQs and verify a short pass on them. Never returns.
 */
static void reuse_after_error(void)
{
	struct drained sdr = { 0 }, rdr = { 0 };
	char before[8 * MAX_QP];

	S.reusing = true;
	S.fail_sent = false;	/* a failure from here on is news to the peer */
	S.peer_reported = false;
	O.expect_err = -1;	/* no error completion is good any more */

	/* Through ERR even when still RTS: a reset flushes nothing. */
	qp_states(before, sizeof(before));
	qps_to(IBV_QPS_ERR);
	drain_cq(S.scq, "send", &sdr);
	drain_cq(S.rcq, "receive", &rdr);
	qps_to(IBV_QPS_RESET);
	for (uint32_t q = 0; q < O.nqp; q++) {
		int rc = qp_to_init(S.qp[q]);

		if (rc)
			fail("REUSE: modify QP %u (0x%x) RESET to INIT failed: %s",
			     q, S.qp[q]->qp_num, strerror(rc));
		S.psn[q] = new_psn();
	}
	say("REUSE: %u QP(s) reset (state before: %s), drained %u send and %u receive completion(s): %u flushed, %u successful",
	    O.nqp, before, sdr.n, rdr.n, sdr.flushed + rdr.flushed,
	    sdr.ok + rdr.ok);
	if (O.reuse_hold)
		reuse_hold();
	reuse_sync();
	reuse_exchange();
	connect_qps();
	reuse_plan();
	sync_peer();
	say("REUSE: the same QP(s) RTS again, qpn 0x%x<->0x%x, psn 0x%06x<->0x%06x, seed %" PRIu64,
	    S.qp[0]->qp_num, S.peer.qpn[0], S.psn[0], S.peer.psn[0], O.seed);
	run_plan();
	summary("REUSE: PASS");
	exit(0);
}

int main(int argc, char **argv)
{
	char g[INET6_ADDRSTRLEN], pg[INET6_ADDRSTRLEN], sz[512];
	size_t o = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	parse_args(argc, argv);
	if (O.reuse_hold) {
		/* Installed now: an early signal must not end the run. */
		struct sigaction sa = { .sa_handler = on_usr1,
					.sa_flags = SA_RESTART };

		sigaction(SIGUSR1, &sa, NULL);
	}
	open_device();
	create_qps();
	tcp_connect();
	handshake();
	setup_buffers();
	connect_qps();
	sync_peer();

	print_gid(g, sizeof(g), &S.gid);
	print_gid(pg, sizeof(pg), &S.peer.gid);
	for (int i = 0; i < S.nsizes && o < sizeof(sz) - 24; i++)
		o += snprintf(sz + o, sizeof(sz) - o, "%s%" PRIu64, i ? "," : "",
			      S.sizes[i]);
	say("%s port %d gid[%d] %s <-> %s, %u QP(s) qpn 0x%x<->0x%x, mtu %d, seed %" PRIu64 ", sizes %s, -n %u%s",
	    O.dev, O.ib_port, S.gid_idx, g, pg, O.nqp, S.qp[0]->qp_num,
	    S.peer.qpn[0], mtu_bytes(S.mtu), O.seed, sz, O.iters,
	    O.time_s ? ", continuous" : "");

	run_plan();
	summary("PASS:");
	finish(0, false);
}
