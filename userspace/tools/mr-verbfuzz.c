// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mr-verbfuzz: random verbs from an unprivileged process, for a fixed time,
 * and the proof that the device (kernel module, rdma-core provider, the
 * rings between them) stays sane.
 *
 *   mr-verbfuzz -d mr0 -g GID_INDEX [--seed S] [--time SECONDS]
 *               [--listen | --peer ADDRESS] [--require-unprivileged]
 *
 * Black-box: everything goes through libibverbs (no provider struct is
 * touched; the white-box ring tests are mr-ringtamper's). Each step of the
 * run picks one operation and its arguments at random: open and close a
 * second device context (destroying its objects in a random order first,
 * trying the orders the kernel must refuse); PDs; MRs (registered and
 * reregistered while in use) over valid, edge,
 * overlapping, read-only, shared, unmapped-after-registration, huge and
 * invalid ranges with random access flags and IOVAs; CQs with and without
 * completion channels, notification requests, polls of random sizes; SRQs
 * (limit, post, destroy while attached); AHs; memory windows (bound,
 * invalidated, deallocated while in use); mmap of the device file at
 * random offsets and lengths; RC, UC and UD QPs with random
 * capabilities, random and sane state transitions and attributes, connected
 * to each other (loopback over the device's own GID), to themselves, to
 * nothing, or to QPs of the tool on the other VM (--listen/--peer, a TCP
 * control channel), so that real packets flow; post_send with every opcode,
 * flags, SGE counts, lkeys, remote addresses and rkeys, including lengths
 * near and above 2^31, inline data above the maximum, SEND_WITH_INV of a
 * random rkey, sends to the GSI QP; post_recv; queries; and short-lived
 * child processes that build the same kind of state and are killed with
 * SIGKILL, so that the kernel cleans up a process that dies mid-traffic.
 *
 * What is required of every call (a failure otherwise):
 *   - it returns an error or works; nothing crashes (a crashed child is a
 *     failure) and nothing hangs (every step runs under an alarm);
 *   - what the kernel must refuse is refused: deallocating a PD in use,
 *     destroying a CQ a QP uses or an SRQ a QP is attached to, a QP state
 *     transition the verbs state machine does not have (MR-VERBS-26),
 *     capabilities above the device's limits, registering memory the
 *     process cannot access, over its RLIMIT_MEMLOCK, or wrapping 2^64,
 *     by ibv_reg_mr or ibv_rereg_mr; ibv_rereg_mr making read-only
 *     pages writable; a reregistration to a new range gives new keys
 *     (MR-SEC-14); deregistering or reregistering an MR with a type 1
 *     window known bound to it (MR-MW-7);
 *   - windows: a bind MR-MW-3 refuses, or a LOCAL_INV of a type 1
 *     window (MR-MW-5), never completes successfully;
 *   - completions: each CQE names a WR that is outstanding on a queue of
 *     that CQ, with the QP number of its QP; send completions come in
 *     posting order (MR-VERBS-5) and receive completions of an RQ in
 *     posting order (MR-VERBS-6, MR-VERBS-25); a successful send
 *     completion has the opcode of its WR, never one its QP type does
 *     not carry (MR-VERBS-2); a UC receive completes successfully or
 *     flushed (MR-UC-10);
 *   - watchdog: a signaled send WR must complete within --watchdog seconds
 *     of its posting (or of the last state change of its QP) unless its QP
 *     was given an unbounded budget (ACK timeout 0 or above 18, rnr_retry 7,
 *     max_rd_atomic 0), is in SQD, or its CQ was deliberately overflowed;
 *   - at the end every QP is moved to ERR, every outstanding send and RQ
 *     WR must complete (flushed) within the watchdog (MR-VERBS-25), and
 *     every object must then be destroyed without an error; no byte of the
 *     canary areas around the registered memory may have changed.
 *
 * Known cases, asserted exactly (on a fresh pair of RC QPs connected to
 * each other, with a valid signaled SEND posted behind the bad WR):
 *   atomic-cas-misaligned, atomic-faa-misaligned: remote_addr 0x1001 in a
 *     region registered at IOVA 0x1000 with remote atomic access: the WR
 *     completes with IBV_WC_REM_INV_REQ_ERR and the target is unchanged
 *     (MR-VERBS-11: not transmitted);
 *   write-wrap, read-wrap: remote_addr 2^64 - 256, 512 bytes, in a region
 *     registered at IOVA 0: IBV_WC_REM_ACCESS_ERR (MR-VERBS-21,
 *     MR-VERBS-22), and the wrapped WRITE placed nothing at IOVA 0;
 *   in each: the SEND behind completes with IBV_WC_WR_FLUSH_ERR, the QP is
 *   in IBV_QPS_ERR (MR-VERBS-25), all within --known-wait seconds;
 *   uc-refused: on a UC pair, what the receiver must refuse is dropped
 *     silently and binds no receive WQE, what follows is delivered
 *     (known_uc() says what exactly).
 *
 * Deterministic per seed: step k takes its random numbers from a generator
 * seeded with (seed, k), so the sequence of operations and arguments is the
 * same for the same seed as long as the kernel answers the same; timing
 * (completions, the peer) can still differ between runs. --steps N stops
 * after N steps; -v prints every operation; a failure prints the last 48.
 *
 * --watchdog-selftest proves the watchdog fires: a SEND on a QP with
 * rnr_retry 7 (infinite) to a QP without receive WRs, not exempted.
 *
 * --skip-known-inputs keeps the known cases' inputs (remote ranges that
 * wrap 2^64, regions whose IOVA range wraps, misaligned atomics) out of
 * the random phase, to hunt for
 * other bugs on a kernel that still gets the known cases wrong; the
 * scenario never uses it.
 *
 * Exit status: 0 pass ("mr-verbfuzz: PASS: ..."), 1 a failure
 * ("mr-verbfuzz: FAIL: ..."), 2 usage or set-up error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* ------------------------------------------------------------------ */
/* Limits of what the fuzzer keeps alive at once                        */

#define NCTX		2	/* ctx 0 lives for the whole run; ctx 1 comes and goes */
#define NPD		3
#define NMR		20
#define NCH		2
#define NCQ		5
#define NSRQ		2
#define NQP		8
#define NAH		4
#define NMW		6
#define POST_LIMIT	32	/* outstanding WRs per queue the fuzzer allows itself */
#define NREC		32768	/* WR records (power of two) */
#define ZONE_LEN	(4u << 20)
#define CANARY_LEN	(64u << 10)
#define RO_LEN		(64u << 10)
#define SHM_LEN		(256u << 10)
#define NPEER_MR	16
#define NPEER_UD	8
#define OPLOG_N		48
#define MAX_RING_BYTES	(96u << 20)	/* rough bound of queue memory alive */

static const char *prog = "mr-verbfuzz";

/* ------------------------------------------------------------------ */
/* Options, failures, log                                               */

static struct {
	const char *dev;
	int gid_idx;
	uint64_t seed;
	int seconds;
	long steps;
	const char *peer;
	int listen;
	int port;
	int connect_timeout;
	int watchdog;
	int known_every;
	int known_wait;
	int require_unpriv;
	int verbose;
	int child;
	int no_children;
	int no_known;
	int wd_selftest;
	const char *known_only;
	int skip_known_inputs;
	const char *role;
} o = {
	.gid_idx = -1, .seconds = 60, .port = 18779, .connect_timeout = 120,
	.watchdog = 60, .known_every = 0, .known_wait = 20, .role = "",
};

static int nfail;
static char first_fail[400];
static char oplog[OPLOG_N][200];
static unsigned long oplog_n;
static const char *cur_op = "start";
static long step;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	va_list ap;

	printf("%s%s: ", prog, o.role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Every operation is noted; -v prints it, a failure prints the last ones. */
static void opl(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void opl(const char *fmt, ...)
{
	char *b = oplog[oplog_n++ % OPLOG_N];
	va_list ap;
	int n;

	n = snprintf(b, sizeof(oplog[0]), "#%ld ", step);
	va_start(ap, fmt);
	vsnprintf(b + n, sizeof(oplog[0]) - (size_t)n, fmt, ap);
	va_end(ap);
	if (o.verbose)
		out("%s", b);
}

static void dump_oplog(void)
{
	unsigned long i = oplog_n > OPLOG_N ? oplog_n - OPLOG_N : 0;

	out("the last %lu operations:", oplog_n - i);
	for (; i < oplog_n; i++)
		printf("    %s\n", oplog[i % OPLOG_N]);
	fflush(stdout);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out("FAIL: step %ld: %s", step, buf);
	if (!nfail++) {
		snprintf(first_fail, sizeof(first_fail), "%s", buf);
		dump_oplog();
	}
}

/* Set-up went wrong: not a finding about the device. */
static void die2(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die2(const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out("ERROR: %s", buf);
	exit(2);
}

/* A call that must not hang: the step alarm names it. */
static void on_alarm(int sig)
{
	char buf[300];
	int n;

	(void)sig;
	n = snprintf(buf, sizeof(buf),
		     "%s%s: FAIL: step %ld: hung in %s (no return within the step alarm)\n",
		     prog, o.role, step, cur_op);
	if (n > 0 && write(1, buf, (size_t)n) < 0)
		_exit(1);
	dump_oplog();
	_exit(1);
}

/* ------------------------------------------------------------------ */
/* Random numbers: one generator per step                               */

static uint64_t rs;

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_step(uint64_t k)
{
	uint64_t s = o.seed ^ (k * 0xd1b54a32d192ed03ULL);

	rs = splitmix(&s);
}

static uint64_t r64(void)
{
	return splitmix(&rs);
}

/* Uniform in [0, n) (0 when n is 0). */
static uint32_t rn(uint32_t n)
{
	return n ? (uint32_t)(((r64() >> 32) * (uint64_t)n) >> 32) : 0;
}

static int chance(int pct)
{
	return (int)rn(100) < pct;
}

static uint32_t rrange(uint32_t lo, uint32_t hi)
{
	return lo + rn(hi - lo + 1);
}

/* ------------------------------------------------------------------ */
/* Memory: canary | zone | canary, a read-only area, a shared one       */

static uint8_t *amap;		/* guard | canary | zone | canary | guard */
static size_t amap_len;
static uint8_t *zone;
static uint8_t *ro_area;
static uint8_t *shm_area;
static long pagesz;
static uint64_t memlock_cur;

static uint8_t canary_byte(size_t i)
{
	return (uint8_t)(0xa7 ^ (i * 151) ^ (i >> 9));
}

static void mem_init(void)
{
	size_t i;
	int fd;

	pagesz = sysconf(_SC_PAGESIZE);
	amap_len = (size_t)pagesz * 2 + 2 * CANARY_LEN + ZONE_LEN;
	amap = mmap(NULL, amap_len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (amap == MAP_FAILED)
		die2("mmap of the memory zone: %s", strerror(errno));
	if (mprotect(amap, (size_t)pagesz, PROT_NONE) ||
	    mprotect(amap + amap_len - pagesz, (size_t)pagesz, PROT_NONE))
		die2("mprotect: %s", strerror(errno));
	zone = amap + pagesz + CANARY_LEN;
	for (i = 0; i < CANARY_LEN; i++) {
		zone[-(long)CANARY_LEN + (long)i] = canary_byte(i);
		zone[ZONE_LEN + i] = canary_byte(i + CANARY_LEN);
	}
	for (i = 0; i < ZONE_LEN; i++)
		zone[i] = (uint8_t)(i * 7);

	ro_area = mmap(NULL, RO_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro_area == MAP_FAILED)
		die2("mmap: %s", strerror(errno));
	memset(ro_area, 0x3c, RO_LEN);
	if (mprotect(ro_area, RO_LEN, PROT_READ))
		die2("mprotect: %s", strerror(errno));

	fd = memfd_create("mr-verbfuzz", 0);
	if (fd < 0 || ftruncate(fd, SHM_LEN))
		die2("memfd: %s", strerror(errno));
	shm_area = mmap(NULL, SHM_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm_area == MAP_FAILED)
		die2("mmap memfd: %s", strerror(errno));
	close(fd);
}

/* 0 when both canaries are intact. */
static int canaries_check(void)
{
	size_t i;

	for (i = 0; i < CANARY_LEN; i++) {
		if (zone[-(long)CANARY_LEN + (long)i] != canary_byte(i)) {
			fail("memory %zu bytes before the registered zone changed "
			     "(0x%02x, expected 0x%02x): written outside every MR",
			     CANARY_LEN - i, zone[-(long)CANARY_LEN + (long)i],
			     canary_byte(i));
			return -1;
		}
		if (zone[ZONE_LEN + i] != canary_byte(i + CANARY_LEN)) {
			fail("memory %zu bytes after the registered zone changed "
			     "(0x%02x, expected 0x%02x): written outside every MR",
			     i, zone[ZONE_LEN + i], canary_byte(i + CANARY_LEN));
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Objects                                                              */

enum { MK_ZONE, MK_RO, MK_SHM, MK_SCRATCH };

struct omr {
	struct ibv_mr *mr;
	uint32_t gen;		/* unique per registration */
	int pd;
	uint64_t iova, len;
	int access;
	int kind;
	void *scratch;		/* MK_SCRATCH: its own mapping (maybe unmapped) */
	size_t scratch_len;
};

struct och {
	struct ibv_comp_channel *ch;
};

struct ocq {
	struct ibv_cq *cq;
	int ch;			/* -1: none */
	int overflow_ok;	/* may overflow: its WRs are not required */
	int err;		/* IBV_EVENT_CQ_ERR seen */
};

struct osrq {
	struct ibv_srq *srq;
	int pd;
	uint32_t max_wr, max_sge;
	uint32_t out;		/* outstanding WRs */
	int err;
};

/* A FIFO of record indices: posting order of one queue. */
struct fifo {
	int32_t head, tail;
};

enum { CONN_NONE, CONN_LOOP, CONN_SELF, CONN_PEER, CONN_RANDOM };

struct oqp {
	struct ibv_qp *qp;
	enum ibv_qp_type type;
	int pd, scq, rcq, srq;
	struct ibv_qp_cap cap;
	int sig_all;
	enum ibv_qp_state st;	/* what the fuzzer did last (ERR may come by itself) */
	uint32_t qpn;
	uint32_t gen;
	int unbounded;		/* a legal but unbounded budget was set */
	int conn;
	uint32_t dqpn;
	int peer_tag;		/* connection to the peer VM pending */
	uint32_t psn;
	uint32_t qkey;
	long t_mod;		/* last state change: the watchdog counts from it */
	int sq_err_seen;	/* an error completion came on the SQ */
	int fatal;
	struct fifo sq, rq;
	uint32_t sq_out, rq_out;
};

/*
 * A memory window. MW_BOUND is known only for type 1, and only after the
 * successful completion of its last bind with no other bind or
 * invalidation of it outstanding: a type 1 window stays bound until its
 * owner binds it again or deallocates it (MR-MW-4, MR-MW-6).
 */
enum { MW_UNBOUND, MW_BOUND, MW_UNKNOWN };

struct omw {
	struct ibv_mw *mw;
	int pd;
	enum ibv_mw_type type;
	int state;
	uint32_t gen0;		/* at allocation: its own WRs' gens are above */
	uint32_t gen;		/* unique per bind or invalidation posted */
	uint32_t out;		/* posted, completion not seen yet */
	uint32_t rkey;		/* the key of the last bind posted */
	int access;		/* and its range, rights and MR */
	uint64_t addr, len;
	int mr;
	uint32_t mr_gen;
};

struct oah {
	struct ibv_ah *ah;
	int pd;
	union ibv_gid dgid;
};

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd[NPD];
	struct omr mr[NMR];
	struct och ch[NCH];
	struct ocq cq[NCQ];
	struct osrq srq[NSRQ];
	struct oqp qp[NQP];
	struct oah ah[NAH];
	struct omw mw[NMW];
};

static struct ctx C[NCTX];
static struct ibv_device *dev;
static struct ibv_device_attr dattr;
static union ibv_gid my_gid;
static enum ibv_mtu port_mtu;
static uint32_t qp_gen, mr_gen_ctr, mw_gen_ctr;
static uint64_t ring_bytes;	/* rough bound of queue memory alive */

/* ------------------------------------------------------------------ */
/* WR records                                                           */

enum { R_FREE, R_LIVE, R_DEAD };
enum { K_SEND, K_RECV, K_SRQ };

struct rec {
	uint64_t id;
	uint8_t state, kind, signaled, ctx;
	uint8_t slot, cq;
	uint8_t skipped;	/* an order violation passed it over */
	uint8_t mwp1;		/* a bind or LOCAL_INV of window mwp1 - 1 */
	uint8_t must_fail;	/* MR-MW-3, MR-MW-5: may not complete successfully */
	uint8_t mw_mr;		/* a bind's MR */
	uint32_t mw_gen;
	uint32_t gen;
	uint32_t qpn;
	int opcode;
	int32_t next;
	long t_post;
};

static struct rec recs[NREC];
static uint64_t next_id = 1;
static unsigned long n_live;
static int last_send_status = -1;	/* for the watchdog self-test's report */

static struct {
	unsigned long steps, calls, ok, err, wrs, cqes, cqe_err, flush,
		dead_cqes, known_ok, children, events, peer_qps, peer_ok,
		uc_qps, uc_recv, rereg_ok, mw_bound, mw_refused, mr_busy, mmap_ok;
} st;

static int rec_alloc(void)
{
	int i, tries;

	for (tries = 0; tries < NREC; tries++) {
		uint64_t id = next_id++;

		i = (int)(id & (NREC - 1));
		if (recs[i].state != R_LIVE) {
			memset(&recs[i], 0, sizeof(recs[i]));
			recs[i].id = id;
			recs[i].next = -1;
			return i;
		}
	}
	return -1;
}

static void fifo_push(struct fifo *f, int i)
{
	recs[i].next = -1;
	if (f->tail < 0)
		f->head = i;
	else
		recs[f->tail].next = i;
	f->tail = i;
}

static int fifo_pop(struct fifo *f)
{
	int i = f->head;

	if (i >= 0) {
		f->head = recs[i].next;
		if (f->head < 0)
			f->tail = -1;
	}
	return i;
}

static void fifo_init(struct fifo *f)
{
	f->head = f->tail = -1;
}

static void rec_mark_dead(int i)
{
	if (recs[i].state == R_LIVE)
		n_live--;
	recs[i].state = R_DEAD;
}

/* Unlinks record i from f; 1 if it was there. */
static int fifo_remove(struct fifo *f, int i)
{
	int prev = -1, j;

	for (j = f->head; j >= 0; prev = j, j = recs[j].next) {
		if (j != i)
			continue;
		if (prev < 0)
			f->head = recs[j].next;
		else
			recs[prev].next = recs[j].next;
		if (f->tail == j)
			f->tail = prev;
		return 1;
	}
	return 0;
}

static void rec_kill(int i);

/* Every outstanding WR of a QP becomes optional (reset, destroy). */
static void qp_recs_dead(struct oqp *q)
{
	int i;

	while ((i = fifo_pop(&q->sq)) >= 0)
		rec_mark_dead(i);
	while ((i = fifo_pop(&q->rq)) >= 0)
		rec_mark_dead(i);
	q->sq_out = q->rq_out = 0;
}

/* A live WR that is no longer waited for: out of its queue's FIFO too. */
static void rec_kill(int i)
{
	struct rec *r = &recs[i];
	struct oqp *q;

	if (r->state == R_LIVE && r->kind != K_SRQ && r->ctx < NCTX && r->slot < NQP) {
		q = &C[r->ctx].qp[r->slot];
		if (q->qp && q->gen == r->gen) {
			if (r->kind == K_SEND && fifo_remove(&q->sq, i))
				q->sq_out--;
			if (r->kind == K_RECV && fifo_remove(&q->rq, i))
				q->rq_out--;
		}
	}
	rec_mark_dead(i);
}

/* ------------------------------------------------------------------ */
/* Small helpers over the tables                                        */

static int nlive_ctx(void)
{
	return (C[0].ctx != NULL) + (C[1].ctx != NULL);
}

static int pick_ctx(void)
{
	if (C[1].ctx && chance(35))
		return 1;
	return 0;
}

static int free_slot_pd(struct ctx *c)
{
	int i;

	for (i = 0; i < NPD; i++)
		if (!c->pd[i])
			return i;
	return -1;
}

/* A random live index of an array of n entries; live(i) tells. */
#define PICK_LIVE(n, live_expr, out)					\
	do {								\
		int _cnt = 0, _i;					\
		(out) = -1;						\
		for (_i = 0; _i < (n); _i++) {				\
			int i_ = _i;					\
			(void)i_;					\
			if (live_expr && rn((uint32_t)++_cnt) == 0)	\
				(out) = _i;				\
		}							\
	} while (0)

#define PICK_FREE(n, live_expr, out)					\
	do {								\
		int _i;							\
		(out) = -1;						\
		for (_i = 0; _i < (n); _i++) {				\
			int i_ = _i;					\
			(void)i_;					\
			if (!(live_expr)) {				\
				(out) = _i;				\
				break;					\
			}						\
		}							\
	} while (0)

static int pick_pd(struct ctx *c)
{
	int p;

	PICK_LIVE(NPD, c->pd[i_] != NULL, p);
	return p;
}

static int pick_mr(struct ctx *c, int pd)
{
	int m;

	if (pd >= 0 && chance(85))
		PICK_LIVE(NMR, c->mr[i_].mr && c->mr[i_].pd == pd, m);
	else
		PICK_LIVE(NMR, c->mr[i_].mr != NULL, m);
	return m;
}

static int pick_cq(struct ctx *c)
{
	int k;

	PICK_LIVE(NCQ, c->cq[i_].cq != NULL, k);
	return k;
}

static int pick_qp(struct ctx *c)
{
	int q;

	PICK_LIVE(NQP, c->qp[i_].qp != NULL, q);
	return q;
}

static uint32_t qlim(uint32_t n)
{
	return n < POST_LIMIT ? n : POST_LIMIT;
}

/* CQEs the fuzzer's outstanding WRs can need on CQ k, at most. */
static uint32_t cq_need(struct ctx *c, int k)
{
	uint32_t need = 0;
	int i;

	for (i = 0; i < NQP; i++) {
		struct oqp *q = &c->qp[i];

		if (!q->qp)
			continue;
		if (q->scq == k)
			need += qlim(q->cap.max_send_wr);
		if (q->rcq == k)
			need += q->srq >= 0 ? qlim(c->srq[q->srq].max_wr) :
					      qlim(q->cap.max_recv_wr);
	}
	return need;
}

static int pd_in_use(struct ctx *c, int p)
{
	int i;

	for (i = 0; i < NMR; i++)
		if (c->mr[i].mr && c->mr[i].pd == p)
			return 1;
	for (i = 0; i < NQP; i++)
		if (c->qp[i].qp && c->qp[i].pd == p)
			return 1;
	for (i = 0; i < NSRQ; i++)
		if (c->srq[i].srq && c->srq[i].pd == p)
			return 1;
	for (i = 0; i < NAH; i++)
		if (c->ah[i].ah && c->ah[i].pd == p)
			return 1;
	for (i = 0; i < NMW; i++)
		if (c->mw[i].mw && c->mw[i].pd == p)
			return 1;
	return 0;
}

/* A type 1 window of c known bound to MR m (MR-MW-7: m must stay). */
static int mr_window_bound(struct ctx *c, int m)
{
	int i;

	for (i = 0; i < NMW; i++)
		if (c->mw[i].mw && c->mw[i].state == MW_BOUND && c->mw[i].mr == m &&
		    c->mw[i].mr_gen == c->mr[m].gen)
			return 1;
	return 0;
}

/* Any window of c that may be bound to some MR. */
static int window_may_be_bound(struct ctx *c)
{
	int i;

	for (i = 0; i < NMW; i++)
		if (c->mw[i].mw && c->mw[i].state != MW_UNBOUND)
			return 1;
	return 0;
}

static int cq_in_use(struct ctx *c, int k)
{
	int i;

	for (i = 0; i < NQP; i++)
		if (c->qp[i].qp && (c->qp[i].scq == k || c->qp[i].rcq == k))
			return 1;
	return 0;
}

static int srq_in_use(struct ctx *c, int s)
{
	int i;

	for (i = 0; i < NQP; i++)
		if (c->qp[i].qp && c->qp[i].srq == s)
			return 1;
	return 0;
}

static int ch_in_use(struct ctx *c, int h)
{
	int i;

	for (i = 0; i < NCQ; i++)
		if (c->cq[i].cq && c->cq[i].ch == h)
			return 1;
	return 0;
}

static const char *qps_name(int s)
{
	static const char *n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return s >= 0 && s <= 6 ? n[s] : "?";
}

static const char *qpt_name(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC ? "RC" : t == IBV_QPT_UC ? "UC" :
	       t == IBV_QPT_UD ? "UD" : "other";
}

static int qp_query_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

static void count(int ret)
{
	st.calls++;
	if (ret)
		st.err++;
	else
		st.ok++;
}

/* ------------------------------------------------------------------ */
/* Completions and events                                               */

static struct oqp *qp_by_ptr(struct ibv_qp *p, int *ctx_out)
{
	int c, i;

	for (c = 0; c < NCTX; c++)
		for (i = 0; i < NQP; i++)
			if (C[c].qp[i].qp == p) {
				if (ctx_out)
					*ctx_out = c;
				return &C[c].qp[i];
			}
	return NULL;
}

static enum ibv_wc_opcode wc_opcode_of(int wr_op)
{
	switch (wr_op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	case IBV_WR_BIND_MW:
		return IBV_WC_BIND_MW;
	case IBV_WR_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	default:
		return IBV_WC_SEND;
	}
}

static void peer_advertise(uint64_t addr, uint64_t len, uint32_t rkey, int access);

/* The completion of a bind or LOCAL_INV the fuzzer posted for a window. */
static void mw_wr_done(int ci, const struct rec *r, enum ibv_wc_status status)
{
	struct omw *o = &C[ci].mw[r->mwp1 - 1];

	if (status != IBV_WC_SUCCESS && status != IBV_WC_WR_FLUSH_ERR && r->must_fail)
		st.mw_refused++;
	if (status == IBV_WC_SUCCESS && r->must_fail)
		fail("%s of a window completed successfully where %s requires an error",
		     r->opcode == IBV_WR_BIND_MW ? "a bind" : "a LOCAL_INV",
		     r->opcode == IBV_WR_BIND_MW ? "MR-MW-3" : "MR-MW-5");
	if (!o->mw || r->mw_gen <= o->gen0)
		return;		/* of a window deallocated since */
	o->out--;
	if (r->mw_gen != o->gen)
		return;		/* an earlier WR of the window */
	if (r->opcode != IBV_WR_BIND_MW || status != IBV_WC_SUCCESS)
		return;
	st.mw_bound++;
	/* Another bind or LOCAL_INV still outstanding: it may run after this one. */
	if (o->type == IBV_MW_TYPE_1 && !o->out)
		o->state = o->len ? MW_BOUND : MW_UNBOUND;
	if (ci == 0 && o->len)
		peer_advertise(o->addr, o->len, o->rkey, o->access);
}

/* The WR opcodes a QP type carries (MR-VERBS-2, MR-UC-1). */
static int opcode_allowed(enum ibv_qp_type t, int wr_op)
{
	switch (wr_op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return 1;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return t == IBV_QPT_RC || t == IBV_QPT_UC;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
	case IBV_WR_SEND_WITH_INV:
		return t == IBV_QPT_RC;
	default:
		return 0;
	}
}

static void handle_wc(int ci, int k, const struct ibv_wc *wc)
{
	struct ctx *c = &C[ci];
	int i = (int)(wc->wr_id & (NREC - 1));
	struct rec *r = &recs[i];
	struct oqp *q = NULL;
	int j;

	st.cqes++;
	if (wc->status != IBV_WC_SUCCESS)
		st.cqe_err++;
	if (wc->status == IBV_WC_WR_FLUSH_ERR)
		st.flush++;
	if (r->id != wc->wr_id || r->state == R_FREE) {
		fail("ctx %d CQ %d: completion for wr_id %" PRIu64 " that was never "
		     "posted or already completed (status %s, qp 0x%x)", ci, k,
		     wc->wr_id, ibv_wc_status_str(wc->status), wc->qp_num);
		return;
	}
	if (r->state == R_DEAD) {
		st.dead_cqes++;
		if (r->skipped)
			out("note: wr_id %" PRIu64 ", passed over by a later completion, "
			    "completed after it with %s", r->id, ibv_wc_status_str(wc->status));
		r->state = R_FREE;
		return;
	}
	if (r->ctx != ci || (r->kind != K_SRQ && r->cq != k)) {
		fail("wr_id %" PRIu64 " (ctx %d, CQ %d) completed on ctx %d CQ %d",
		     wc->wr_id, r->ctx, r->cq, ci, k);
		rec_kill(i);
		return;
	}
	if (r->kind == K_SRQ) {
		c->srq[r->slot].out--;
		r->state = R_FREE;
		n_live--;
		return;
	}
	q = &c->qp[r->slot];
	if (!q->qp || q->gen != r->gen) {
		fail("wr_id %" PRIu64 " of a QP that is gone was still live", wc->wr_id);
		rec_kill(i);
		return;
	}
	if (wc->qp_num != r->qpn)
		fail("wr_id %" PRIu64 " posted on QP 0x%x completed with qp_num 0x%x",
		     wc->wr_id, r->qpn, wc->qp_num);
	if (r->kind == K_SEND) {
		/*
		 * In posting order (MR-VERBS-5): the WRs before it retire
		 * with it only if they were unsignaled and no error came
		 * yet (after an error every WR gets its own completion).
		 */
		while ((j = fifo_pop(&q->sq)) >= 0 && j != i) {
			if (recs[j].signaled || q->sq_err_seen)
				fail("%s QP 0x%x (%s): completion of wr_id %" PRIu64 " (opcode %d, "
				     "%s) came before one for the earlier %ssignaled wr_id %"
				     PRIu64 " (opcode %d)%s (MR-VERBS-5, MR-VERBS-25)",
				     qpt_name(q->type), q->qpn, qps_name(q->st),
				     wc->wr_id, r->opcode, ibv_wc_status_str(wc->status),
				     recs[j].signaled ? "" : "un", recs[j].id, recs[j].opcode,
				     q->sq_err_seen ? ", after an error completion" : "");
			q->sq_out--;
			if (recs[j].signaled || q->sq_err_seen) {
				rec_mark_dead(j);
				recs[j].skipped = 1;
			} else {
				recs[j].state = R_FREE;
				n_live--;
			}
		}
		if (j != i) {
			fail("QP 0x%x: completion of wr_id %" PRIu64 " not in its SQ",
			     q->qpn, wc->wr_id);
			rec_kill(i);
			return;
		}
		q->sq_out--;
		last_send_status = wc->status;
		if (r->mwp1)
			mw_wr_done(ci, r, wc->status);
		if (wc->status == IBV_WC_SUCCESS && q->conn == CONN_PEER)
			st.peer_ok++;
		if (wc->status != IBV_WC_SUCCESS)
			q->sq_err_seen = 1;
		else if (!opcode_allowed(q->type, r->opcode))
			fail("%s QP 0x%x: a WR with opcode %d, which this QP type does not "
			     "carry, completed successfully (MR-VERBS-2)", qpt_name(q->type),
			     q->qpn, r->opcode);
		else if (wc->opcode != wc_opcode_of(r->opcode))
			fail("QP 0x%x: successful completion of a WR with opcode %d "
			     "carries IBV_WC opcode %d", q->qpn, r->opcode, wc->opcode);
	} else {
		j = fifo_pop(&q->rq);
		if (j != i) {
			fail("%s QP 0x%x (%s, connection %d to 0x%x): receive completion of "
			     "wr_id %" PRIu64 " (%s, posted %ld ms ago) came before the earlier "
			     "wr_id %" PRIu64 " (posted %ld ms ago) (MR-VERBS-6, MR-VERBS-25)",
			     qpt_name(q->type), q->qpn, qps_name(q->st),
			     q->conn, q->dqpn, wc->wr_id, ibv_wc_status_str(wc->status),
			     now_ms() - r->t_post, j >= 0 ? recs[j].id : 0,
			     j >= 0 ? now_ms() - recs[j].t_post : -1);
			/* Resynchronise: drop what came before it. */
			while (j >= 0 && j != i) {
				q->rq_out--;
				rec_mark_dead(j);
				recs[j].skipped = 1;
				j = fifo_pop(&q->rq);
			}
			if (j != i) {
				rec_kill(i);
				return;
			}
		}
		q->rq_out--;
		if (wc->status == IBV_WC_SUCCESS &&
		    wc->opcode != IBV_WC_RECV && wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM)
			fail("QP 0x%x: successful receive completion with opcode %d",
			     q->qpn, wc->opcode);
		/*
		 * A UC receiver drops what it cannot take silently and never
		 * completes a receive WQE in error; only a flush does
		 * (MR-UC-10, MR-VERBS-25).
		 */
		if (q->type == IBV_QPT_UC && wc->status != IBV_WC_SUCCESS &&
		    wc->status != IBV_WC_WR_FLUSH_ERR)
			fail("UC QP 0x%x (%s): receive completion of wr_id %" PRIu64 " with %s "
			     "(MR-UC-10: a UC receive WQE completes successfully or flushed)",
			     q->qpn, qps_name(q->st), wc->wr_id, ibv_wc_status_str(wc->status));
		if (q->type == IBV_QPT_UC && wc->status == IBV_WC_SUCCESS)
			st.uc_recv++;
	}
	r->state = R_FREE;
	n_live--;
}

/* Poll CQ k of ctx ci, in batches of random size, up to max_rounds times. */
static void poll_cq(int ci, int k, int max_rounds)
{
	struct ibv_wc wc[64];
	struct ocq *q = &C[ci].cq[k];
	int n, i, round;

	for (round = 0; round < max_rounds; round++) {
		int want = chance(10) ? 1 : (int)rrange(1, 64);

		cur_op = "ibv_poll_cq";
		n = ibv_poll_cq(q->cq, want, wc);
		if (n < 0) {
			/* The provider's answer to a corrupt ring: not from us. */
			if (!q->err && !q->overflow_ok)
				fail("ibv_poll_cq on ctx %d CQ %d returned %d without a "
				     "CQ error event", ci, k, n);
			return;
		}
		if (n > want) {
			fail("ibv_poll_cq returned %d entries, asked for %d", n, want);
			return;
		}
		for (i = 0; i < n; i++)
			handle_wc(ci, k, &wc[i]);
		if (n < want)
			return;
	}
}

static void poll_all(int rounds)
{
	int c, k;

	for (c = 0; c < NCTX; c++)
		for (k = 0; k < NCQ; k++)
			if (C[c].ctx && C[c].cq[k].cq)
				poll_cq(c, k, rounds);
}

static void async_drain(int ci)
{
	struct ibv_async_event ev;
	struct ctx *c = &C[ci];
	struct oqp *q;
	int i;

	if (!c->ctx)
		return;
	cur_op = "ibv_get_async_event";
	while (ibv_get_async_event(c->ctx, &ev) == 0) {
		st.events++;
		opl("ctx %d: async event %s", ci, ibv_event_type_str(ev.event_type));
		switch (ev.event_type) {
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
			q = qp_by_ptr(ev.element.qp, NULL);
			if (q)
				q->fatal = 1;
			break;
		case IBV_EVENT_CQ_ERR:
			for (i = 0; i < NCQ; i++)
				if (c->cq[i].cq == ev.element.cq) {
					c->cq[i].err = 1;
					if (!c->cq[i].overflow_ok)
						fail("ctx %d CQ %d: IBV_EVENT_CQ_ERR although "
						     "the fuzzer never let it overflow", ci, i);
				}
			break;
		case IBV_EVENT_SRQ_ERR:
			for (i = 0; i < NSRQ; i++)
				if (c->srq[i].srq == ev.element.srq)
					c->srq[i].err = 1;
			break;
		case IBV_EVENT_DEVICE_FATAL:
			fail("IBV_EVENT_DEVICE_FATAL on ctx %d", ci);
			break;
		default:
			break;
		}
		ibv_ack_async_event(&ev);
	}
}

static void chan_drain(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_cq *cq;
	void *cqctx;
	int h;

	for (h = 0; h < NCH; h++) {
		if (!c->ch[h].ch)
			continue;
		cur_op = "ibv_get_cq_event";
		while (ibv_get_cq_event(c->ch[h].ch, &cq, &cqctx) == 0) {
			ibv_ack_cq_events(cq, 1);
			if (chance(50)) {
				cur_op = "ibv_req_notify_cq";
				count(ibv_req_notify_cq(cq, (int)rn(2)));
			}
		}
	}
}

static void events_all(void)
{
	int c;

	for (c = 0; c < NCTX; c++) {
		async_drain(c);
		chan_drain(c);
	}
}

/* ------------------------------------------------------------------ */
/* Contexts                                                             */

static int nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int ctx_open(int ci)
{
	struct ctx *c = &C[ci];

	memset(c, 0, sizeof(*c));
	cur_op = "ibv_open_device";
	c->ctx = ibv_open_device(dev);
	count(!c->ctx);
	opl("ibv_open_device ctx %d: %s", ci, c->ctx ? "ok" : strerror(errno));
	if (!c->ctx)
		return -1;
	if (nonblock(c->ctx->async_fd))
		die2("fcntl(async_fd): %s", strerror(errno));
	return 0;
}

/* ------------------------------------------------------------------ */
/* PDs                                                                  */

static void op_pd_alloc(int ci)
{
	struct ctx *c = &C[ci];
	int p = free_slot_pd(c);

	if (p < 0)
		return;
	cur_op = "ibv_alloc_pd";
	c->pd[p] = ibv_alloc_pd(c->ctx);
	count(!c->pd[p]);
	opl("ctx %d: ibv_alloc_pd -> %d %s", ci, p, c->pd[p] ? "ok" : strerror(errno));
}

/* Returns 0 when the PD is gone. */
static int pd_dealloc(int ci, int p)
{
	struct ctx *c = &C[ci];
	int busy = pd_in_use(c, p), ret;

	cur_op = "ibv_dealloc_pd";
	ret = ibv_dealloc_pd(c->pd[p]);
	count(ret);
	opl("ctx %d: ibv_dealloc_pd %d (%s) -> %s", ci, p, busy ? "in use" : "unused",
	    ret ? strerror(ret) : "ok");
	if (busy && !ret) {
		fail("ibv_dealloc_pd of a PD that MRs, MWs, QPs, SRQs or AHs still use "
		     "succeeded");
		dump_oplog();
		exit(1);	/* the objects' state is unknown now */
	}
	if (!busy && ret)
		fail("ibv_dealloc_pd of an unused PD: %s", strerror(ret));
	if (!ret)
		c->pd[p] = NULL;
	return ret;
}

/* ------------------------------------------------------------------ */
/* MRs                                                                  */

static int rand_access(void)
{
	static const int bits[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED, IBV_ACCESS_ON_DEMAND,
		IBV_ACCESS_HUGETLB, IBV_ACCESS_RELAXED_ORDERING, 1 << 14,
	};
	int a = 0;
	unsigned int i;

	if (chance(60))
		return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
		       (chance(30) ? IBV_ACCESS_MW_BIND : 0);
	if (chance(50)) {
		for (i = 0; i < 4; i++)
			if (chance(50))
				a |= bits[i];
		return a;
	}
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (chance(25))
			a |= bits[i];
	return a;
}

static uint64_t rand_len(uint64_t max)
{
	static const uint64_t sz[] = { 1, 7, 8, 64, 100, 1024, 4095, 4096, 4097,
				       65536, 262144, 1048576 };
	uint64_t l;

	if (chance(70))
		l = sz[rn(sizeof(sz) / sizeof(sz[0]))];
	else
		l = rrange(1, 1u << 20);
	return l > max ? max : l;
}

#define ACC_WRITABLE (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		      IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND)

static void op_mr_reg(int ci)
{
	struct ctx *c = &C[ci];
	int p = pick_pd(c), m, access = rand_access(), kind = MK_ZONE, ret;
	int must_fail = 0, use_iova = 0;
	const char *what = "zone";
	struct ibv_mr *mr;
	uint64_t iova = 0, len;
	void *scratch = NULL;
	size_t scratch_len = 0;
	uint8_t *addr;
	uint32_t v;

	PICK_FREE(NMR, c->mr[i_].mr != NULL, m);
	if (p < 0 || m < 0)
		return;

	v = rn(100);
	if (v < 55) {
		/* Somewhere in the zone, maybe over another MR. */
		uint64_t off = chance(50) ? (uint64_t)rn(ZONE_LEN / 4096) * 4096 :
					    rn(ZONE_LEN);

		len = rand_len(ZONE_LEN - off);
		if (chance(5)) {
			off = 0;
			len = ZONE_LEN;
			what = "whole zone";
		}
		addr = zone + off;
	} else if (v < 62) {
		addr = ro_area + rn(RO_LEN / 2);
		len = rand_len(RO_LEN / 2);
		kind = MK_RO;
		what = "read-only";
		/* Pinning read-only memory for writing must be refused. */
		must_fail = (access & ACC_WRITABLE) != 0;
	} else if (v < 68) {
		addr = shm_area + rn(SHM_LEN / 2);
		len = rand_len(SHM_LEN / 2);
		kind = MK_SHM;
		what = "memfd shared";
	} else if (v < 76) {
		/* A mapping of its own, maybe unmapped while registered. */
		scratch_len = (size_t)rrange(1, 16) * (size_t)pagesz;
		scratch = mmap(NULL, scratch_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (scratch == MAP_FAILED)
			return;
		memset(scratch, 0x5a, scratch_len);
		addr = scratch;
		len = scratch_len;
		kind = MK_SCRATCH;
		what = "scratch";
	} else {
		/* Ranges that must be refused. */
		must_fail = 1;
		len = 4096;
		switch (rn(6)) {
		case 0:
			addr = NULL;
			what = "address 0";
			break;
		case 1:
			addr = (uint8_t *)(uintptr_t)0xffff888000000000ULL;
			what = "kernel address";
			break;
		case 2:
			addr = (uint8_t *)(uintptr_t)(0ULL - 4096);
			len = 8192;
			what = "wrapping 2^64";
			break;
		case 3:
			/* Runs into the PROT_NONE guard page after the zone. */
			addr = amap + amap_len - 2 * pagesz;
			len = 2 * (uint64_t)pagesz;
			what = "into a PROT_NONE page";
			/*
			 * Read-only registrations pin with FOLL_FORCE
			 * (ib_umem_get()), which may read a PROT_NONE page.
			 */
			must_fail = (access & ACC_WRITABLE) != 0;
			break;
		case 4:
			if (memlock_cur == RLIM_INFINITY || !o.require_unpriv) {
				must_fail = 0;	/* would really pin: skipped */
				return;
			}
			/* More than RLIMIT_MEMLOCK, never touched (NORESERVE). */
			scratch_len = (size_t)memlock_cur + (16u << 20);
			scratch = mmap(NULL, scratch_len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (scratch == MAP_FAILED)
				return;
			addr = scratch;
			len = scratch_len;
			kind = MK_SCRATCH;
			what = "above RLIMIT_MEMLOCK";
			break;
		default:
			addr = zone;
			len = (1ULL << 41);
			what = "length 2^41";
			break;
		}
	}

	if (chance(20)) {
		/* An IOVA of its own; the page offset must match. */
		static const uint64_t bases[] = { 0, 0x1000, 0x7fffffff000ULL,
						  0xfffffffffffff000ULL,
						  0x8000000000000000ULL };
		uint64_t poff = (uint64_t)(uintptr_t)addr & (uint64_t)(pagesz - 1);

		use_iova = 1;
		iova = bases[rn(5)] + poff;
		if (chance(15))
			iova = r64();	/* page offset most likely wrong: refused */
	}
	if (chance(3) && !must_fail) {
		len = 0;
		what = "zero length";
	}
	if (o.skip_known_inputs && use_iova && iova + len < iova)
		iova = (uint64_t)(uintptr_t)addr & (uint64_t)(pagesz - 1);	/* no wrapping region */

	cur_op = "ibv_reg_mr";
	if (use_iova)
		mr = ibv_reg_mr_iova(c->pd[p], addr, len, iova, access);
	else
		mr = ibv_reg_mr(c->pd[p], addr, len, access);
	ret = mr ? 0 : errno;
	count(!mr);
	opl("ctx %d: ibv_reg_mr%s pd %d %s %p+%" PRIu64 " iova 0x%" PRIx64
	    " access 0x%x -> %s", ci, use_iova ? "_iova" : "", p, what, (void *)addr,
	    len, use_iova ? iova : (uint64_t)(uintptr_t)addr, access,
	    mr ? "ok" : strerror(ret));
	if (mr && must_fail) {
		fail("ibv_reg_mr of %s (%p, %" PRIu64 " bytes, access 0x%x) succeeded: "
		     "it must be refused", what, (void *)addr, len, access);
		cur_op = "ibv_dereg_mr";
		count(ibv_dereg_mr(mr));
		mr = NULL;
	}
	if (!mr) {
		if (scratch)
			munmap(scratch, scratch_len);
		return;
	}
	c->mr[m].mr = mr;
	c->mr[m].gen = ++mr_gen_ctr;
	c->mr[m].pd = p;
	c->mr[m].iova = use_iova ? iova : (uint64_t)(uintptr_t)addr;
	c->mr[m].len = len;
	c->mr[m].access = access;
	c->mr[m].kind = kind;
	c->mr[m].scratch = scratch;
	c->mr[m].scratch_len = scratch_len;
	if (kind == MK_SCRATCH && chance(50)) {
		/* The pages stay pinned by the MR; the process just loses them. */
		munmap(scratch, scratch_len);
		c->mr[m].scratch = NULL;
		opl("ctx %d: MR %d's memory unmapped while registered", ci, m);
	}
}

/* Declared below: the peer channel. */
static void peer_advertise_mr(const struct omr *m);

static void mr_dereg(int ci, int m)
{
	struct ctx *c = &C[ci];
	int ret, bound = mr_window_bound(c, m);

	cur_op = "ibv_dereg_mr";
	ret = ibv_dereg_mr(c->mr[m].mr);
	count(ret);
	opl("ctx %d: ibv_dereg_mr %d%s -> %s", ci, m, bound ? " (a window bound)" : "",
	    ret ? strerror(ret) : "ok");
	if (!ret && bound)
		fail("ibv_dereg_mr of MR %d with a type 1 window bound to it succeeded "
		     "(MR-MW-7)", m);
	st.mr_busy += bound && ret == EBUSY;
	if (ret == EBUSY && window_may_be_bound(c))
		return;		/* MR-MW-7: the MR is as it was */
	if (ret) {
		fail("ibv_dereg_mr: %s", strerror(ret));
		return;
	}
	if (c->mr[m].scratch)
		munmap(c->mr[m].scratch, c->mr[m].scratch_len);
	memset(&c->mr[m], 0, sizeof(c->mr[m]));
}

/* ------------------------------------------------------------------ */
/* Channels and CQs                                                     */

/*
 * ibv_rereg_mr of a live MR, whether WRs or the peer use it or not
 * (MR-SEC-14): a new range, PD or access rights. A range ibv_reg_mr must
 * refuse is refused here too, and the MR stays as it was; access rights
 * that make a read-only registration writable re-pin its pages and must
 * be refused where they cannot be written. A new range brings new keys.
 */
static void op_mr_rereg(int ci)
{
	struct ctx *c = &C[ci];
	int m = pick_mr(c, -1), flags, p, access, kind, must_fail = 0, ret, bound, i;
	const char *what = "the same range";
	uint32_t old_lkey, old_rkey;
	uint8_t *addr = NULL;
	uint64_t len = 0;
	struct omr *r;

	if (m < 0)
		return;
	r = &c->mr[m];
	kind = r->kind;
	flags = (int)rrange(1, 7);
	if (chance(3)) {
		/* No change asked, or flags libibverbs does not know. */
		flags = chance(50) ? 0 : flags | 1 << rrange(3, 30);
		must_fail = 1;
	}
	p = r->pd;
	if (flags & IBV_REREG_MR_CHANGE_PD) {
		p = pick_pd(c);
		if (p < 0)
			return;
	}
	access = flags & IBV_REREG_MR_CHANGE_ACCESS ? rand_access() : r->access;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		uint32_t v = rn(100);

		if (v < 70) {
			uint64_t off = chance(50) ? (uint64_t)rn(ZONE_LEN / 4096) * 4096 :
						    rn(ZONE_LEN);

			addr = zone + off;
			len = rand_len(ZONE_LEN - off);
			kind = MK_ZONE;
			what = "zone";
		} else if (v < 80) {
			addr = ro_area + rn(RO_LEN / 2);
			len = rand_len(RO_LEN / 2);
			kind = MK_RO;
			what = "read-only";
			must_fail |= (access & ACC_WRITABLE) != 0;
		} else {
			len = 4096;
			switch (rn(4)) {
			case 0:
				addr = (uint8_t *)(uintptr_t)0xffff888000000000ULL;
				what = "kernel address";
				must_fail = 1;
				break;
			case 1:
				addr = (uint8_t *)(uintptr_t)(0ULL - 4096);
				len = 8192;
				what = "wrapping 2^64";
				must_fail = 1;
				break;
			case 2:
				addr = amap + amap_len - 2 * pagesz;
				len = 2 * (uint64_t)pagesz;
				what = "into a PROT_NONE page";
				must_fail |= (access & ACC_WRITABLE) != 0;
				break;
			default:
				addr = zone;
				len = 1ULL << 41;
				what = "length 2^41";
				must_fail = 1;
				break;
			}
		}
		/* libibverbs refuses a new translation without an address or length. */
		if (!len)
			must_fail = 1;
	} else if (kind == MK_RO && (access & ACC_WRITABLE)) {
		/* The same read-only pages, re-pinned for writing: refused. */
		what = "the same read-only range, now writable";
		must_fail = 1;
	}

	old_lkey = r->mr->lkey;
	old_rkey = r->mr->rkey;
	bound = mr_window_bound(c, m);
	cur_op = "ibv_rereg_mr";
	ret = ibv_rereg_mr(r->mr, flags, c->pd[p], addr, len, access);
	count(ret);
	opl("ctx %d: ibv_rereg_mr %d flags 0x%x pd %d->%d %s %p+%" PRIu64 " access 0x%x->0x%x "
	    "-> %d (%s)", ci, m, flags, r->pd, p, what, (void *)addr, len, r->access, access,
	    ret, ret ? strerror(errno) : "ok");
	if (!ret && must_fail)
		fail("ibv_rereg_mr of MR %d (flags 0x%x, %s, %p+%" PRIu64 ", access 0x%x) "
		     "succeeded: it must be refused", m, flags, what, (void *)addr, len, access);
	if (!ret && bound)
		fail("ibv_rereg_mr of MR %d with a type 1 window bound to it succeeded "
		     "(MR-MW-7)", m);
	st.mr_busy += bound && ret && errno == EBUSY;
	if (ret)
		return;		/* the MR is as it was */
	st.rereg_ok++;
	/*
	 * A bind of this MR still queued executes against its new PD and
	 * rights: what it expected at posting no longer holds.
	 */
	for (i = 0; i < NREC; i++)
		if (recs[i].state == R_LIVE && recs[i].mwp1 && recs[i].ctx == ci &&
		    recs[i].opcode == IBV_WR_BIND_MW && recs[i].mw_mr == m)
			recs[i].must_fail = 0;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		if (r->mr->lkey == old_lkey || r->mr->rkey == old_rkey)
			fail("ibv_rereg_mr of MR %d to a new range kept its keys (lkey 0x%x, "
			     "rkey 0x%x) (MR-SEC-14)", m, r->mr->lkey, r->mr->rkey);
		if (r->scratch)
			munmap(r->scratch, r->scratch_len);
		r->scratch = NULL;
		r->kind = kind;
		r->iova = (uint64_t)(uintptr_t)addr;
		r->len = len;
	}
	r->pd = p;
	r->access = access;
	if (ci == 0)
		peer_advertise_mr(r);
}

static void op_ch_create(int ci)
{
	struct ctx *c = &C[ci];
	int h;

	PICK_FREE(NCH, c->ch[i_].ch != NULL, h);
	if (h < 0)
		return;
	cur_op = "ibv_create_comp_channel";
	c->ch[h].ch = ibv_create_comp_channel(c->ctx);
	count(!c->ch[h].ch);
	opl("ctx %d: ibv_create_comp_channel %d -> %s", ci, h,
	    c->ch[h].ch ? "ok" : strerror(errno));
	if (c->ch[h].ch && nonblock(c->ch[h].ch->fd))
		die2("fcntl(channel fd): %s", strerror(errno));
}

static int ch_destroy(int ci, int h)
{
	struct ctx *c = &C[ci];
	int busy = ch_in_use(c, h), ret;

	cur_op = "ibv_destroy_comp_channel";
	ret = ibv_destroy_comp_channel(c->ch[h].ch);
	count(ret);
	opl("ctx %d: ibv_destroy_comp_channel %d (%s) -> %s", ci, h,
	    busy ? "in use" : "unused", ret ? strerror(errno) : "ok");
	if (busy && !ret) {
		fail("ibv_destroy_comp_channel of a channel CQs still use succeeded");
		exit(1);
	}
	if (!busy && ret)
		fail("ibv_destroy_comp_channel of an unused channel failed");
	if (!ret)
		c->ch[h].ch = NULL;
	return ret;
}

/* Creates a CQ of at least 'want' entries (random when 0); its index or -1. */
static int cq_create(int ci, int want)
{
	struct ctx *c = &C[ci];
	int k, h = -1, cqe, vec = 0, must_fail = 0;
	struct ibv_cq *cq;

	PICK_FREE(NCQ, c->cq[i_].cq != NULL, k);
	if (k < 0)
		return -1;
	if (want) {
		cqe = want + (int)rn(256);
	} else {
		switch (rn(10)) {
		case 0:
			cqe = (int)dattr.max_cqe;
			if (ring_bytes + (uint64_t)cqe * 64 > MAX_RING_BYTES)
				cqe = 1024;
			break;
		case 1:
			cqe = (int)dattr.max_cqe + 1 + (int)rn(3);
			must_fail = 1;
			break;
		case 2:
			cqe = chance(50) ? 0 : -1;
			must_fail = 1;
			break;
		default:
			cqe = (int)rrange(1, 512);
			break;
		}
	}
	if (chance(40))
		PICK_LIVE(NCH, c->ch[i_].ch != NULL, h);
	if (chance(10))
		vec = chance(50) ? (int)rn(4) : 1000;
	cur_op = "ibv_create_cq";
	cq = ibv_create_cq(c->ctx, cqe, NULL, h >= 0 ? c->ch[h].ch : NULL, vec);
	count(!cq);
	opl("ctx %d: ibv_create_cq %d cqe %d channel %d vector %d -> %s (granted %d)",
	    ci, k, cqe, h, vec, cq ? "ok" : strerror(errno), cq ? cq->cqe : 0);
	if (cq && must_fail)
		fail("ibv_create_cq with cqe %d (device max_cqe %d) succeeded", cqe,
		     dattr.max_cqe);
	if (!cq)
		return -1;
	if (cq->cqe < cqe)
		fail("ibv_create_cq: %d entries granted for %d asked", cq->cqe, cqe);
	c->cq[k].cq = cq;
	c->cq[k].ch = h;
	c->cq[k].overflow_ok = 0;
	c->cq[k].err = 0;
	ring_bytes += (uint64_t)cq->cqe * 64;
	if (h >= 0 && chance(70)) {
		cur_op = "ibv_req_notify_cq";
		count(ibv_req_notify_cq(cq, (int)rn(2)));
	}
	return k;
}

static int cq_destroy(int ci, int k)
{
	struct ctx *c = &C[ci];
	int busy = cq_in_use(c, k), ret;

	if (!busy)
		poll_cq(ci, k, 1000);	/* nothing of a live WR may be lost */
	cur_op = "ibv_destroy_cq";
	ret = ibv_destroy_cq(c->cq[k].cq);
	count(ret);
	opl("ctx %d: ibv_destroy_cq %d (%s) -> %s", ci, k, busy ? "in use" : "unused",
	    ret ? strerror(ret) : "ok");
	if (busy && !ret) {
		fail("ibv_destroy_cq of a CQ that a QP still uses succeeded");
		dump_oplog();
		exit(1);
	}
	if (!busy && ret)
		fail("ibv_destroy_cq of an unused CQ: %s", strerror(ret));
	if (!ret) {
		uint64_t b = (uint64_t)c->cq[k].cq->cqe * 64;

		ring_bytes = ring_bytes > b ? ring_bytes - b : 0;
		memset(&c->cq[k], 0, sizeof(c->cq[k]));
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* SRQs                                                                 */

static void op_srq_create(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_srq_init_attr a;
	int s, p = pick_pd(c), must_fail = 0;

	PICK_FREE(NSRQ, c->srq[i_].srq != NULL, s);
	if (s < 0 || p < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.attr.max_wr = chance(80) ? rrange(1, 128) : rrange(1, dattr.max_srq_wr);
	a.attr.max_sge = chance(80) ? rrange(1, 4) : rrange(0, (uint32_t)dattr.max_srq_sge);
	a.attr.srq_limit = chance(70) ? 0 : rn(a.attr.max_wr + 2);
	if (chance(8)) {
		a.attr.max_wr = (uint32_t)dattr.max_srq_wr + 1;
		must_fail = 1;
	} else if (chance(5)) {
		a.attr.max_sge = (uint32_t)dattr.max_srq_sge + 1;
		must_fail = 1;
	}
	if (!must_fail && (uint64_t)a.attr.max_wr * (16 + 16 * a.attr.max_sge) * 2 +
	    ring_bytes > MAX_RING_BYTES)
		a.attr.max_wr = 64;
	cur_op = "ibv_create_srq";
	c->srq[s].srq = ibv_create_srq(c->pd[p], &a);
	count(!c->srq[s].srq);
	opl("ctx %d: ibv_create_srq %d pd %d max_wr %u max_sge %u limit %u -> %s",
	    ci, s, p, a.attr.max_wr, a.attr.max_sge, a.attr.srq_limit,
	    c->srq[s].srq ? "ok" : strerror(errno));
	if (c->srq[s].srq && must_fail)
		fail("ibv_create_srq above the device's max_srq_wr/max_srq_sge succeeded");
	if (!c->srq[s].srq)
		return;
	c->srq[s].pd = p;
	c->srq[s].max_wr = a.attr.max_wr;
	c->srq[s].max_sge = a.attr.max_sge;
	c->srq[s].out = 0;
	c->srq[s].err = 0;
	ring_bytes += (uint64_t)a.attr.max_wr * (16 + 16 * a.attr.max_sge) * 2;
}

static void srq_recs_dead(int ci, int s)
{
	int i;

	for (i = 0; i < NREC; i++)
		if (recs[i].state == R_LIVE && recs[i].kind == K_SRQ &&
		    recs[i].ctx == ci && recs[i].slot == s)
			rec_kill(i);
	C[ci].srq[s].out = 0;
}

static int srq_destroy(int ci, int s)
{
	struct ctx *c = &C[ci];
	int busy = srq_in_use(c, s), ret;

	cur_op = "ibv_destroy_srq";
	ret = ibv_destroy_srq(c->srq[s].srq);
	count(ret);
	opl("ctx %d: ibv_destroy_srq %d (%s) -> %s", ci, s,
	    busy ? "QPs attached" : "unused", ret ? strerror(ret) : "ok");
	if (busy && !ret) {
		fail("ibv_destroy_srq with QPs attached succeeded");
		dump_oplog();
		exit(1);
	}
	if (!busy && ret)
		fail("ibv_destroy_srq of an SRQ without QPs: %s", strerror(ret));
	if (!ret) {
		uint64_t b = (uint64_t)c->srq[s].max_wr * (16 + 16 * c->srq[s].max_sge) * 2;

		srq_recs_dead(ci, s);
		ring_bytes = ring_bytes > b ? ring_bytes - b : 0;
		memset(&c->srq[s], 0, sizeof(c->srq[s]));
	}
	return ret;
}

static void op_srq_modify(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_srq_attr a;
	int s, mask = 0, ret;

	PICK_LIVE(NSRQ, c->srq[i_].srq != NULL, s);
	if (s < 0)
		return;
	memset(&a, 0, sizeof(a));
	if (chance(30)) {
		cur_op = "ibv_query_srq";
		ret = ibv_query_srq(c->srq[s].srq, &a);
		count(ret);
		opl("ctx %d: ibv_query_srq %d -> %s max_wr %u limit %u", ci, s,
		    ret ? strerror(ret) : "ok", a.max_wr, a.srq_limit);
		if (!ret && a.max_wr < c->srq[s].max_wr)
			fail("ibv_query_srq: max_wr %u below the %u granted", a.max_wr,
			     c->srq[s].max_wr);
		return;
	}
	if (chance(80)) {
		mask |= IBV_SRQ_LIMIT;
		a.srq_limit = chance(80) ? rn(c->srq[s].max_wr + 1) : (uint32_t)r64();
	}
	if (chance(20)) {
		mask |= IBV_SRQ_MAX_WR;
		a.max_wr = rn(dattr.max_srq_wr * 2u);
	}
	if (chance(5))
		mask |= 1 << rrange(2, 31);
	cur_op = "ibv_modify_srq";
	ret = ibv_modify_srq(c->srq[s].srq, &a, mask);
	count(ret);
	opl("ctx %d: ibv_modify_srq %d mask 0x%x limit %u max_wr %u -> %s", ci, s,
	    mask, a.srq_limit, a.max_wr, ret ? strerror(ret) : "ok");
}

/* ------------------------------------------------------------------ */
/* AHs                                                                  */

static union ibv_gid peer_gid;
static int peer_ready;

static void rand_gid(union ibv_gid *g)
{
	uint32_t v = rn(100);

	if (v < 50) {
		*g = my_gid;
	} else if (v < 80) {
		*g = peer_ready ? peer_gid : my_gid;
	} else if (v < 83) {
		/* An address in the same subnet nobody has: resolution times out. */
		*g = my_gid;
		g->raw[15] = (uint8_t)rrange(100, 250);
	} else {
		g->global.subnet_prefix = r64();
		g->global.interface_id = r64();
	}
}

static void op_ah_create(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_ah_attr a;
	int h, p = pick_pd(c);
	struct ibv_ah *ah;

	PICK_FREE(NAH, c->ah[i_].ah != NULL, h);
	if (h < 0 || p < 0)
		return;
	memset(&a, 0, sizeof(a));
	a.is_global = chance(95);
	rand_gid(&a.grh.dgid);
	a.grh.sgid_index = chance(90) ? (uint8_t)o.gid_idx : (uint8_t)rn(256);
	a.grh.hop_limit = chance(80) ? 64 : (uint8_t)rn(256);
	a.grh.traffic_class = chance(80) ? 0 : (uint8_t)rn(256);
	a.grh.flow_label = chance(90) ? 0 : (uint32_t)r64();
	a.port_num = chance(95) ? 1 : (uint8_t)rn(4);
	a.dlid = (uint16_t)rn(3);
	a.sl = chance(90) ? 0 : (uint8_t)rn(16);
	a.static_rate = chance(90) ? 0 : (uint8_t)rn(20);
	cur_op = "ibv_create_ah";
	ah = ibv_create_ah(c->pd[p], &a);
	count(!ah);
	opl("ctx %d: ibv_create_ah %d pd %d global %d sgid %u port %u -> %s", ci, h,
	    p, a.is_global, a.grh.sgid_index, a.port_num, ah ? "ok" : strerror(errno));
	if (!ah)
		return;
	c->ah[h].ah = ah;
	c->ah[h].pd = p;
	c->ah[h].dgid = a.grh.dgid;
}

static void ah_destroy(int ci, int h)
{
	struct ctx *c = &C[ci];
	int ret;

	cur_op = "ibv_destroy_ah";
	ret = ibv_destroy_ah(c->ah[h].ah);
	count(ret);
	opl("ctx %d: ibv_destroy_ah %d -> %s", ci, h, ret ? strerror(ret) : "ok");
	if (ret)
		fail("ibv_destroy_ah: %s", strerror(ret));
	else
		memset(&c->ah[h], 0, sizeof(c->ah[h]));
}

/* ------------------------------------------------------------------ */
/* QPs                                                                  */

static uint32_t rand_wr(uint32_t max)
{
	switch (rn(12)) {
	case 0:
		return max;
	case 1:
		return rrange(64, 1024);
	case 2:
		return 0;
	default:
		return rrange(1, 32);
	}
}

static uint64_t qp_bytes(const struct ibv_qp_cap *cap, int has_rq)
{
	uint64_t sq = (uint64_t)cap->max_send_wr *
		      (64 + (cap->max_send_sge * 16 > cap->max_inline_data ?
			     cap->max_send_sge * 16 : cap->max_inline_data));
	uint64_t rq = has_rq ? (uint64_t)cap->max_recv_wr * (16 + 16 * cap->max_recv_sge) : 0;

	return 2 * (sq + rq);	/* ring and kernel copy */
}

/* A CQ of ctx ci with room for 'need' more CQEs, created if needed. */
static int cq_with_room(int ci, uint32_t need)
{
	struct ctx *c = &C[ci];
	int k, start = (int)rn(NCQ), j;

	for (j = 0; j < NCQ; j++) {
		k = (start + j) % NCQ;
		if (c->cq[k].cq && !c->cq[k].overflow_ok && !c->cq[k].err &&
		    cq_need(c, k) + need <= (uint32_t)c->cq[k].cq->cqe)
			return k;
	}
	return cq_create(ci, (int)need);
}

/* Creates a QP; its index or -1. type -1: random. */
static int qp_create(int ci, int type)
{
	struct ctx *c = &C[ci];
	struct ibv_qp_init_attr a;
	int q, p = pick_pd(c), s = -1, must_fail = 0, scq, rcq;
	uint32_t sneed, rneed;
	struct ibv_qp *qp;

	PICK_FREE(NQP, c->qp[i_].qp != NULL, q);
	if (q < 0)
		return -1;
	if (p < 0) {
		op_pd_alloc(ci);
		p = pick_pd(c);
		if (p < 0)
			return -1;
	}
	memset(&a, 0, sizeof(a));
	if (type >= 0) {
		a.qp_type = (enum ibv_qp_type)type;
	} else {
		uint32_t t = rn(100);

		a.qp_type = t < 60 ? IBV_QPT_RC : t < 80 ? IBV_QPT_UD : IBV_QPT_UC;
		if (chance(3))	/* a type the device does not have */
			a.qp_type = chance(50) ? IBV_QPT_RAW_PACKET : IBV_QPT_XRC_SEND;
	}
	a.cap.max_send_wr = rand_wr((uint32_t)dattr.max_qp_wr);
	a.cap.max_recv_wr = rand_wr((uint32_t)dattr.max_qp_wr);
	a.cap.max_send_sge = chance(85) ? rrange(1, 4) : rrange(0, (uint32_t)dattr.max_sge);
	a.cap.max_recv_sge = chance(85) ? rrange(1, 4) : rrange(0, (uint32_t)dattr.max_sge);
	a.cap.max_inline_data = chance(50) ? 0 : chance(80) ? rrange(1, 128) : 512;
	a.sq_sig_all = chance(25);
	switch (rn(25)) {
	case 0:
		a.cap.max_send_wr = (uint32_t)dattr.max_qp_wr + 1;
		must_fail = 1;
		break;
	case 1:
		a.cap.max_send_sge = (uint32_t)dattr.max_sge + 1;
		must_fail = 1;
		break;
	case 2:
		a.cap.max_recv_wr = (uint32_t)dattr.max_qp_wr + rn(1000) + 1;
		must_fail = 1;
		break;
	default:
		break;
	}
	if (!must_fail && qp_bytes(&a.cap, 1) + ring_bytes > MAX_RING_BYTES) {
		a.cap.max_send_wr = rrange(1, 32);
		a.cap.max_recv_wr = rrange(1, 32);
		a.cap.max_send_sge = rrange(1, 4);
		a.cap.max_recv_sge = rrange(1, 4);
	}
	/* UC on an SRQ: an implementation MAY refuse it (MR-UC-1). */
	if ((a.qp_type == IBV_QPT_RC || (a.qp_type == IBV_QPT_UC && chance(15))) &&
	    chance(30))
		PICK_LIVE(NSRQ, c->srq[i_].srq != NULL && !c->srq[i_].err, s);
	if (s >= 0) {
		a.srq = c->srq[s].srq;
		if (must_fail && a.cap.max_recv_wr > (uint32_t)dattr.max_qp_wr &&
		    a.cap.max_send_wr <= (uint32_t)dattr.max_qp_wr &&
		    a.cap.max_send_sge <= (uint32_t)dattr.max_sge)
			must_fail = 0;	/* the RQ caps do not count with an SRQ */
	}
	/* CQs with room for everything the fuzzer may have outstanding. */
	sneed = qlim(a.cap.max_send_wr ? a.cap.max_send_wr : 1);
	rneed = s >= 0 ? qlim(c->srq[s].max_wr) : qlim(a.cap.max_recv_wr ? a.cap.max_recv_wr : 1);
	if (must_fail) {
		sneed = POST_LIMIT;
		rneed = POST_LIMIT;
	}
	if (chance(40)) {
		scq = rcq = cq_with_room(ci, sneed + rneed);
	} else {
		scq = cq_with_room(ci, sneed);
		rcq = scq >= 0 ? cq_with_room(ci, rneed + (uint32_t)0) : -1;
		if (rcq == scq && scq >= 0 &&
		    cq_need(c, scq) + sneed + rneed > (uint32_t)c->cq[scq].cq->cqe)
			rcq = cq_create(ci, (int)rneed);
	}
	if (scq < 0 || rcq < 0)
		return -1;
	a.send_cq = c->cq[scq].cq;
	a.recv_cq = c->cq[rcq].cq;

	cur_op = "ibv_create_qp";
	qp = ibv_create_qp(c->pd[p], &a);
	count(!qp);
	opl("ctx %d: ibv_create_qp %d %s pd %d cq %d/%d srq %d caps %u/%u sge %u/%u "
	    "inline %u sig_all %d -> %s qpn 0x%x", ci, q,
	    qpt_name(a.qp_type),
	    p, scq, rcq, s, a.cap.max_send_wr, a.cap.max_recv_wr, a.cap.max_send_sge,
	    a.cap.max_recv_sge, a.cap.max_inline_data, a.sq_sig_all,
	    qp ? "ok" : strerror(errno), qp ? qp->qp_num : 0);
	if (qp && must_fail)
		fail("ibv_create_qp with capabilities above the device's limits "
		     "(max_qp_wr %d, max_sge %d) succeeded", dattr.max_qp_wr, dattr.max_sge);
	if (!qp)
		return -1;
	if (qp->qp_type != IBV_QPT_RC && qp->qp_type != IBV_QPT_UC &&
	    qp->qp_type != IBV_QPT_UD) {
		/* Another type is fine to refuse; one that exists is only destroyed. */
		cur_op = "ibv_destroy_qp";
		count(ibv_destroy_qp(qp));
		return -1;
	}
	memset(&c->qp[q], 0, sizeof(c->qp[q]));
	c->qp[q].qp = qp;
	c->qp[q].type = a.qp_type;
	c->qp[q].pd = p;
	c->qp[q].scq = scq;
	c->qp[q].rcq = rcq;
	c->qp[q].srq = s;
	c->qp[q].cap = a.cap;
	c->qp[q].sig_all = a.sq_sig_all;
	c->qp[q].st = IBV_QPS_RESET;
	c->qp[q].qpn = qp->qp_num;
	c->qp[q].gen = ++qp_gen;
	c->qp[q].psn = (uint32_t)rn(1u << 24);
	c->qp[q].qkey = chance(80) ? 0x11111111u : (uint32_t)r64() & 0x7fffffff;
	c->qp[q].t_mod = now_ms();
	fifo_init(&c->qp[q].sq);
	fifo_init(&c->qp[q].rq);
	ring_bytes += qp_bytes(&a.cap, s < 0);
	/* The granted depths bound posting; the CQ room was reserved for qlim(). */
	if (qlim(a.cap.max_send_wr) > sneed || (s < 0 && qlim(a.cap.max_recv_wr) > rneed)) {
		/* Granted more than asked: the CQ may be short; post less. */
		c->qp[q].cap.max_send_wr = sneed;
		if (s < 0)
			c->qp[q].cap.max_recv_wr = rneed;
	}
	return q;
}

static int qp_destroy(int ci, int q)
{
	struct ctx *c = &C[ci];
	struct oqp *x = &c->qp[q];
	int ret, scq = x->scq, rcq = x->rcq;
	uint64_t b = qp_bytes(&x->cap, x->srq < 0);

	cur_op = "ibv_destroy_qp";
	ret = ibv_destroy_qp(x->qp);
	count(ret);
	opl("ctx %d: ibv_destroy_qp %d qpn 0x%x (%s, %u+%u outstanding) -> %s", ci, q,
	    x->qpn, qps_name(x->st), x->sq_out, x->rq_out, ret ? strerror(ret) : "ok");
	if (ret) {
		fail("ibv_destroy_qp: %s", strerror(ret));
		return ret;
	}
	/* Its WRs are optional now; CQEs already written still come. */
	qp_recs_dead(x);
	memset(x, 0, sizeof(*x));
	x->srq = -1;
	ring_bytes = ring_bytes > b ? ring_bytes - b : 0;
	poll_cq(ci, scq, 1000);
	if (rcq != scq)
		poll_cq(ci, rcq, 1000);
	return 0;
}

/*
 * The verbs QP state machine (MR-VERBS-26; the IBTA table ib_core's
 * ib_modify_qp_is_ok() has): may a QP go from cur to nxt?
 */
static int transition_exists(int cur, int nxt, enum ibv_qp_type t)
{
	(void)t;
	switch (cur) {
	case IBV_QPS_RESET:
		return nxt == IBV_QPS_RESET || nxt == IBV_QPS_INIT;
	case IBV_QPS_INIT:
		return nxt == IBV_QPS_RESET || nxt == IBV_QPS_ERR ||
		       nxt == IBV_QPS_INIT || nxt == IBV_QPS_RTR;
	case IBV_QPS_RTR:
		return nxt == IBV_QPS_RESET || nxt == IBV_QPS_ERR || nxt == IBV_QPS_RTS;
	case IBV_QPS_RTS:
	case IBV_QPS_SQD:
		return nxt == IBV_QPS_RESET || nxt == IBV_QPS_ERR ||
		       nxt == IBV_QPS_RTS || nxt == IBV_QPS_SQD;
	case IBV_QPS_SQE:
		return nxt == IBV_QPS_RESET || nxt == IBV_QPS_ERR || nxt == IBV_QPS_RTS;
	case IBV_QPS_ERR:
		return nxt == IBV_QPS_RESET || nxt == IBV_QPS_ERR;
	default:
		return 0;
	}
}

/* The attributes a transition requires (IBTA table, as ib_core has it). */
static int required_mask(int cur, int nxt, enum ibv_qp_type t)
{
	if (cur == IBV_QPS_RESET && nxt == IBV_QPS_INIT)
		return IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       (t == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	if (cur == IBV_QPS_INIT && nxt == IBV_QPS_RTR && t != IBV_QPT_UD)
		return IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       (t == IBV_QPT_RC ? IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER : 0);
	if (cur == IBV_QPS_RTR && nxt == IBV_QPS_RTS)
		return IBV_QP_SQ_PSN | (t == IBV_QPT_RC ? IBV_QP_TIMEOUT |
			IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC : 0);
	return 0;
}

static int optional_mask(int cur, int nxt, enum ibv_qp_type t)
{
	int conn = t != IBV_QPT_UD;	/* RC and UC */

	if (cur == IBV_QPS_INIT && nxt == IBV_QPS_INIT)
		return IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       (conn ? IBV_QP_ACCESS_FLAGS : IBV_QP_QKEY);
	if (cur == IBV_QPS_INIT && nxt == IBV_QPS_RTR)
		return IBV_QP_PKEY_INDEX | (conn ? IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH :
					    IBV_QP_QKEY);
	if (nxt == IBV_QPS_RTS)
		return IBV_QP_CUR_STATE | (conn ? IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
			IBV_QP_PATH_MIG_STATE : IBV_QP_QKEY) |
		       (t == IBV_QPT_RC ? IBV_QP_MIN_RNR_TIMER : 0);
	if (nxt == IBV_QPS_SQD)
		return IBV_QP_EN_SQD_ASYNC_NOTIFY;
	return 0;
}

/* Sane attribute values for the bits of mask; bounded budgets. */
static int rnr_retry_override = -1;	/* the watchdog self-test's 7 */
static int timeout_override = -1;	/* and its 0 (no retry budget) */

static void sane_attrs(struct oqp *x, struct ibv_qp_attr *a, int mask, uint32_t dqpn,
		       const union ibv_gid *dgid, uint32_t rq_psn)
{
	if (mask & IBV_QP_PKEY_INDEX)
		a->pkey_index = 0;
	if (mask & IBV_QP_PORT)
		a->port_num = 1;
	if (mask & IBV_QP_QKEY)
		a->qkey = x->qkey;
	if (mask & IBV_QP_ACCESS_FLAGS)
		a->qp_access_flags = !chance(85) ? (unsigned int)rn(16) :
			x->type == IBV_QPT_UC ?
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE :
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	if (mask & IBV_QP_AV) {
		a->ah_attr.is_global = 1;
		a->ah_attr.grh.dgid = *dgid;
		a->ah_attr.grh.sgid_index = (uint8_t)o.gid_idx;
		a->ah_attr.grh.hop_limit = 64;
		a->ah_attr.grh.traffic_class = chance(80) ? 0 : (uint8_t)(rn(64) << 2);
		a->ah_attr.port_num = 1;
	}
	if (mask & IBV_QP_PATH_MTU)
		a->path_mtu = (enum ibv_mtu)rrange(IBV_MTU_256, port_mtu);
	if (mask & IBV_QP_DEST_QPN)
		a->dest_qp_num = dqpn;
	if (mask & IBV_QP_RQ_PSN)
		a->rq_psn = rq_psn;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = (uint8_t)rrange(1, 16);
	if (mask & IBV_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = (uint8_t)rrange(1, 20);
	if (mask & IBV_QP_SQ_PSN)
		a->sq_psn = x->psn;
	if (mask & IBV_QP_TIMEOUT)
		a->timeout = timeout_override >= 0 ? (uint8_t)timeout_override :
			     (uint8_t)rrange(10, 16);
	if (mask & IBV_QP_RETRY_CNT)
		a->retry_cnt = (uint8_t)rn(8);
	if (mask & IBV_QP_RNR_RETRY)
		a->rnr_retry = rnr_retry_override >= 0 ? (uint8_t)rnr_retry_override :
			       (uint8_t)rn(7);
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = (uint8_t)rrange(1, 16);
}

/* Does a successful modify with these attributes leave the QP's budget bounded? */
static void note_budget(struct oqp *x, const struct ibv_qp_attr *a, int mask)
{
	if ((mask & IBV_QP_TIMEOUT) && (a->timeout == 0 || a->timeout > 18))
		x->unbounded = 1;
	if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry >= 7)
		x->unbounded = 1;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic == 0)
		x->unbounded = 1;
}

/* After a successful modify to RESET the QP's WRs are gone without CQEs. */
static void after_modify(int ci, int q, int nxt)
{
	struct oqp *x = &C[ci].qp[q];
	int i;

	x->t_mod = now_ms();
	if (nxt == IBV_QPS_RESET) {
		qp_recs_dead(x);
		x->sq_err_seen = 0;
		x->fatal = 0;
		x->conn = CONN_NONE;
		x->peer_tag = 0;
		x->unbounded = 0;
		poll_cq(ci, x->scq, 1000);
		poll_cq(ci, x->rcq, 1000);
	}
	if (nxt == IBV_QPS_RTS)
		for (i = x->sq.head; i >= 0; i = recs[i].next)
			recs[i].t_post = x->t_mod;
}

/* Modify with a check of what the kernel must refuse; returns the errno. */
static int qp_modify(int ci, int q, struct ibv_qp_attr *a, int mask, const char *why)
{
	struct oqp *x = &C[ci].qp[q];
	int cur = x->st, nxt = (mask & IBV_QP_STATE) ? (int)a->qp_state : cur, ret, now;
	int exists = transition_exists(cur, nxt, x->type);
	int illegal = 0;

	/*
	 * Refusal is required only where the transition does not exist from
	 * the state the fuzzer knows nor from ERR (the kernel may have moved
	 * the QP there by itself), or a required attribute is missing.
	 */
	if ((mask & IBV_QP_STATE) && !(mask & IBV_QP_CUR_STATE) &&
	    !transition_exists(IBV_QPS_ERR, nxt, x->type)) {
		if (!exists)
			illegal = 1;
		else if (required_mask(cur, nxt, x->type) & ~mask)
			illegal = 2;
	}

	cur_op = "ibv_modify_qp";
	ret = ibv_modify_qp(x->qp, a, mask);
	count(ret);
	opl("ctx %d: ibv_modify_qp %d qpn 0x%x %s %s->%s mask 0x%x -> %s", ci, q, x->qpn,
	    why, qps_name(cur), (mask & IBV_QP_STATE) ? qps_name(nxt) : "(same)", mask,
	    ret ? strerror(ret) : "ok");
	if (!ret && illegal)
		fail("ibv_modify_qp of QP 0x%x from %s to %s%s succeeded (MR-VERBS-26)",
		     x->qpn, qps_name(cur), qps_name(nxt),
		     illegal == 2 ? " without a required attribute" : "");
	if (!ret) {
		note_budget(x, a, mask);
		if (mask & IBV_QP_STATE) {
			x->st = (enum ibv_qp_state)nxt;
			after_modify(ci, q, nxt);
			now = qp_query_state(x->qp);
			if (now >= 0 && now != nxt && now != IBV_QPS_ERR &&
			    now != IBV_QPS_SQE && !(nxt == IBV_QPS_SQD && now == IBV_QPS_RTS))
				fail("QP 0x%x: modified to %s, query says %s", x->qpn,
				     qps_name(nxt), qps_name(now));
		}
	} else if (mask & IBV_QP_STATE) {
		now = qp_query_state(x->qp);
		if (now >= 0 && now != cur && now != IBV_QPS_ERR && now != IBV_QPS_SQE &&
		    cur != IBV_QPS_SQD)
			fail("QP 0x%x: a failed modify to %s left it in %s (was %s)",
			     x->qpn, qps_name(nxt), qps_name(now), qps_name(cur));
	}
	return ret;
}

/* Sane modify through INIT, RTR, RTS towards dqpn at dgid. 0 when RTS. */
static int qp_connect(int ci, int q, uint32_t dqpn, const union ibv_gid *dgid,
		      uint32_t rq_psn, int conn)
{
	struct oqp *x = &C[ci].qp[q];
	struct ibv_qp_attr a;
	int m;

	if (x->st != IBV_QPS_RESET && x->st != IBV_QPS_INIT) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RESET;
		if (qp_modify(ci, q, &a, IBV_QP_STATE, "connect"))
			return -1;
	}
	if (x->st == IBV_QPS_RESET) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		m = IBV_QP_STATE | required_mask(IBV_QPS_RESET, IBV_QPS_INIT, x->type);
		sane_attrs(x, &a, m, 0, dgid, 0);
		if (qp_modify(ci, q, &a, m, "connect"))
			return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	m = IBV_QP_STATE | required_mask(IBV_QPS_INIT, IBV_QPS_RTR, x->type);
	sane_attrs(x, &a, m, dqpn, dgid, rq_psn);
	if (qp_modify(ci, q, &a, m, "connect"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	m = IBV_QP_STATE | required_mask(IBV_QPS_RTR, IBV_QPS_RTS, x->type);
	sane_attrs(x, &a, m, dqpn, dgid, rq_psn);
	if (qp_modify(ci, q, &a, m, "connect"))
		return -1;
	x->conn = conn;
	x->dqpn = dqpn;
	if (conn == CONN_PEER)
		st.peer_qps++;
	if (x->type == IBV_QPT_UC)
		st.uc_qps++;
	return 0;
}

/* A random modify: any target state, a mask around the right one, any values. */
static void op_qp_modify_random(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_qp_attr a;
	int q = pick_qp(c), nxt, mask, i;
	struct oqp *x;

	if (q < 0)
		return;
	x = &c->qp[q];
	memset(&a, 0, sizeof(a));
	nxt = chance(70) ? (int)rn(7) : (int)x->st + 1;
	if (nxt > IBV_QPS_ERR)
		nxt = IBV_QPS_ERR;
	a.qp_state = (enum ibv_qp_state)nxt;
	mask = IBV_QP_STATE | required_mask(x->st, nxt, x->type);
	if (chance(50))
		mask |= optional_mask(x->st, nxt, x->type) & (int)r64();
	if (chance(20))
		mask ^= 1 << rn(21);
	if (chance(3))
		mask |= IBV_QP_RATE_LIMIT | IBV_QP_CAP;
	if (chance(5))
		mask &= ~IBV_QP_STATE;
	if (mask & IBV_QP_CUR_STATE)
		a.cur_qp_state = chance(70) ? x->st : (enum ibv_qp_state)rn(8);
	if (chance(60)) {
		union ibv_gid g;

		rand_gid(&g);
		sane_attrs(x, &a, mask, (uint32_t)rn(1u << 24), &g, (uint32_t)rn(1u << 24));
		x->conn = CONN_RANDOM;
	}
	/* Then some values anywhere in their types. */
	for (i = 0; i < 3; i++) {
		if (!chance(35))
			continue;
		switch (rn(16)) {
		case 0: a.pkey_index = (uint16_t)rn(70000); break;
		case 1: a.port_num = (uint8_t)rn(256); break;
		case 2: a.path_mtu = (enum ibv_mtu)rn(9); break;
		case 3: a.timeout = (uint8_t)rn(256); break;
		case 4: a.retry_cnt = (uint8_t)rn(256); break;
		case 5: a.rnr_retry = (uint8_t)rn(256); break;
		case 6: a.max_rd_atomic = (uint8_t)rn(256); break;
		case 7: a.max_dest_rd_atomic = (uint8_t)rn(256); break;
		case 8: a.min_rnr_timer = (uint8_t)rn(256); break;
		case 9: a.dest_qp_num = (uint32_t)r64(); break;
		case 10: a.sq_psn = (uint32_t)r64(); break;
		case 11: a.qp_access_flags = (unsigned int)r64(); break;
		case 12: a.ah_attr.grh.sgid_index = (uint8_t)rn(256); break;
		case 13: a.ah_attr.is_global = (uint8_t)rn(2); break;
		case 14: a.ah_attr.grh.hop_limit = (uint8_t)rn(256);
			a.ah_attr.grh.traffic_class = (uint8_t)rn(256); break;
		default: a.cap.max_send_wr = (uint32_t)r64(); a.qkey = (uint32_t)r64(); break;
		}
	}
	qp_modify(ci, q, &a, mask, "random");
}

static void op_qp_query(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int q = pick_qp(c), mask, ret;

	if (q < 0)
		return;
	mask = chance(50) ? IBV_QP_STATE : (int)(r64() & 0x3ffffff);
	cur_op = "ibv_query_qp";
	ret = ibv_query_qp(c->qp[q].qp, &a, mask, &ia);
	count(ret);
	opl("ctx %d: ibv_query_qp %d mask 0x%x -> %s state %s", ci, q, mask,
	    ret ? strerror(ret) : "ok", ret ? "-" : qps_name(a.qp_state));
	if (!ret && (mask & IBV_QP_STATE) && a.qp_state > IBV_QPS_ERR)
		fail("ibv_query_qp: state %d", a.qp_state);
}

/* ------------------------------------------------------------------ */
/* Posting                                                              */

/* A local SGE; for inline data only readable memory with room after it. */
static void gen_sge(struct ctx *c, int pd, struct ibv_sge *s, int for_inline,
		    int need_write)
{
	int m;

	if (for_inline) {
		s->addr = (uint64_t)(uintptr_t)(zone + rn(ZONE_LEN - 4096));
		s->length = chance(80) ? rn(130) : rn(600);
		s->lkey = (uint32_t)r64();
		return;
	}
	m = pick_mr(c, pd);
	if (m < 0 || chance(2)) {
		s->addr = chance(50) ? (uint64_t)(uintptr_t)zone : r64();
		s->length = (uint32_t)rand_len(65536);
		s->lkey = (uint32_t)r64();
		return;
	}
	if (need_write && chance(80)) {
		int m2;

		PICK_LIVE(NMR, c->mr[i_].mr && c->mr[i_].pd == pd &&
			  (c->mr[i_].access & IBV_ACCESS_LOCAL_WRITE), m2);
		if (m2 >= 0)
			m = m2;
	}
	{
		const struct omr *r = &c->mr[m];
		uint64_t len = rand_len(r->len < 65536 ? r->len : 65536);
		uint64_t off = r->len > len ? (uint64_t)rn((uint32_t)(r->len - len + 1)) : 0;

		s->addr = r->iova + off;
		s->length = (uint32_t)len;
		s->lkey = r->mr->lkey;
		/* Mostly valid: a bad SGE puts the QP in ERR and flushes the rest. */
		switch (rn(100)) {
		case 0:
			s->length = 0;
			break;
		case 1:	/* runs past the end */
			s->addr = r->iova + r->len - 1;
			s->length = 2 + rn(64);
			break;
		case 2:	/* starts before */
			s->addr = r->iova - 1 - rn(64);
			break;
		case 3:
			s->length = 0x80000000u;
			break;
		case 4:
			s->length = 0x7fffffffu;
			break;
		case 5:
			s->length = 0xffffffffu;
			break;
		case 6:	/* wraps 2^64 */
			s->addr = 0ULL - rn(4096) - 1;
			break;
		case 7:
			s->lkey = r->mr->lkey ^ (1u << rn(32));
			break;
		default:
			break;
		}
	}
}

/* Remote target of an RDMA or atomic WR on QP x: address and rkey. */
struct peer_mr {
	uint64_t iova, len;
	uint32_t rkey;
};

static struct peer_mr peer_mrs[NPEER_MR];
static int npeer_mrs;

/* One of the peer's advertised targets (npeer_mrs > 0). */
static const struct peer_mr *peer_mr_pick(void)
{
	return &peer_mrs[rn((uint32_t)(npeer_mrs < NPEER_MR ? npeer_mrs : NPEER_MR))];
}

static void gen_remote(struct oqp *x, uint64_t len, int atomic, uint64_t *raddr,
		       uint32_t *rkey)
{
	uint64_t base = 0, rlen = 0;
	uint32_t key = (uint32_t)r64();
	int c, m = -1;

	if (x->conn == CONN_PEER && npeer_mrs && chance(90)) {
		const struct peer_mr *p = peer_mr_pick();

		base = p->iova;
		rlen = p->len;
		key = p->rkey;
	} else if (chance(90)) {
		c = nlive_ctx() > 1 && chance(20) ? 1 : 0;
		if (C[c].ctx)
			m = pick_mr(&C[c], -1);
		if (m >= 0) {
			base = C[c].mr[m].iova;
			rlen = C[c].mr[m].len;
			key = C[c].mr[m].mr->rkey;
		}
	}
	if (rlen >= len)
		*raddr = base + rn((uint32_t)(rlen - len + 1));
	else
		*raddr = base;
	if (atomic)
		*raddr &= ~7ULL;
	*rkey = key;
	switch (rn(50)) {
	case 0:
		if (!o.skip_known_inputs)
			*raddr = 0ULL - 256;	/* wraps 2^64 with any length over 256 */
		break;
	case 1:
		if (!o.skip_known_inputs)
			*raddr = atomic ? 0x1001 : r64();
		break;
	case 2:
		*raddr = base + rlen;		/* just past the end */
		break;
	case 3:
		*rkey = (uint32_t)r64();
		break;
	case 4:
		if (atomic && !o.skip_known_inputs)
			*raddr |= rrange(1, 7);
		break;
	default:
		break;
	}
	if (o.skip_known_inputs) {
		/* The known cases' inputs stay out, whatever was picked above. */
		if (atomic)
			*raddr &= ~7ULL;
		if (*raddr + len < *raddr)
			*raddr = base;
	}
}

struct peer_ud {
	uint32_t qpn, qkey;
};

static struct peer_ud peer_uds[NPEER_UD];
static int npeer_uds;

/*
 * RC opcodes, weighted: SEND_WITH_INV of a random rkey always fails the
 * QP, so it is rarer than the opcodes that can carry data.
 */
static const int rc_ops[] = {
	IBV_WR_SEND, IBV_WR_SEND, IBV_WR_SEND, IBV_WR_SEND, IBV_WR_SEND,
	IBV_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM,
	IBV_WR_RDMA_READ, IBV_WR_RDMA_READ, IBV_WR_RDMA_READ,
	IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	IBV_WR_SEND_WITH_INV,
};
#define N_RC_OPS ((uint32_t)(sizeof(rc_ops) / sizeof(rc_ops[0])))

/* UC opcodes (MR-UC-1); the others are posted now and then, to be refused. */
static const int uc_ops[] = {
	IBV_WR_SEND, IBV_WR_SEND, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM,
};
#define N_UC_OPS ((uint32_t)(sizeof(uc_ops) / sizeof(uc_ops[0])))

/* Record ri: a send WR posted (live) or not (dead) on QP q of ctx ci. */
static void send_rec(int ci, int q, int ri, int opcode, int signaled, int posted)
{
	struct oqp *x = &C[ci].qp[q];
	struct rec *r = &recs[ri];

	r->kind = K_SEND;
	r->ctx = (uint8_t)ci;
	r->slot = (uint8_t)q;
	r->cq = (uint8_t)x->scq;
	r->gen = x->gen;
	r->qpn = x->qpn;
	r->opcode = opcode;
	r->signaled = signaled || x->sig_all;
	r->t_post = now_ms();
	if (!posted) {
		r->state = R_DEAD;
		return;
	}
	r->state = R_LIVE;
	n_live++;
	fifo_push(&x->sq, ri);
	x->sq_out++;
	st.wrs++;
}

/*
 * The R_Key a SEND_WITH_INV names: mostly a window's or a region's key the
 * receiving side has (the peer's, advertised, or one of this context's
 * for a loopback QP), so that remote invalidation (MR-MW-5) is reached,
 * also on windows bound to other QPs; else any key.
 */
static uint32_t inv_key(struct ctx *c, const struct oqp *x)
{
	int w;

	if (x->conn == CONN_PEER && npeer_mrs && chance(60))
		return peer_mr_pick()->rkey;
	if (x->conn == CONN_LOOP && chance(60)) {
		PICK_LIVE(NMW, c->mw[i_].mw != NULL, w);
		if (w >= 0)
			return c->mw[w].rkey;
	}
	return (uint32_t)r64();
}

static void op_post_send(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_send_wr wr[8], *bad = NULL;
	struct ibv_sge sge[8][8];
	int rix[8];
	int q = pick_qp(c), n, i, j, ret, posted;
	struct oqp *x;

	if (q < 0)
		return;
	x = &c->qp[q];
	n = chance(70) ? 1 : (int)rrange(2, 8);
	if (x->sq_out + (uint32_t)n > qlim(x->cap.max_send_wr) ||
	    c->cq[x->scq].overflow_ok)
		return;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		struct ibv_send_wr *w = &wr[i];
		uint64_t total = 0;
		int atomic, nsge;

		rix[i] = rec_alloc();
		if (rix[i] < 0)
			return;
		w->wr_id = recs[rix[i]].id;
		w->next = i + 1 < n ? &wr[i + 1] : NULL;
		if (x->type == IBV_QPT_UD)
			w->opcode = chance(90) ? (chance(50) ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM) :
				    (enum ibv_wr_opcode)rc_ops[rn(N_RC_OPS)];
		else if (x->type == IBV_QPT_UC)
			w->opcode = (enum ibv_wr_opcode)(chance(92) ? uc_ops[rn(N_UC_OPS)] :
							 rc_ops[rn(N_RC_OPS)]);
		else
			w->opcode = (enum ibv_wr_opcode)rc_ops[rn(N_RC_OPS)];
		if (chance(2))
			w->opcode = (enum ibv_wr_opcode)rn(20);
		w->send_flags = chance(70) ? IBV_SEND_SIGNALED : 0;
		if (chance(15))
			w->send_flags |= IBV_SEND_FENCE;
		if (chance(15))
			w->send_flags |= IBV_SEND_SOLICITED;
		if (chance(20))
			w->send_flags |= IBV_SEND_INLINE;
		if (chance(2))
			w->send_flags |= 1u << rrange(4, 31);
		atomic = w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
			 w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
		nsge = (int)(chance(80) ? rrange(atomic ? 1 : 0, x->cap.max_send_sge ?
							   x->cap.max_send_sge : 1) :
			     rn(x->cap.max_send_sge + 2));
		if (nsge > 8)
			nsge = 8;
		for (j = 0; j < nsge; j++) {
			gen_sge(c, x->pd, &sge[i][j], !!(w->send_flags & IBV_SEND_INLINE),
				w->opcode == IBV_WR_RDMA_READ || atomic);
			if (atomic && chance(90)) {
				sge[i][j].length = 8;
				sge[i][j].addr &= ~7ULL;
			}
			total += sge[i][j].length;
		}
		w->sg_list = sge[i];
		w->num_sge = nsge;
		w->imm_data = (uint32_t)r64();
		if (w->opcode == IBV_WR_SEND_WITH_INV)
			w->invalidate_rkey = inv_key(c, x);
		if (x->type == IBV_QPT_UD) {
			int h, cc = ci;

			if (nlive_ctx() > 1 && chance(5))
				cc = 1 - ci;	/* an AH of another context: a foreign ah_num */
			PICK_LIVE(NAH, C[cc].ah[i_].ah != NULL, h);
			if (h < 0) {
				w->wr.ud.ah = NULL;
				return;	/* the provider would refuse a NULL AH anyway */
			}
			w->wr.ud.ah = C[cc].ah[h].ah;
			switch (rn(6)) {
			case 0:
				w->wr.ud.remote_qpn = 1;	/* the GSI QP */
				w->wr.ud.remote_qkey = chance(50) ? 0x80010000u : (uint32_t)r64();
				break;
			case 1:
				w->wr.ud.remote_qpn = (uint32_t)r64() & 0xffffff;
				w->wr.ud.remote_qkey = (uint32_t)r64();
				break;
			case 2:
				if (npeer_uds) {
					const struct peer_ud *p = &peer_uds[rn((uint32_t)(
						npeer_uds < NPEER_UD ? npeer_uds : NPEER_UD))];

					w->wr.ud.remote_qpn = p->qpn;
					w->wr.ud.remote_qkey = p->qkey;
					break;
				}
				/* fall through */
			default: {
				int u;

				PICK_LIVE(NQP, c->qp[i_].qp && c->qp[i_].type == IBV_QPT_UD, u);
				w->wr.ud.remote_qpn = u >= 0 ? c->qp[u].qpn : 0;
				w->wr.ud.remote_qkey = u >= 0 ? c->qp[u].qkey : 0;
				break;
			}
			}
		} else if (atomic) {
			gen_remote(x, 8, 1, &w->wr.atomic.remote_addr, &w->wr.atomic.rkey);
			w->wr.atomic.compare_add = r64();
			w->wr.atomic.swap = r64();
		} else {
			gen_remote(x, total, 0, &w->wr.rdma.remote_addr, &w->wr.rdma.rkey);
		}
	}

	cur_op = "ibv_post_send";
	ret = ibv_post_send(x->qp, wr, &bad);
	count(ret);
	posted = n;
	if (ret) {
		for (posted = 0; posted < n && &wr[posted] != bad; posted++)
			;
		if (posted == n)
			posted = 0;	/* bad_wr not in the list: nothing posted */
	}
	opl("ctx %d: ibv_post_send qp %d 0x%x (%s) %d WR(s) op %d flags 0x%x sge %d "
	    "len %u raddr 0x%" PRIx64 " -> %s, %d posted", ci, q, x->qpn, qps_name(x->st),
	    n, wr[0].opcode, wr[0].send_flags, wr[0].num_sge,
	    wr[0].num_sge > 0 ? sge[0][0].length : 0, wr[0].wr.rdma.remote_addr,
	    ret ? strerror(ret) : "ok", posted);
	/* The bad WR may be in the ring already (a failed doorbell): optional. */
	for (i = 0; i < n; i++)
		send_rec(ci, q, rix[i], wr[i].opcode,
			 !!(wr[i].send_flags & IBV_SEND_SIGNALED), i < posted);
}

static void op_post_recv(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_recv_wr wr[8], *bad = NULL;
	struct ibv_sge sge[8][8];
	int rix[8];
	int q = -1, s = -1, n, i, j, ret, posted, pd, maxsge;
	uint32_t room;

	if (chance(30))
		PICK_LIVE(NSRQ, c->srq[i_].srq != NULL, s);
	if (s < 0) {
		q = pick_qp(c);
		if (q < 0)
			return;
		if (c->qp[q].srq >= 0 && chance(80)) {
			s = c->qp[q].srq;
			q = -1;
		}
	}
	n = chance(60) ? 1 : (int)rrange(2, 8);
	if (s >= 0) {
		room = qlim(c->srq[s].max_wr) - c->srq[s].out;
		pd = c->srq[s].pd;
		maxsge = (int)c->srq[s].max_sge;
	} else {
		room = c->qp[q].srq >= 0 ? 8 :
		       qlim(c->qp[q].cap.max_recv_wr) - c->qp[q].rq_out;
		pd = c->qp[q].pd;
		maxsge = (int)c->qp[q].cap.max_recv_sge;
		if (c->cq[c->qp[q].rcq].overflow_ok)
			return;
	}
	if ((uint32_t)n > room)
		return;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		int nsge = chance(85) ? (int)rrange(maxsge ? 1 : 0, maxsge ? (uint32_t)maxsge : 1) :
			   (int)rn((uint32_t)maxsge + 2);

		if (nsge > 8)
			nsge = 8;
		rix[i] = rec_alloc();
		if (rix[i] < 0)
			return;
		wr[i].wr_id = recs[rix[i]].id;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		for (j = 0; j < nsge; j++)
			gen_sge(c, pd, &sge[i][j], 0, 1);
		wr[i].sg_list = sge[i];
		wr[i].num_sge = nsge;
	}
	if (s >= 0) {
		cur_op = "ibv_post_srq_recv";
		ret = ibv_post_srq_recv(c->srq[s].srq, wr, &bad);
	} else {
		cur_op = "ibv_post_recv";
		ret = ibv_post_recv(c->qp[q].qp, wr, &bad);
	}
	count(ret);
	posted = n;
	if (ret) {
		for (posted = 0; posted < n && &wr[posted] != bad; posted++)
			;
		if (posted == n)
			posted = 0;
	}
	opl("ctx %d: %s %s %d %d WR(s) sge %d -> %s, %d posted", ci,
	    s >= 0 ? "ibv_post_srq_recv" : "ibv_post_recv", s >= 0 ? "srq" : "qp",
	    s >= 0 ? s : q, n, wr[0].num_sge, ret ? strerror(ret) : "ok", posted);
	if (s < 0 && c->qp[q].srq >= 0 && !ret)
		fail("ibv_post_recv on a QP attached to an SRQ succeeded");
	for (i = 0; i < n; i++) {
		struct rec *r = &recs[rix[i]];

		r->ctx = (uint8_t)ci;
		r->t_post = now_ms();
		if (i >= posted) {
			r->state = R_DEAD;
			continue;
		}
		r->state = R_LIVE;
		n_live++;
		st.wrs++;
		if (s >= 0) {
			r->kind = K_SRQ;
			r->slot = (uint8_t)s;
			r->cq = 0xff;	/* any CQ of a QP attached to the SRQ */
			c->srq[s].out++;
		} else {
			r->kind = K_RECV;
			r->slot = (uint8_t)q;
			r->cq = (uint8_t)c->qp[q].rcq;
			r->gen = c->qp[q].gen;
			r->qpn = c->qp[q].qpn;
			fifo_push(&c->qp[q].rq, rix[i]);
			c->qp[q].rq_out++;
		}
	}
}

/* ------------------------------------------------------------------ */
/* The peer VM: a TCP control channel, one text line per message        */

static int cfd = -1;
static char cbuf[8192];
static size_t clen;
static int peer_tag_ctr;
static int draining;		/* this side is ending: no new connections */
static int peer_ended;
static int peer_gone;

static void ctl_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ctl_send(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;
	ssize_t w;
	size_t off = 0;

	if (cfd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		return;
	line[n++] = '\n';
	while (off < (size_t)n) {
		w = send(cfd, line + off, (size_t)n - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			opl("control channel: send: %s (peer gone)", strerror(errno));
			close(cfd);
			cfd = -1;
			peer_gone = 1;
			return;
		}
		off += (size_t)w;
	}
}

static void gid_hex(const union ibv_gid *g, char *buf)
{
	int i;

	for (i = 0; i < 16; i++)
		sprintf(buf + 2 * i, "%02x", g->raw[i]);
}

static int hex_gid(const char *s, union ibv_gid *g)
{
	unsigned int v;
	int i;

	if (strlen(s) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		g->raw[i] = (uint8_t)v;
	}
	return 0;
}

/* A region or window of ctx 0 the peer may target, if it grants remote access. */
static void peer_advertise(uint64_t addr, uint64_t len, uint32_t rkey, int access)
{
	if (!peer_ready || !(access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_ATOMIC)))
		return;
	ctl_send("M %" PRIu64 " %" PRIu64 " %u", addr, len, rkey);
}

static void peer_advertise_mr(const struct omr *m)
{
	peer_advertise(m->iova, m->len, m->mr->rkey, m->access);
}

/* The peer asks for a QP of type t connected to its QP rqpn (PSN rpsn). */
static void peer_accept(int tag, uint32_t rqpn, uint32_t rpsn, enum ibv_qp_type t)
{
	int q = qp_create(0, t), i;

	if (q < 0) {
		ctl_send("N %d", tag);
		return;
	}
	if (qp_connect(0, q, rqpn, &peer_gid, rpsn, CONN_PEER)) {
		ctl_send("N %d", tag);
		return;
	}
	ctl_send("A %d %u %u", tag, C[0].qp[q].qpn, C[0].qp[q].psn);
	for (i = 0; i < 4; i++)
		op_post_recv(0);
}

static void peer_line(char *l)
{
	unsigned long long a, b;
	unsigned int x, y;
	char gid[80], t;
	int tag, ci, q;

	switch (l[0]) {
	case 'H':
		if (sscanf(l, "H %79s", gid) == 1 && !hex_gid(gid, &peer_gid))
			peer_ready = 1;
		break;
	case 'M':
		if (sscanf(l, "M %llu %llu %u", &a, &b, &x) == 3) {
			struct peer_mr *p = &peer_mrs[npeer_mrs++ % NPEER_MR];

			p->iova = a;
			p->len = b;
			p->rkey = x;
		}
		break;
	case 'U':
		if (sscanf(l, "U %u %u", &x, &y) == 2) {
			peer_uds[npeer_uds % NPEER_UD].qpn = x;
			peer_uds[npeer_uds % NPEER_UD].qkey = y;
			npeer_uds++;
		}
		break;
	case 'C':
		if (sscanf(l, "C %d %u %u %c", &tag, &x, &y, &t) != 4 || (t != 'R' && t != 'U'))
			break;
		if (peer_ready && !peer_ended && !draining)
			peer_accept(tag, x, y, t == 'U' ? IBV_QPT_UC : IBV_QPT_RC);
		else
			ctl_send("N %d", tag);
		break;
	case 'A':
		if (sscanf(l, "A %d %u %u", &tag, &x, &y) != 3 || draining)
			break;
		for (ci = 0; ci < NCTX; ci++)
			for (q = 0; q < NQP; q++) {
				struct oqp *z = &C[ci].qp[q];

				if (C[ci].ctx && z->qp && z->peer_tag == tag &&
				    z->st == IBV_QPS_INIT) {
					z->peer_tag = 0;
					qp_connect(ci, q, x, &peer_gid, y, CONN_PEER);
				}
			}
		break;
	case 'N':
		break;
	case 'E':
		peer_ended = 1;
		break;
	default:
		break;
	}
}

static void ctl_poll(void)
{
	ssize_t n;
	char *nl;

	if (cfd < 0)
		return;
	for (;;) {
		n = recv(cfd, cbuf + clen, sizeof(cbuf) - 1 - clen, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			break;
		if (n <= 0) {
			opl("control channel closed by the peer");
			close(cfd);
			cfd = -1;
			peer_gone = 1;
			peer_ended = 1;
			break;
		}
		clen += (size_t)n;
		cbuf[clen] = 0;
		while ((nl = strchr(cbuf, '\n'))) {
			*nl = 0;
			cur_op = "peer message";
			peer_line(cbuf);
			memmove(cbuf, nl + 1, clen - (size_t)(nl + 1 - cbuf) + 1);
			clen -= (size_t)(nl + 1 - cbuf);
		}
		if (clen >= sizeof(cbuf) - 1)
			clen = 0;	/* a line that long is garbage */
	}
}

static void ctl_setup(void)
{
	long end = now_ms() + (long)o.connect_timeout * 1000;
	char gid[40];
	int one = 1;

	if (o.listen) {
		struct sockaddr_in6 sa;
		int lfd = socket(AF_INET6, SOCK_STREAM, 0), zero = 0;
		struct pollfd pf;

		if (lfd < 0)
			die2("socket: %s", strerror(errno));
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		memset(&sa, 0, sizeof(sa));
		sa.sin6_family = AF_INET6;
		sa.sin6_port = htons((uint16_t)o.port);
		sa.sin6_addr = in6addr_any;
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
			die2("listen on port %d: %s", o.port, strerror(errno));
		pf.fd = lfd;
		pf.events = POLLIN;
		while (poll(&pf, 1, 1000) <= 0)
			if (now_ms() > end)
				die2("no peer connected within %d s", o.connect_timeout);
		cfd = accept(lfd, NULL, NULL);
		close(lfd);
		if (cfd < 0)
			die2("accept: %s", strerror(errno));
	} else {
		struct addrinfo hints, *res = NULL;
		char port[16];

		memset(&hints, 0, sizeof(hints));
		hints.ai_socktype = SOCK_STREAM;
		snprintf(port, sizeof(port), "%d", o.port);
		if (getaddrinfo(o.peer, port, &hints, &res) || !res)
			die2("cannot resolve %s", o.peer);
		for (;;) {
			cfd = socket(res->ai_family, SOCK_STREAM, 0);
			if (cfd >= 0 && !connect(cfd, res->ai_addr, res->ai_addrlen))
				break;
			if (cfd >= 0)
				close(cfd);
			cfd = -1;
			if (now_ms() > end)
				die2("could not connect to %s port %d within %d s", o.peer,
				     o.port, o.connect_timeout);
			usleep(300000);
		}
		freeaddrinfo(res);
	}
	setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	gid_hex(&my_gid, gid);
	ctl_send("H %s", gid);
	end = now_ms() + (long)o.connect_timeout * 1000;
	while (!peer_ready && cfd >= 0 && now_ms() < end) {
		ctl_poll();
		usleep(10000);
	}
	if (!peer_ready)
		die2("no hello from the peer");
	out("control channel to the peer up");
}

/* Ask the peer for a QP connected to one of ours (RESET or INIT, RC or UC). */
static void op_peer_connect(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_qp_attr a;
	enum ibv_qp_type t = chance(20) ? IBV_QPT_UC : IBV_QPT_RC;
	int q, m;

	if (!peer_ready || peer_gone || peer_ended)
		return;
	PICK_LIVE(NQP, c->qp[i_].qp && c->qp[i_].type == t &&
		  (c->qp[i_].st == IBV_QPS_RESET || c->qp[i_].st == IBV_QPS_INIT) &&
		  !c->qp[i_].peer_tag, q);
	if (q < 0) {
		q = qp_create(ci, t);
		if (q < 0)
			return;
	}
	if (c->qp[q].st == IBV_QPS_RESET) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		m = IBV_QP_STATE | required_mask(IBV_QPS_RESET, IBV_QPS_INIT, t);
		sane_attrs(&c->qp[q], &a, m, 0, &peer_gid, 0);
		if (qp_modify(ci, q, &a, m, "peer"))
			return;
	}
	c->qp[q].peer_tag = ++peer_tag_ctr;
	ctl_send("C %d %u %u %c", c->qp[q].peer_tag, c->qp[q].qpn, c->qp[q].psn,
		 t == IBV_QPT_UC ? 'U' : 'R');
	opl("ctx %d: asked the peer for a QP connected to qp %d 0x%x", ci, q, c->qp[q].qpn);
}

/* ------------------------------------------------------------------ */
/* Connecting QPs on this device                                        */

static void op_loop_connect(int ci)
{
	struct ctx *c = &C[ci];
	int a = pick_qp(c), bc = ci, b;
	union ibv_gid g = my_gid;
	uint32_t dq;

	if (a < 0) {
		a = qp_create(ci, -1);
		if (a < 0)
			return;
	}
	if (nlive_ctx() > 1 && chance(30))
		bc = 1 - ci;
	PICK_LIVE(NQP, C[bc].qp[i_].qp && C[bc].qp[i_].type == c->qp[a].type &&
		  (bc != ci || i_ != a), b);
	if (c->qp[a].type == IBV_QPT_UD) {
		/* UD: just up to RTS. */
		if (!qp_connect(ci, a, 0, &g, 0, CONN_NONE))
			ctl_send("U %u %u", c->qp[a].qpn, c->qp[a].qkey);
		return;
	}
	if (b < 0 || chance(10)) {
		/* Itself, or a QP number nobody has. */
		dq = chance(50) ? c->qp[a].qpn : (uint32_t)r64() & 0xffffff;
		qp_connect(ci, a, dq, &g, c->qp[a].psn,
			   dq == c->qp[a].qpn ? CONN_SELF : CONN_RANDOM);
		return;
	}
	if (qp_connect(ci, a, C[bc].qp[b].qpn, &g, C[bc].qp[b].psn, CONN_LOOP))
		return;
	if (chance(90))
		qp_connect(bc, b, c->qp[a].qpn, &g, c->qp[a].psn, CONN_LOOP);
}

/* ------------------------------------------------------------------ */
/* Memory windows: allocated, bound, invalidated, deallocated           */

static void op_mw_alloc(int ci)
{
	struct ctx *c = &C[ci];
	int p = pick_pd(c), w;
	struct ibv_mw *mw;
	enum ibv_mw_type t = chance(50) ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2;

	PICK_FREE(NMW, c->mw[i_].mw != NULL, w);
	if (p < 0 || w < 0)
		return;
	cur_op = "ibv_alloc_mw";
	mw = ibv_alloc_mw(c->pd[p], t);
	count(!mw);
	opl("ctx %d: ibv_alloc_mw %d type %d pd %d -> %s rkey 0x%x", ci, w, t, p,
	    mw ? "ok" : strerror(errno), mw ? mw->rkey : 0);
	if (!mw)
		return;
	memset(&c->mw[w], 0, sizeof(c->mw[w]));
	c->mw[w].mw = mw;
	c->mw[w].pd = p;
	c->mw[w].type = t;
	c->mw[w].state = MW_UNBOUND;
	c->mw[w].rkey = mw->rkey;
	c->mw[w].mr = -1;
	c->mw[w].gen0 = c->mw[w].gen = ++mw_gen_ctr;
}

/* Bound or not, with WRs of it outstanding or not: it must go (MR-MW-6). */
static int mw_dealloc(int ci, int w)
{
	struct ctx *c = &C[ci];
	int ret;

	cur_op = "ibv_dealloc_mw";
	ret = ibv_dealloc_mw(c->mw[w].mw);
	count(ret);
	opl("ctx %d: ibv_dealloc_mw %d -> %s", ci, w, ret ? strerror(ret) : "ok");
	if (ret) {
		fail("ibv_dealloc_mw: %s", strerror(ret));
		return ret;
	}
	memset(&c->mw[w], 0, sizeof(c->mw[w]));
	return 0;
}

/* An RC QP of c in RTS with room on its SQ and its CQ, mostly of PD pd. */
static int pick_sq_for(struct ctx *c, int pd)
{
	int q;

	PICK_LIVE(NQP, c->qp[i_].qp && c->qp[i_].type == IBV_QPT_RC &&
		  c->qp[i_].st == IBV_QPS_RTS && (c->qp[i_].pd == pd || chance(10)), q);
	if (q < 0 || c->qp[q].sq_out + 1 > qlim(c->qp[q].cap.max_send_wr) ||
	    c->cq[c->qp[q].scq].overflow_ok)
		return -1;
	return q;
}

/* The book-keeping of a bind or LOCAL_INV of window w just posted. */
static void mw_posted(struct ctx *c, int w, int ri, int must_fail)
{
	struct omw *o = &c->mw[w];

	o->gen = ++mw_gen_ctr;
	o->out++;
	o->state = MW_UNKNOWN;
	recs[ri].mwp1 = (uint8_t)(w + 1);
	recs[ri].mw_gen = o->gen;
	recs[ri].must_fail = (uint8_t)must_fail;
}

/*
 * A bind, type 1 by ibv_bind_mw(), type 2 by an IBV_WR_BIND_MW WR, over a
 * random range of a random MR with random rights; what MR-MW-3 refuses
 * must not complete successfully.
 */
static void op_mw_bind(int ci)
{
	static const int rights[] = {
		IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
	};
	struct ctx *c = &C[ci];
	struct ibv_mw_bind_info bi;
	int w, q, m, ri, ret, bad, i;
	uint64_t rlen, len, addr;
	uint32_t rkey;
	struct omw *o;
	struct omr *r;

	PICK_LIVE(NMW, c->mw[i_].mw != NULL, w);
	if (w < 0)
		return;
	o = &c->mw[w];
	q = pick_sq_for(c, o->pd);
	/* Mostly a region windows may be bound to, of the window's PD. */
	PICK_LIVE(NMR, c->mr[i_].mr && c->mr[i_].pd == o->pd &&
		  (c->mr[i_].access & IBV_ACCESS_MW_BIND), m);
	if (m < 0 || chance(15))
		m = pick_mr(c, chance(90) ? o->pd : -1);
	if (q < 0 || m < 0)
		return;
	r = &c->mr[m];
	rlen = r->len;
	len = chance(8) || !rlen ? 0 : rand_len(rlen);
	addr = r->iova + (rlen > len ? (uint64_t)rn((uint32_t)(rlen - len + 1)) : 0);
	if (chance(8) && len) {
		addr = chance(50) ? r->iova + rlen - len / 2 : r->iova - 4096;
		len += 1;
	}
	memset(&bi, 0, sizeof(bi));
	bi.mr = r->mr;
	bi.addr = addr;
	bi.length = len;
	for (i = 0; i < 3; i++)
		if (chance(50))
			bi.mw_access_flags |= (unsigned int)rights[i];
	if (chance(8))
		bi.mw_access_flags |= chance(50) ? IBV_ACCESS_ZERO_BASED : IBV_ACCESS_LOCAL_WRITE;
	/* MR-MW-3, the cases it refuses; length 0 names no region. */
	bad = c->qp[q].pd != o->pd || (bi.mw_access_flags & IBV_ACCESS_ZERO_BASED) ||
	      (len && (!(r->access & IBV_ACCESS_MW_BIND) || c->qp[q].pd != r->pd ||
		       addr < r->iova || len > rlen || addr - r->iova > rlen - len ||
		       ((bi.mw_access_flags &
			 (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
			!(r->access & IBV_ACCESS_LOCAL_WRITE))));
	ri = rec_alloc();
	if (ri < 0)
		return;
	cur_op = "ibv_bind_mw";
	if (o->type == IBV_MW_TYPE_1) {
		struct ibv_mw_bind b;

		memset(&b, 0, sizeof(b));
		b.wr_id = recs[ri].id;
		b.send_flags = IBV_SEND_SIGNALED;
		b.bind_info = bi;
		ret = ibv_bind_mw(c->qp[q].qp, o->mw, &b);
		rkey = o->mw->rkey;	/* the new key once posted */
	} else {
		struct ibv_send_wr wr, *badwr;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = recs[ri].id;
		wr.opcode = IBV_WR_BIND_MW;
		wr.send_flags = IBV_SEND_SIGNALED;
		rkey = ibv_inc_rkey(o->rkey);
		if (chance(5)) {
			rkey = (uint32_t)r64();
			bad |= (rkey >> 8) != (o->rkey >> 8);	/* another window's index */
		}
		wr.bind_mw.mw = o->mw;
		wr.bind_mw.rkey = rkey;
		wr.bind_mw.bind_info = bi;
		ret = ibv_post_send(c->qp[q].qp, &wr, &badwr);
	}
	count(ret);
	opl("ctx %d: bind of MW %d (type %d) on qp %d 0x%x to MR %d 0x%" PRIx64 "+%" PRIu64
	    " rights 0x%x rkey 0x%x%s -> %s", ci, w, o->type, q, c->qp[q].qpn, m, addr, len,
	    bi.mw_access_flags, rkey, bad ? " (must fail)" : "", ret ? strerror(ret) : "ok");
	send_rec(ci, q, ri, IBV_WR_BIND_MW, 1, !ret);
	if (ret)
		return;
	mw_posted(c, w, ri, bad);
	recs[ri].mw_mr = (uint8_t)m;
	o->rkey = rkey;
	o->mr = m;
	o->mr_gen = r->gen;
	o->addr = addr;
	o->len = len;
	o->access = (int)bi.mw_access_flags;
}

/* LOCAL_INV of a window's key (MR-MW-5: a type 1 window's must fail) or any key. */
static void op_mw_inv(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_send_wr wr, *bad;
	int w, q, ri, ret, t1;

	PICK_LIVE(NMW, c->mw[i_].mw != NULL, w);
	if (w < 0)
		return;
	q = pick_sq_for(c, c->mw[w].pd);
	ri = q >= 0 ? rec_alloc() : -1;
	if (ri < 0)
		return;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = recs[ri].id;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = chance(90) ? c->mw[w].rkey : (uint32_t)r64();
	t1 = c->mw[w].type == IBV_MW_TYPE_1 && wr.invalidate_rkey == c->mw[w].rkey;
	cur_op = "ibv_post_send";
	ret = ibv_post_send(c->qp[q].qp, &wr, &bad);
	count(ret);
	opl("ctx %d: LOCAL_INV of MW %d (type %d) key 0x%x on qp %d 0x%x -> %s", ci, w,
	    c->mw[w].type, wr.invalidate_rkey, q, c->qp[q].qpn, ret ? strerror(ret) : "ok");
	send_rec(ci, q, ri, IBV_WR_LOCAL_INV, 1, !ret);
	if (!ret)
		mw_posted(c, w, ri, t1);
}

static void op_mw(int ci)
{
	int w;

	switch (rn(10)) {
	case 0:
	case 1:
		op_mw_alloc(ci);
		break;
	case 2:
	case 3:
		PICK_LIVE(NMW, C[ci].mw[i_].mw != NULL, w);
		if (w >= 0)
			mw_dealloc(ci, w);
		break;
	case 4:
		op_mw_inv(ci);
		break;
	default:
		op_mw_bind(ci);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* mmap of the device file at offsets and lengths of the process's own   */

#define NMAP 4
static struct {
	void *p;
	size_t len;
} maps[NMAP];

/*
 * The offset and length of one of the process's mappings of a uverbs
 * device file, picked at random from /proc/self/maps: a ring that a
 * provider mapped, in this context or another one, maybe of a QP or CQ
 * destroyed since (the kernel refuses a length other than the ring's
 * exactly, so blind guesses almost never map). False if there is none.
 */
static bool device_map_pick(off_t *off, size_t *len)
{
	unsigned long lo, hi;
	unsigned long long pgoff;
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx %*s %llx", &lo, &hi, &pgoff) != 3 || hi <= lo)
			continue;
		/* Reservoir sampling: each mapping with probability 1/n. */
		if (rn(++n) == 0) {
			*off = (off_t)pgoff;
			*len = hi - lo;
		}
	}
	fclose(f);
	return n > 0;
}

/*
 * The provider maps its rings by mmap of the context's file at offsets
 * the kernel gave it; a process may try any offset, length, protection
 * and sharing, the offsets of the rings of its other contexts among
 * them. A shared mapping is read, never written (it may be a live ring:
 * writing one is mr-ringtamper's job); a private writable one is a copy,
 * written all over. Unmapped some steps later, maybe after its QP, CQ or
 * context is gone (the pages must outlive them until then).
 */
static void op_mmap(int ci)
{
	struct ctx *c = &C[ci];
	int k = (int)rn(NMAP), prot, flags;
	volatile uint8_t sink = 0;
	size_t len, i;
	off_t off;
	void *p;

	if (maps[k].p) {
		munmap(maps[k].p, maps[k].len);
		maps[k].p = NULL;
		if (chance(50))
			return;
	}
	if (!chance(60) || !device_map_pick(&off, &len)) {
		/* Rings sit a few pages long from offset 0 up. */
		off = (off_t)(chance(85) ? rn(128) : rn(1u << 20)) * pagesz;
		len = chance(70) ? (size_t)rrange(1, 8) * (size_t)pagesz :
		      chance(70) ? (size_t)rrange(1, 64) * (size_t)pagesz :
		      rrange(1, 1u << 22);
	} else if (chance(20)) {
		/* A ring's offset with a length one page off. */
		len = chance(50) || len <= (size_t)pagesz ? len + (size_t)pagesz :
		      len - (size_t)pagesz;
	}
	prot = chance(80) ? PROT_READ : chance(50) ? PROT_READ | PROT_WRITE : PROT_NONE;
	/* Writable only as a private copy: the rings are live. */
	flags = (prot & PROT_WRITE) || chance(10) ? MAP_PRIVATE : MAP_SHARED;
	cur_op = "mmap";
	p = mmap(NULL, len, prot, flags, c->ctx->cmd_fd, off);
	count(p == MAP_FAILED);
	opl("ctx %d: mmap of the device at 0x%llx, %zu bytes, prot %d %s -> %s", ci,
	    (unsigned long long)off, len, prot, flags == MAP_SHARED ? "shared" : "private",
	    p == MAP_FAILED ? strerror(errno) : "ok");
	if (p == MAP_FAILED)
		return;
	if (prot & PROT_READ)
		for (i = 0; i < len; i += (size_t)pagesz)
			sink += ((volatile uint8_t *)p)[i];
	(void)sink;
	if ((prot & PROT_WRITE) && flags == MAP_PRIVATE)
		memset(p, 0xa5, len);
	st.mmap_ok++;
	maps[k].p = p;
	maps[k].len = len;
}

static void maps_release(void)
{
	int k;

	for (k = 0; k < NMAP; k++)
		if (maps[k].p)
			munmap(maps[k].p, maps[k].len);
	memset(maps, 0, sizeof(maps));
}

/* ------------------------------------------------------------------ */
/* Queries and unsupported verbs: they must answer, not crash           */

static void op_queries(int ci)
{
	struct ctx *c = &C[ci];
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid g;
	uint16_t pkey;
	int ret, k;

	switch (rn(7)) {
	case 0:
		cur_op = "ibv_query_device";
		ret = ibv_query_device(c->ctx, &da);
		count(ret);
		if (ret)
			fail("ibv_query_device: %s", strerror(ret));
		break;
	case 1:
		cur_op = "ibv_query_port";
		k = chance(70) ? 1 : (int)rn(256);
		ret = ibv_query_port(c->ctx, (uint8_t)k, &pa);
		count(ret);
		opl("ctx %d: ibv_query_port %d -> %s", ci, k, ret ? strerror(ret) : "ok");
		if (k == 1 && ret)
			fail("ibv_query_port 1: %s", strerror(ret));
		break;
	case 2:
		cur_op = "ibv_query_gid";
		k = chance(50) ? (int)rn(16) : (int)rn(1 << 16);
		ret = ibv_query_gid(c->ctx, chance(90) ? 1 : (uint8_t)rn(4), k, &g);
		count(ret);
		break;
	case 3:
		cur_op = "ibv_query_pkey";
		ret = ibv_query_pkey(c->ctx, 1, (int)rn(300), &pkey);
		count(ret);
		break;
	case 4: {
		struct ibv_cq_init_attr_ex ca;
		struct ibv_cq_ex *cx;

		memset(&ca, 0, sizeof(ca));
		ca.cqe = rrange(1, 64);
		cur_op = "ibv_create_cq_ex";
		cx = ibv_create_cq_ex(c->ctx, &ca);
		count(!cx);
		if (cx) {
			cur_op = "ibv_destroy_cq";
			count(ibv_destroy_cq(ibv_cq_ex_to_cq(cx)));
		}
		break;
	}
	case 5: {
		int p = pick_pd(c);
		struct ibv_mw *mw;

		if (p < 0)
			break;
		cur_op = "ibv_alloc_mw";
		mw = ibv_alloc_mw(c->pd[p], chance(50) ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
		count(!mw);
		if (mw) {
			cur_op = "ibv_dealloc_mw";
			count(ibv_dealloc_mw(mw));
		}
		break;
	}
	default:
		k = pick_cq(c);
		if (k < 0)
			break;
		cur_op = "ibv_resize_cq";
		ret = ibv_resize_cq(c->cq[k].cq, (int)rrange(1, 4096));
		count(ret);
		opl("ctx %d: ibv_resize_cq %d -> %s", ci, k, ret ? strerror(ret) : "ok");
		if (!ret && c->cq[k].cq->cqe < (int)cq_need(c, k))
			c->cq[k].overflow_ok = 1;	/* shrunk below what is reserved */
		break;
	}
}

/* A small CQ behind a QP pair, overflowed on purpose: no hang, clean teardown. */
static void op_cq_overflow(int ci)
{
	struct ctx *c = &C[ci];
	int k, a, b, i;
	union ibv_gid g = my_gid;

	PICK_FREE(NCQ, c->cq[i_].cq != NULL, k);
	if (k < 0)
		return;
	cur_op = "ibv_create_cq";
	c->cq[k].cq = ibv_create_cq(c->ctx, 1, NULL, NULL, 0);
	count(!c->cq[k].cq);
	if (!c->cq[k].cq)
		return;
	c->cq[k].ch = -1;
	c->cq[k].overflow_ok = 1;
	opl("ctx %d: CQ %d (%d entries) to be overflowed", ci, k, c->cq[k].cq->cqe);
	a = qp_create(ci, IBV_QPT_RC);
	b = qp_create(ci, IBV_QPT_RC);
	if (a < 0 || b < 0)
		return;
	/* Move a onto the small CQ: only the fuzzer's book-keeping, a new QP. */
	{
		struct ibv_qp_init_attr ia;
		struct ibv_qp *qp;

		memset(&ia, 0, sizeof(ia));
		ia.qp_type = IBV_QPT_RC;
		ia.send_cq = ia.recv_cq = c->cq[k].cq;
		ia.cap.max_send_wr = 16;
		ia.cap.max_recv_wr = 4;
		ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
		ia.sq_sig_all = 1;
		qp_destroy(ci, a);
		cur_op = "ibv_create_qp";
		qp = ibv_create_qp(c->pd[c->qp[b].pd], &ia);
		count(!qp);
		if (!qp)
			return;
		memset(&c->qp[a], 0, sizeof(c->qp[a]));
		c->qp[a].qp = qp;
		c->qp[a].type = IBV_QPT_RC;
		c->qp[a].pd = c->qp[b].pd;
		c->qp[a].scq = c->qp[a].rcq = k;
		c->qp[a].srq = -1;
		c->qp[a].cap = ia.cap;
		c->qp[a].sig_all = 1;
		c->qp[a].st = IBV_QPS_RESET;
		c->qp[a].qpn = qp->qp_num;
		c->qp[a].gen = ++qp_gen;
		c->qp[a].psn = (uint32_t)rn(1u << 24);
		c->qp[a].t_mod = now_ms();
		fifo_init(&c->qp[a].sq);
		fifo_init(&c->qp[a].rq);
	}
	if (qp_connect(ci, a, c->qp[b].qpn, &g, c->qp[b].psn, CONN_LOOP) ||
	    qp_connect(ci, b, c->qp[a].qpn, &g, c->qp[a].psn, CONN_LOOP))
		return;
	for (i = 0; i < 12; i++) {
		struct ibv_sge s = { .addr = (uint64_t)(uintptr_t)zone, .length = 0, .lkey = 0 };
		struct ibv_send_wr w, *bad;
		int ri = rec_alloc();

		if (ri < 0)
			return;
		memset(&w, 0, sizeof(w));
		w.wr_id = recs[ri].id;
		w.opcode = IBV_WR_RDMA_WRITE;	/* zero length: no key is checked */
		w.sg_list = &s;
		w.num_sge = 0;
		w.send_flags = IBV_SEND_SIGNALED;
		cur_op = "ibv_post_send";
		count(ibv_post_send(c->qp[a].qp, &w, &bad));
		recs[ri].state = R_DEAD;	/* optional: its CQ overflows */
	}
	opl("ctx %d: 12 signaled WRs posted onto CQ %d", ci, k);
}

/* ------------------------------------------------------------------ */
/* Child processes that die holding verbs state                         */

static pid_t child_pid;
static long child_kill_at, child_killed_at;
static uint64_t child_seed;
static char self_exe[512];

static void op_spawn_child(void)
{
	char seed[32], secs[16], dev_s[64], gid[16];
	int tsecs = (int)rrange(1, 3);

	if (child_pid || o.child || o.no_children)
		return;
	child_seed = r64();
	snprintf(seed, sizeof(seed), "%" PRIu64, child_seed);
	snprintf(secs, sizeof(secs), "%d", tsecs);
	snprintf(dev_s, sizeof(dev_s), "%s", o.dev);
	snprintf(gid, sizeof(gid), "%d", o.gid_idx);
	fflush(stdout);
	child_pid = fork();
	if (child_pid < 0) {
		child_pid = 0;
		return;
	}
	if (!child_pid) {
		char *argv[] = { self_exe, "--child", "-d", dev_s, "-g", gid, "--seed",
				 seed, "--time", secs, NULL };

		execv(self_exe, argv);
		_exit(127);
	}
	st.children++;
	child_kill_at = now_ms() + (long)rn((uint32_t)tsecs * 1300u);
	child_killed_at = 0;
	opl("child %d (seed %" PRIu64 ") started, SIGKILL in %ld ms", (int)child_pid,
	    child_seed, child_kill_at - now_ms());
}

/* Reaps the child; 'final': kill it now and wait (bounded). */
static void child_check(int final)
{
	int status;
	pid_t r;

	if (!child_pid)
		return;
	if ((final || now_ms() >= child_kill_at) && !child_killed_at) {
		kill(child_pid, SIGKILL);
		child_killed_at = now_ms();
	}
	for (;;) {
		r = waitpid(child_pid, &status, WNOHANG);
		if (r == child_pid)
			break;
		if (child_killed_at && now_ms() - child_killed_at > 60000) {
			fail("child %d (seed %" PRIu64 ") did not exit within 60 s of SIGKILL: "
			     "stuck in the kernel releasing its verbs objects?",
			     (int)child_pid, child_seed);
			child_pid = 0;
			return;
		}
		if (!final)
			return;
		usleep(20000);
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
		fail("child (seed %" PRIu64 ") died of signal %d", child_seed, WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		fail("child (seed %" PRIu64 ") exited with status %d", child_seed,
		     WEXITSTATUS(status));
	opl("child %d reaped (%s %d)", (int)child_pid,
	    WIFSIGNALED(status) ? "signal" : "exit",
	    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	child_pid = 0;
}

/* ------------------------------------------------------------------ */
/* Context 1 lifecycle: destroy everything in a random order, then close */

static int ctx_teardown(int ci, int random_order)
{
	struct ctx *c = &C[ci];
	int tries, i, left, ret;

	for (tries = 0; tries < 400; tries++) {
		int kind = random_order ? (int)rn(8) : tries % 8;

		left = 0;
		for (i = 0; i < NQP; i++)
			left += c->qp[i].qp != NULL;
		for (i = 0; i < NAH; i++)
			left += c->ah[i].ah != NULL;
		for (i = 0; i < NMR; i++)
			left += c->mr[i].mr != NULL;
		for (i = 0; i < NSRQ; i++)
			left += c->srq[i].srq != NULL;
		for (i = 0; i < NCQ; i++)
			left += c->cq[i].cq != NULL;
		for (i = 0; i < NCH; i++)
			left += c->ch[i].ch != NULL;
		for (i = 0; i < NPD; i++)
			left += c->pd[i] != NULL;
		for (i = 0; i < NMW; i++)
			left += c->mw[i].mw != NULL;
		if (!left)
			break;
		alarm(120);
		switch (kind) {
		case 0:
			PICK_LIVE(NQP, c->qp[i_].qp != NULL, i);
			if (i >= 0)
				qp_destroy(ci, i);
			break;
		case 1:
			PICK_LIVE(NAH, c->ah[i_].ah != NULL, i);
			if (i >= 0)
				ah_destroy(ci, i);
			break;
		case 2:
			PICK_LIVE(NMR, c->mr[i_].mr != NULL, i);
			if (i >= 0)
				mr_dereg(ci, i);
			break;
		case 3:
			PICK_LIVE(NSRQ, c->srq[i_].srq != NULL, i);
			if (i >= 0)
				srq_destroy(ci, i);
			break;
		case 4:
			PICK_LIVE(NCQ, c->cq[i_].cq != NULL, i);
			if (i >= 0)
				cq_destroy(ci, i);
			break;
		case 5:
			PICK_LIVE(NCH, c->ch[i_].ch != NULL, i);
			if (i >= 0)
				ch_destroy(ci, i);
			break;
		case 6:
			PICK_LIVE(NMW, c->mw[i_].mw != NULL, i);
			if (i >= 0)
				mw_dealloc(ci, i);
			break;
		default:
			PICK_LIVE(NPD, c->pd[i_] != NULL, i);
			if (i >= 0)
				pd_dealloc(ci, i);
			break;
		}
		async_drain(ci);
		chan_drain(ci);
	}
	if (tries >= 400) {
		fail("ctx %d: objects left after 400 destroy attempts", ci);
		return -1;
	}
	cur_op = "ibv_close_device";
	ret = ibv_close_device(c->ctx);
	count(ret);
	opl("ibv_close_device ctx %d -> %s", ci, ret ? strerror(ret) : "ok");
	if (ret)
		fail("ibv_close_device with every object destroyed: %s", strerror(ret));
	memset(c, 0, sizeof(*c));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Known cases (asserted)                                               */

struct kcase {
	const char *name;
	int opcode;
	uint64_t mr_iova;	/* IOVA the target region is registered at */
	uint64_t raddr;
	uint32_t len;
	enum ibv_wc_status want;
	const char *spec;
	int uc;			/* known_uc() runs it */
};

static const struct kcase kcases[] = {
	{ "write-wrap", IBV_WR_RDMA_WRITE, 0, 0ULL - 256, 512,
	  IBV_WC_REM_ACCESS_ERR, "MR-VERBS-21, MR-VERBS-22", 0 },
	{ "read-wrap", IBV_WR_RDMA_READ, 0, 0ULL - 256, 512,
	  IBV_WC_REM_ACCESS_ERR, "MR-VERBS-21, MR-VERBS-22", 0 },
	{ "atomic-cas-misaligned", IBV_WR_ATOMIC_CMP_AND_SWP, 0x1000, 0x1001, 8,
	  IBV_WC_REM_INV_REQ_ERR, "MR-VERBS-11", 0 },
	{ "atomic-faa-misaligned", IBV_WR_ATOMIC_FETCH_AND_ADD, 0x1000, 0x1001, 8,
	  IBV_WC_REM_INV_REQ_ERR, "MR-VERBS-11", 0 },
	{ "uc-refused", IBV_WR_SEND, 0x10000, 0, 0, IBV_WC_SUCCESS,
	  "MR-UC-5, MR-UC-8, MR-UC-10, MR-UC-11", 1 },
};
#define NKCASES ((int)(sizeof(kcases) / sizeof(kcases[0])))

static int kc_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		out("known case: ibv_modify_qp: %s", strerror(ret));
	return ret;
}

/* Through INIT, RTR and RTS to dqpn on this device; RC or UC attributes. */
static int kc_connect(struct ibv_qp *qp, uint32_t dqpn)
{
	int uc = qp->qp_type == IBV_QPT_UC;
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    (uc ? 0 : IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (kc_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = port_mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0x4242;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = my_gid;
	a.ah_attr.grh.sgid_index = (uint8_t)o.gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (kc_modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | (uc ? 0 :
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x4242;
	if (uc)
		return kc_modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 3;
	a.max_rd_atomic = 4;
	return kc_modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Wait for the completion with wr_id on cq; its status, or -1 at the deadline. */
static int kc_wait(struct ibv_cq *cq, uint64_t wr_id, long deadline, int *others_ok)
{
	struct ibv_wc wc;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			return -2;
		if (n == 1) {
			if (wc.wr_id == wr_id)
				return wc.status;
			if (wc.status == IBV_WC_SUCCESS && others_ok)
				(*others_ok)++;
			continue;
		}
		if (now_ms() > deadline)
			return -1;
		usleep(1000);
	}
}

static const char *status_name(int s)
{
	if (s == -1)
		return "no completion";
	if (s == -2)
		return "ibv_poll_cq error";
	return ibv_wc_status_str((enum ibv_wc_status)s);
}

/* The objects of one known case, fresh on ctx 0: a pair a -> b on this device. */
struct kc_env {
	struct ibv_pd *pd;
	struct ibv_mr *tmr, *lmr;	/* target at k->mr_iova; local, LOCAL_WRITE only */
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *qa, *qb;
	uint8_t *tbuf, *lbuf, *snap;	/* snap: tbuf before the case */
};

#define KC_LEN ((size_t)65536)

/* 0 when set up; the caller tears down either way. */
static int kc_setup(struct kc_env *e, const struct kcase *k, enum ibv_qp_type t,
		    int taccess)
{
	struct ibv_context *ctx = C[0].ctx;
	struct ibv_qp_init_attr ia;
	size_t i;

	memset(e, 0, sizeof(*e));
	cur_op = k->name;
	alarm((unsigned int)o.known_wait * 3 + 60);
	e->tbuf = mmap(NULL, KC_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	e->lbuf = mmap(NULL, KC_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	e->snap = malloc(KC_LEN);
	if (e->tbuf == MAP_FAILED || e->lbuf == MAP_FAILED || !e->snap)
		die2("known case %s: out of memory", k->name);
	for (i = 0; i < KC_LEN; i++) {
		e->tbuf[i] = (uint8_t)(0x61 + i % 23);
		e->lbuf[i] = (uint8_t)(0x30 + i % 29);
	}
	memcpy(e->snap, e->tbuf, KC_LEN);

	e->pd = ibv_alloc_pd(ctx);
	if (!e->pd)
		return -1;
	/* The target region at a chosen IOVA (page-aligned buffer: offsets match). */
	e->tmr = ibv_reg_mr_iova(e->pd, e->tbuf, KC_LEN, k->mr_iova, taccess);
	e->lmr = ibv_reg_mr(e->pd, e->lbuf, KC_LEN, IBV_ACCESS_LOCAL_WRITE);
	e->cqa = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	e->cqb = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!e->tmr || !e->lmr || !e->cqa || !e->cqb)
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = t;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.send_cq = ia.recv_cq = e->cqa;
	e->qa = ibv_create_qp(e->pd, &ia);
	ia.send_cq = ia.recv_cq = e->cqb;
	e->qb = ibv_create_qp(e->pd, &ia);
	if (!e->qa || !e->qb || kc_connect(e->qa, e->qb->qp_num) ||
	    kc_connect(e->qb, e->qa->qp_num))
		return -1;
	return 0;
}

static void kc_teardown(struct kc_env *e, const struct kcase *k)
{
	cur_op = "known case teardown";
	if (e->qa && ibv_destroy_qp(e->qa))
		fail("known case %s: ibv_destroy_qp failed", k->name);
	if (e->qb && ibv_destroy_qp(e->qb))
		fail("known case %s: ibv_destroy_qp failed", k->name);
	if (e->cqa && ibv_destroy_cq(e->cqa))
		fail("known case %s: ibv_destroy_cq failed", k->name);
	if (e->cqb && ibv_destroy_cq(e->cqb))
		fail("known case %s: ibv_destroy_cq failed", k->name);
	if (e->tmr && ibv_dereg_mr(e->tmr))
		fail("known case %s: ibv_dereg_mr failed", k->name);
	if (e->lmr && ibv_dereg_mr(e->lmr))
		fail("known case %s: ibv_dereg_mr failed", k->name);
	if (e->pd && ibv_dealloc_pd(e->pd))
		fail("known case %s: ibv_dealloc_pd failed", k->name);
	munmap(e->tbuf, KC_LEN);
	munmap(e->lbuf, KC_LEN);
	free(e->snap);
	async_drain(0);
}

/* The first byte in [off, off + len) where tbuf differs from snap, or -1. */
static long kc_changed(const struct kc_env *e, size_t off, size_t len)
{
	size_t i;

	for (i = off; i < off + len; i++)
		if (e->tbuf[i] != e->snap[i])
			return (long)i;
	return -1;
}

/* One known case (RC, an error the responder or requester must report). */
static int known_case(const struct kcase *k)
{
	struct kc_env e;
	struct ibv_sge s, rs_;
	struct ibv_send_wr w[2], *bad;
	struct ibv_recv_wr rw, *rbad;
	long deadline, at;
	int st1, st2, others_ok = 0, stq = -1, ok = 0;

	if (kc_setup(&e, k, IBV_QPT_RC, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC))
		goto setup_err;
	memset(e.lbuf, 0x17, KC_LEN);

	/* b may receive the SEND behind the bad WR (it must not). */
	rs_.addr = (uint64_t)(uintptr_t)e.lbuf + 8192;
	rs_.length = 4096;
	rs_.lkey = e.lmr->lkey;
	memset(&rw, 0, sizeof(rw));
	rw.wr_id = 3;
	rw.sg_list = &rs_;
	rw.num_sge = 1;
	if (ibv_post_recv(e.qb, &rw, &rbad))
		goto setup_err;

	s.addr = (uint64_t)(uintptr_t)e.lbuf;
	s.length = k->len;
	s.lkey = e.lmr->lkey;
	memset(w, 0, sizeof(w));
	w[0].wr_id = 1;
	w[0].opcode = (enum ibv_wr_opcode)k->opcode;
	w[0].send_flags = IBV_SEND_SIGNALED;
	w[0].sg_list = &s;
	w[0].num_sge = 1;
	w[0].next = &w[1];
	if (k->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || k->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		w[0].wr.atomic.remote_addr = k->raddr;
		w[0].wr.atomic.rkey = e.tmr->rkey;
		/* compare = the bytes there (as a CAS would hit), swap: new bytes */
		memcpy(&w[0].wr.atomic.compare_add, e.tbuf + (k->raddr - k->mr_iova), 8);
		w[0].wr.atomic.swap = 0x0123456789abcdefULL;
		if (k->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			w[0].wr.atomic.compare_add = 0x1111111111111111ULL;
	} else {
		w[0].wr.rdma.remote_addr = k->raddr;
		w[0].wr.rdma.rkey = e.tmr->rkey;
	}
	w[1].wr_id = 2;
	w[1].opcode = IBV_WR_SEND;
	w[1].send_flags = IBV_SEND_SIGNALED;
	w[1].sg_list = &s;
	w[1].num_sge = 1;
	{
		int r = ibv_post_send(e.qa, w, &bad);

		if (r) {
			/*
			 * A refusal at posting is an answer too, but not the one
			 * MR-VERBS-11/21 give: a completion with the status.
			 */
			fail("known case %s: ibv_post_send refused it (%s); %s requires a "
			     "completion with %s", k->name, strerror(r), k->spec,
			     ibv_wc_status_str(k->want));
			goto cleanup;
		}
	}
	deadline = now_ms() + (long)o.known_wait * 1000;
	st1 = kc_wait(e.cqa, 1, deadline, &others_ok);
	st2 = st1 >= -1 ? kc_wait(e.cqa, 2, deadline, &others_ok) : -2;
	/* At least one query, even when the completions used up the time. */
	for (;;) {
		stq = qp_query_state(e.qa);
		if (stq == IBV_QPS_ERR || now_ms() > deadline)
			break;
		usleep(5000);
	}
	ok = 1;
	if (st1 != (int)k->want) {
		fail("known case %s: the WR completed with %s, %s requires %s (within %d s)",
		     k->name, status_name(st1), k->spec, ibv_wc_status_str(k->want),
		     o.known_wait);
		ok = 0;
	}
	if (st2 != IBV_WC_WR_FLUSH_ERR) {
		fail("known case %s: the SEND behind it completed with %s, MR-VERBS-25 "
		     "requires IBV_WC_WR_FLUSH_ERR", k->name, status_name(st2));
		ok = 0;
	}
	if (stq != IBV_QPS_ERR) {
		fail("known case %s: the QP is in %s, not ERR (MR-VERBS-25)", k->name,
		     qps_name(stq));
		ok = 0;
	}
	/*
	 * MR-VERBS-11: a misaligned atomic is not transmitted, so the region
	 * is untouched; a wrapping WRITE is outside the region (MR-VERBS-21),
	 * so nothing of it lands at IOVA 0 either.
	 */
	at = k->opcode != IBV_WR_RDMA_READ ? kc_changed(&e, 0, 4096) : -1;
	if (at >= 0) {
		fail("known case %s: the target region changed at IOVA 0x%" PRIx64
		     " (byte 0x%02x, was 0x%02x): the bad WR was executed", k->name,
		     k->mr_iova + (uint64_t)at, e.tbuf[at], e.snap[at]);
		ok = 0;
	}
	if (others_ok) {
		fail("known case %s: %d other successful completion(s)", k->name, others_ok);
		ok = 0;
	}
	{
		/* b got the SEND: only with a flushed SEND it must not have. */
		struct ibv_wc wc;

		if (ibv_poll_cq(e.cqb, 1, &wc) == 1 && wc.wr_id == 3 &&
		    wc.status == IBV_WC_SUCCESS) {
			fail("known case %s: the SEND behind the bad WR was received", k->name);
			ok = 0;
		}
	}
	out("KNOWN %s: %s (WR %s, SEND behind %s, QP %s)", k->name, ok ? "ok" : "FAIL",
	    status_name(st1), status_name(st2), qps_name(stq));
	goto cleanup;

setup_err:
	fail("known case %s: could not set it up: %s", k->name, strerror(errno));
cleanup:
	kc_teardown(&e, k);
	if (ok)
		st.known_ok++;
	return ok ? 0 : -1;
}

/* Up to n completions of cq into wc, until the deadline; how many came. */
static int kc_collect(struct ibv_cq *cq, struct ibv_wc *wc, int n, long deadline)
{
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return got;
		got += r;
		if (got < n) {
			if (now_ms() > deadline)
				break;
			usleep(1000);
		}
	}
	return got;
}

/*
 * uc-refused, on a UC pair a -> b: the messages b must refuse are dropped
 * silently (MR-UC-10): a WRITE with the R_Key of a region without remote
 * write, a WRITE past the end of its region, a SEND longer than the
 * receive WQE. Their send WRs complete successfully (MR-UC-5), they bind
 * no receive WQE (MR-UC-8), no receive WQE completes in error and b stays
 * in RTS; the SEND and WRITE_IMM behind them are delivered into the first
 * two receive WQEs (MR-UC-11). A READ on a UC QP is refused or completes
 * with IBV_WC_LOC_QP_OP_ERR (MR-VERBS-2).
 */
enum { KU_NWR = 5, KU_SEND_LEN = 100, KU_IMM_LEN = 256, KU_IMM_SRC = 1000,
       KU_IMM_OFF = 4096, KU_RBUF = 16384, KU_SINK = 32768 };

static int known_uc(const struct kcase *k)
{
	static const char *const what[KU_NWR] = {
		"WRITE with a region's R_Key without remote write",
		"WRITE past the end of the region", "SEND longer than the receive WQE",
		"SEND", "WRITE_IMM",
	};
	struct kc_env e;
	struct ibv_sge s[KU_NWR], rs[2], rd;
	struct ibv_send_wr w[KU_NWR], wr, *bad;
	struct ibv_recv_wr rw[2], *rbad;
	struct ibv_wc wa[KU_NWR], wb[3];
	const uint32_t imm = htonl(0x5a5a1234);
	long deadline, at;
	int na, nb, i, ok = 0, sta, stb, r;
	uint8_t *rbuf;

	if (kc_setup(&e, k, IBV_QPT_UC, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))
		goto setup_err;
	memset(wa, 0, sizeof(wa));
	memset(wb, 0, sizeof(wb));
	rbuf = e.lbuf + KU_RBUF;
	memset(rbuf, 0xee, 2 * 4096);
	memset(e.lbuf + KU_SINK, 0x17, 4096);
	for (i = 0; i < 2; i++) {
		rs[i].addr = (uint64_t)(uintptr_t)(rbuf + i * 4096);
		rs[i].length = 4096;
		rs[i].lkey = e.lmr->lkey;
		memset(&rw[i], 0, sizeof(rw[i]));
		rw[i].wr_id = 11 + (uint64_t)i;
		rw[i].sg_list = &rs[i];
		rw[i].num_sge = 1;
		rw[i].next = i ? NULL : &rw[1];
	}
	if (ibv_post_recv(e.qb, rw, &rbad))
		goto setup_err;

	memset(w, 0, sizeof(w));
	for (i = 0; i < KU_NWR; i++) {
		s[i].addr = (uint64_t)(uintptr_t)e.lbuf;
		s[i].length = 512;
		s[i].lkey = e.lmr->lkey;
		w[i].wr_id = 1 + (uint64_t)i;
		w[i].send_flags = IBV_SEND_SIGNALED;
		w[i].sg_list = &s[i];
		w[i].num_sge = 1;
		w[i].next = i + 1 < KU_NWR ? &w[i + 1] : NULL;
		w[i].opcode = i < 2 ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
	}
	w[0].wr.rdma.remote_addr = (uint64_t)(uintptr_t)(e.lbuf + KU_SINK);
	w[0].wr.rdma.rkey = e.lmr->rkey;	/* a valid key, no REMOTE_WRITE */
	w[1].wr.rdma.remote_addr = k->mr_iova + KC_LEN - 256;
	w[1].wr.rdma.rkey = e.tmr->rkey;
	s[2].length = 8192;
	s[3].length = KU_SEND_LEN;
	w[4].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	w[4].imm_data = imm;
	s[4].addr = (uint64_t)(uintptr_t)(e.lbuf + KU_IMM_SRC);
	s[4].length = KU_IMM_LEN;
	w[4].wr.rdma.remote_addr = k->mr_iova + KU_IMM_OFF;
	w[4].wr.rdma.rkey = e.tmr->rkey;
	r = ibv_post_send(e.qa, w, &bad);
	if (r) {
		fail("known case %s: ibv_post_send refused the UC WRs: %s", k->name,
		     strerror(r));
		goto cleanup;
	}
	deadline = now_ms() + (long)o.known_wait * 1000;
	na = kc_collect(e.cqa, wa, KU_NWR, deadline);
	nb = kc_collect(e.cqb, wb, 2, deadline);
	usleep(300000);		/* anything more b would complete */
	nb += kc_collect(e.cqb, wb + nb, 3 - nb, 0);
	sta = qp_query_state(e.qa);
	stb = qp_query_state(e.qb);

	ok = 1;
	for (i = 0; i < KU_NWR; i++) {
		if (i >= na) {
			fail("known case %s: the %s (wr_id %d) has no completion within "
			     "%d s (MR-UC-5)", k->name, what[i], i + 1, o.known_wait);
			ok = 0;
			break;
		}
		if (wa[i].wr_id != (uint64_t)i + 1 || wa[i].status != IBV_WC_SUCCESS) {
			fail("known case %s: completion %d of a is wr_id %" PRIu64 " with %s; "
			     "MR-UC-5 requires the %s (wr_id %d) with success", k->name, i + 1,
			     wa[i].wr_id, ibv_wc_status_str(wa[i].status), what[i], i + 1);
			ok = 0;
		}
	}
	if (nb != 2 || wb[0].wr_id != 11 || wb[0].status != IBV_WC_SUCCESS ||
	    wb[0].opcode != IBV_WC_RECV || wb[0].byte_len != KU_SEND_LEN ||
	    memcmp(rbuf, e.lbuf, KU_SEND_LEN) || rbuf[KU_SEND_LEN] != 0xee) {
		fail("known case %s: b's first receive WQE: %s; MR-UC-8, MR-UC-10 and "
		     "MR-UC-11 require wr_id 11 to complete with the %d-byte SEND, and "
		     "only it", k->name, nb < 1 ? "no completion" :
		     wb[0].status != IBV_WC_SUCCESS ? ibv_wc_status_str(wb[0].status) :
		     wb[0].wr_id != 11 ? "another WQE completed first" :
		     wb[0].byte_len != KU_SEND_LEN ? "another length" : "other bytes",
		     KU_SEND_LEN);
		ok = 0;
	}
	if (nb < 2 || wb[1].wr_id != 12 || wb[1].status != IBV_WC_SUCCESS ||
	    wb[1].opcode != IBV_WC_RECV_RDMA_WITH_IMM || !(wb[1].wc_flags & IBV_WC_WITH_IMM) ||
	    wb[1].imm_data != imm) {
		fail("known case %s: b's second receive WQE: %s; MR-UC-11 requires wr_id "
		     "12 to complete with the WRITE_IMM's immediate data", k->name,
		     nb < 2 ? "no completion" : ibv_wc_status_str(wb[1].status));
		ok = 0;
	}
	if (nb > 2) {
		fail("known case %s: b completed a third receive completion (wr_id %" PRIu64
		     ", %s): a refused message completed a WQE (MR-UC-10)", k->name,
		     wb[2].wr_id, ibv_wc_status_str(wb[2].status));
		ok = 0;
	}
	if (memcmp(e.tbuf + KU_IMM_OFF, e.lbuf + KU_IMM_SRC, KU_IMM_LEN)) {
		fail("known case %s: the WRITE_IMM's bytes are not in the target region",
		     k->name);
		ok = 0;
	}
	at = kc_changed(&e, KC_LEN - 256, 256);
	if (at >= 0) {
		fail("known case %s: the WRITE past the end changed the region at offset "
		     "%ld (MR-UC-10)", k->name, at);
		ok = 0;
	}
	for (i = 0; i < 4096; i++)
		if (e.lbuf[KU_SINK + i] != 0x17)
			break;
	if (i < 4096) {
		fail("known case %s: the WRITE under a key without remote write changed "
		     "its region at offset %d (MR-UC-10)", k->name, KU_SINK + i);
		ok = 0;
	}
	if (sta != IBV_QPS_RTS || stb != IBV_QPS_RTS) {
		fail("known case %s: the QPs are in %s and %s, not RTS (MR-UC-5, MR-UC-10)",
		     k->name, qps_name(sta), qps_name(stb));
		ok = 0;
	}

	/* Last, as it may move a to ERR: a READ is not a UC operation. */
	memset(&wr, 0, sizeof(wr));
	rd.addr = (uint64_t)(uintptr_t)e.lbuf;
	rd.length = 64;
	rd.lkey = e.lmr->lkey;
	wr.wr_id = 6;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &rd;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = k->mr_iova;
	wr.wr.rdma.rkey = e.tmr->rkey;
	r = ibv_post_send(e.qa, &wr, &bad);
	if (!r) {
		r = kc_wait(e.cqa, 6, now_ms() + (long)o.known_wait * 1000, NULL);
		if (r != IBV_WC_LOC_QP_OP_ERR) {
			fail("known case %s: a READ on a UC QP completed with %s (MR-VERBS-2: "
			     "IBV_WC_LOC_QP_OP_ERR or EINVAL from ibv_post_send)", k->name,
			     status_name(r));
			ok = 0;
		}
	} else if (r != EINVAL) {
		fail("known case %s: ibv_post_send of a READ on a UC QP: %s (MR-VERBS-2: "
		     "EINVAL or IBV_WC_LOC_QP_OP_ERR)", k->name, strerror(r));
		ok = 0;
	}
	out("KNOWN %s: %s (a: %d completions, b: %d, QPs %s/%s, READ %s)", k->name,
	    ok ? "ok" : "FAIL", na, nb, qps_name(sta), qps_name(stb),
	    r == EINVAL ? "refused" : status_name(r));
	goto cleanup;

setup_err:
	fail("known case %s: could not set it up: %s", k->name, strerror(errno));
cleanup:
	kc_teardown(&e, k);
	if (ok)
		st.known_ok++;
	return ok ? 0 : -1;
}

static int known_selected(const struct kcase *k)
{
	const char *p = o.known_only;
	size_t n = strlen(k->name);

	if (!p)
		return 1;
	while ((p = strstr(p, k->name))) {
		if ((p == o.known_only || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return 1;
		p += n;
	}
	return 0;
}

/* The known cases, in table order: the wrap cases first. */
static void known_round(void)
{
	int i;

	alarm(0);
	for (i = 0; i < NKCASES; i++)
		if (known_selected(&kcases[i])) {
			if (kcases[i].uc)
				known_uc(&kcases[i]);
			else
				known_case(&kcases[i]);
		}
}

/* ------------------------------------------------------------------ */
/* Watchdog                                                             */

static int rec_exempt(const struct rec *r, const struct oqp *q)
{
	const struct ocq *k = &C[r->ctx].cq[r->cq];

	return q->unbounded || q->st == IBV_QPS_SQD || k->overflow_ok || k->err;
}

/*
 * Signaled send WRs without a completion after limit_ms. At the end
 * (drain) receive WRs count too and nothing is exempt: every QP is in ERR
 * and must flush. Unsignaled send WRs are never waited for: one that
 * completed successfully leaves no trace unless a later completion on its
 * SQ retires it.
 */
static void watchdog_check(long limit_ms, int drain)
{
	long now = now_ms();
	int i, reported = 0;

	for (i = 0; i < NREC; i++) {
		struct rec *r = &recs[i];
		struct oqp *q;
		long since;

		if (r->state != R_LIVE || r->kind == K_SRQ)
			continue;
		if ((r->kind == K_RECV && !drain) || (r->kind == K_SEND && !r->signaled))
			continue;
		q = &C[r->ctx].qp[r->slot];
		if (!q->qp || q->gen != r->gen)
			continue;
		if (drain ? C[r->ctx].cq[r->cq].overflow_ok || C[r->ctx].cq[r->cq].err :
			    rec_exempt(r, q))
			continue;
		since = r->t_post > q->t_mod ? r->t_post : q->t_mod;
		if (now - since < limit_ms)
			continue;
		if (reported++ < 5)
			fail("watchdog: %s wr_id %" PRIu64 " (opcode %d) on ctx %d QP 0x%x "
			     "(%s by the fuzzer, %s by query, connection %d to 0x%x, %u send "
			     "and %u receive WRs outstanding) has no completion after %ld s%s",
			     r->kind == K_SEND ? "signaled send" : "receive", r->id, r->opcode,
			     r->ctx, q->qpn, qps_name(q->st), qps_name(qp_query_state(q->qp)),
			     q->conn, q->dqpn, q->sq_out, q->rq_out, (now - since) / 1000,
			     drain ? " in ERR (MR-VERBS-25: flushed)" : "");
		rec_kill(i);
	}
	if (reported > 5)
		fail("watchdog: %d more WRs without a completion", reported - 5);
}

static int canary_broken;

static void periodic_checks(void)
{
	watchdog_check((long)o.watchdog * 1000, 0);
	if (!canary_broken && canaries_check())
		canary_broken = 1;
}

/* ------------------------------------------------------------------ */
/* The run                                                              */

enum {
	OP_PD_ALLOC, OP_PD_DEALLOC, OP_MR_REG, OP_MR_DEREG, OP_CH_CREATE,
	OP_CH_DESTROY, OP_CQ_CREATE, OP_CQ_DESTROY, OP_CQ_NOTIFY, OP_SRQ_CREATE,
	OP_SRQ_MODIFY, OP_SRQ_DESTROY, OP_AH_CREATE, OP_AH_DESTROY, OP_QP_CREATE,
	OP_QP_DESTROY, OP_QP_MODIFY, OP_QP_QUERY, OP_LOOP_CONNECT, OP_PEER_CONNECT,
	OP_POST_SEND, OP_POST_RECV, OP_QUERIES, OP_CTX1, OP_CHILD, OP_OVERFLOW,
	OP_MR_ADVERT, OP_MR_REREG, OP_MW, OP_MMAP, OP_SLEEP, NOPS
};

static const int weights[NOPS] = {
	[OP_PD_ALLOC] = 3, [OP_PD_DEALLOC] = 2, [OP_MR_REG] = 8, [OP_MR_DEREG] = 5,
	[OP_CH_CREATE] = 1, [OP_CH_DESTROY] = 1, [OP_CQ_CREATE] = 3, [OP_CQ_DESTROY] = 2,
	[OP_CQ_NOTIFY] = 2, [OP_SRQ_CREATE] = 2, [OP_SRQ_MODIFY] = 2, [OP_SRQ_DESTROY] = 1,
	[OP_AH_CREATE] = 2, [OP_AH_DESTROY] = 1, [OP_QP_CREATE] = 5, [OP_QP_DESTROY] = 3,
	[OP_QP_MODIFY] = 5, [OP_QP_QUERY] = 2, [OP_LOOP_CONNECT] = 9, [OP_PEER_CONNECT] = 3,
	[OP_POST_SEND] = 30, [OP_POST_RECV] = 16, [OP_QUERIES] = 3, [OP_CTX1] = 1,
	[OP_CHILD] = 1, [OP_OVERFLOW] = 1, [OP_MR_ADVERT] = 2, [OP_MR_REREG] = 3,
	[OP_MW] = 5, [OP_MMAP] = 2, [OP_SLEEP] = 2,
};

static void one_step(void)
{
	int total = 0, i, v, ci, x;

	for (i = 0; i < NOPS; i++)
		total += weights[i];
	v = (int)rn((uint32_t)total);
	for (i = 0; i < NOPS && v >= weights[i]; i++)
		v -= weights[i];
	ci = pick_ctx();
	alarm(120);
	switch (i) {
	case OP_PD_ALLOC:
		op_pd_alloc(ci);
		break;
	case OP_PD_DEALLOC:
		x = pick_pd(&C[ci]);
		if (x >= 0 && (ci == 1 || chance(60) || !pd_in_use(&C[ci], x)))
			pd_dealloc(ci, x);
		break;
	case OP_MR_REG:
		op_mr_reg(ci);
		break;
	case OP_MR_DEREG:
		x = pick_mr(&C[ci], -1);
		if (x >= 0)
			mr_dereg(ci, x);	/* in use or not: the WRs see errors */
		break;
	case OP_CH_CREATE:
		op_ch_create(ci);
		break;
	case OP_CH_DESTROY:
		PICK_LIVE(NCH, C[ci].ch[i_].ch != NULL, x);
		if (x >= 0)
			ch_destroy(ci, x);
		break;
	case OP_CQ_CREATE:
		cq_create(ci, 0);
		break;
	case OP_CQ_DESTROY:
		x = pick_cq(&C[ci]);
		if (x >= 0)
			cq_destroy(ci, x);
		break;
	case OP_CQ_NOTIFY:
		x = pick_cq(&C[ci]);
		if (x >= 0) {
			cur_op = "ibv_req_notify_cq";
			count(ibv_req_notify_cq(C[ci].cq[x].cq, (int)rn(2)));
		}
		break;
	case OP_SRQ_CREATE:
		op_srq_create(ci);
		break;
	case OP_SRQ_MODIFY:
		op_srq_modify(ci);
		break;
	case OP_SRQ_DESTROY:
		PICK_LIVE(NSRQ, C[ci].srq[i_].srq != NULL, x);
		if (x >= 0)
			srq_destroy(ci, x);
		break;
	case OP_AH_CREATE:
		op_ah_create(ci);
		break;
	case OP_AH_DESTROY:
		PICK_LIVE(NAH, C[ci].ah[i_].ah != NULL, x);
		if (x >= 0)
			ah_destroy(ci, x);
		break;
	case OP_QP_CREATE:
		qp_create(ci, -1);
		break;
	case OP_QP_DESTROY:
		x = pick_qp(&C[ci]);
		if (x >= 0)
			qp_destroy(ci, x);
		break;
	case OP_QP_MODIFY:
		op_qp_modify_random(ci);
		break;
	case OP_QP_QUERY:
		op_qp_query(ci);
		break;
	case OP_LOOP_CONNECT:
		op_loop_connect(ci);
		break;
	case OP_PEER_CONNECT:
		op_peer_connect(ci);
		break;
	case OP_POST_SEND:
		op_post_send(ci);
		break;
	case OP_POST_RECV:
		op_post_recv(ci);
		break;
	case OP_QUERIES:
		op_queries(ci);
		break;
	case OP_CTX1:
		if (C[1].ctx)
			ctx_teardown(1, 1);
		else
			ctx_open(1);
		break;
	case OP_CHILD:
		op_spawn_child();
		break;
	case OP_OVERFLOW:
		if (chance(30))
			op_cq_overflow(ci);
		break;
	case OP_MR_ADVERT:
		x = pick_mr(&C[0], -1);
		if (x >= 0)
			peer_advertise_mr(&C[0].mr[x]);
		break;
	case OP_MR_REREG:
		op_mr_rereg(ci);
		break;
	case OP_MW:
		op_mw(ci);
		break;
	case OP_MMAP:
		op_mmap(ci);
		break;
	default:
		usleep(rn(3000));
		break;
	}
	/* Completions, events, the peer: every step. */
	poll_all(chance(20) ? 1 : 4);
	events_all();
	ctl_poll();
}

/* Everything to ERR; every WR must come back; then destroy it all. */
static void drain_and_teardown(void)
{
	struct ibv_qp_attr a;
	long end;
	int ci, q;

	cur_op = "drain";
	draining = 1;
	child_check(1);
	for (ci = 0; ci < NCTX; ci++) {
		if (!C[ci].ctx)
			continue;
		for (q = 0; q < NQP; q++) {
			/* RESET has no WR and no way to ERR. */
			if (!C[ci].qp[q].qp || C[ci].qp[q].st == IBV_QPS_RESET)
				continue;
			alarm(120);
			memset(&a, 0, sizeof(a));
			a.qp_state = IBV_QPS_ERR;
			if (qp_modify(ci, q, &a, IBV_QP_STATE, "drain"))
				fail("ibv_modify_qp to ERR failed at the end");
		}
	}
	end = now_ms() + (long)o.watchdog * 1000;
	for (;;) {
		unsigned long need = 0;
		int i;

		alarm(120);
		poll_all(64);
		events_all();
		ctl_poll();
		for (i = 0; i < NREC; i++) {
			struct rec *r = &recs[i];

			if (r->state == R_LIVE && r->kind != K_SRQ &&
			    (r->kind == K_RECV || r->signaled) &&
			    !C[r->ctx].cq[r->cq].overflow_ok && !C[r->ctx].cq[r->cq].err)
				need++;
		}
		if (!need)
			break;
		if (now_ms() > end) {
			/* MR-VERBS-25: every outstanding WR is flushed. */
			watchdog_check(0, 1);
			break;
		}
		usleep(2000);
	}
	for (ci = NCTX - 1; ci >= 0; ci--)
		if (C[ci].ctx)
			ctx_teardown(ci, ci == 1 || chance(50));
	/* After the contexts: a ring mapped outlives its context. */
	maps_release();
	if (!canary_broken)
		canaries_check();
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s -d DEV -g GID_INDEX [--seed S] [--time SECONDS] [--steps N]\n"
		"          [--listen | --peer ADDRESS] [--port P] [--connect-timeout S]\n"
		"          [--watchdog S] [--known-every S] [--known-wait S] [--no-known]\n"
		"          [--known-case NAME[,NAME...]] [--skip-known-inputs]\n"
		"          [--no-children] [--require-unprivileged] [--watchdog-selftest] [-v]\n",
		prog);
	exit(2);
}

/* The process must hold no privilege at all. */
static void check_unprivileged(void)
{
	char line[256];
	FILE *f;
	int ok = 0;

	if (geteuid() == 0 || getuid() == 0)
		die2("--require-unprivileged: running as uid %d/euid %d", (int)getuid(),
		     (int)geteuid());
	f = fopen("/proc/self/status", "r");
	if (!f)
		die2("/proc/self/status: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			unsigned long long v = strtoull(line + 7, NULL, 16);

			if (v)
				die2("--require-unprivileged: effective capabilities %llx", v);
			ok = 1;
		}
	fclose(f);
	if (!ok)
		die2("--require-unprivileged: no CapEff in /proc/self/status");
}

/* The watchdog must fire on a WR that never completes (infinite RNR retry). */
static int watchdog_selftest(void)
{
	int qa, qb, i;

	o.watchdog = 5;
	/* Random capabilities can be refused: a few tries. */
	for (qa = -1, i = 0; qa < 0 && i < 20; i++) {
		rng_step((uint64_t)i);
		qa = qp_create(0, IBV_QPT_RC);
	}
	for (qb = -1; qb < 0 && i < 40; i++) {
		rng_step((uint64_t)i);
		qb = qp_create(0, IBV_QPT_RC);
	}
	if (qa < 0 || qb < 0)
		die2("watchdog self-test: no QPs");
	if (qp_connect(0, qb, C[0].qp[qa].qpn, &my_gid, C[0].qp[qa].psn, CONN_LOOP))
		die2("watchdog self-test: connect failed");
	/* Both budgets infinite (MR-RETRY-1, MR-RETRY-5): it can never complete. */
	rnr_retry_override = 7;
	timeout_override = 0;
	if (qp_connect(0, qa, C[0].qp[qb].qpn, &my_gid, C[0].qp[qb].psn, CONN_LOOP))
		die2("watchdog self-test: connect failed");
	rnr_retry_override = -1;
	timeout_override = -1;
	/* Deliberately not marked unbounded: the watchdog must catch it. */
	C[0].qp[qa].unbounded = 0;
	{
		struct ibv_sge s = { .addr = (uint64_t)(uintptr_t)zone, .length = 0, .lkey = 0 };
		struct ibv_send_wr w, *bad;
		int ri = rec_alloc();
		struct rec *r = &recs[ri];

		memset(&w, 0, sizeof(w));
		w.wr_id = r->id;
		w.opcode = IBV_WR_SEND;
		w.send_flags = IBV_SEND_SIGNALED;
		w.sg_list = &s;
		w.num_sge = 0;
		if (ibv_post_send(C[0].qp[qa].qp, &w, &bad))
			die2("watchdog self-test: post: %s", strerror(errno));
		send_rec(0, qa, ri, IBV_WR_SEND, 1, 1);
	}
	out("watchdog self-test: a SEND that can never complete (rnr_retry 7, timeout 0, "
	    "no receive WR), watchdog %d s", o.watchdog);
	{
		long end = now_ms() + 20000;

		while (!nfail && now_ms() < end) {
			poll_all(4);
			events_all();
			watchdog_check((long)o.watchdog * 1000, 0);
			usleep(20000);
		}
	}
	if (!nfail)
		out("watchdog self-test: the watchdog did not fire; the SEND completed with %s "
		    "(rnr_retry 7 and timeout 0 are infinite, MR-RETRY-1, MR-RETRY-5)",
		    last_send_status < 0 ? "nothing" :
		    ibv_wc_status_str((enum ibv_wc_status)last_send_status));
	drain_and_teardown();
	return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "time", required_argument, NULL, 't' },
		{ "steps", required_argument, NULL, 'n' },
		{ "peer", required_argument, NULL, 'P' },
		{ "listen", no_argument, NULL, 'L' },
		{ "port", required_argument, NULL, 'p' },
		{ "connect-timeout", required_argument, NULL, 'T' },
		{ "watchdog", required_argument, NULL, 'w' },
		{ "known-every", required_argument, NULL, 'k' },
		{ "known-wait", required_argument, NULL, 'K' },
		{ "known-case", required_argument, NULL, 'C' },
		{ "skip-known-inputs", no_argument, NULL, 'S' },
		{ "no-known", no_argument, NULL, 'N' },
		{ "no-children", no_argument, NULL, 'X' },
		{ "require-unprivileged", no_argument, NULL, 'U' },
		{ "watchdog-selftest", no_argument, NULL, 'W' },
		{ "child", no_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct ibv_device **list;
	struct ibv_port_attr pa;
	struct rlimit rl;
	long start, end, next_known, next_wd;
	int i, c, seeded = 0;
	ssize_t n;

	while ((c = getopt_long(argc, argv, "d:g:s:t:n:P:Lp:T:w:k:K:C:SNXUWcv", opts,
				NULL)) != -1) {
		switch (c) {
		case 'd': o.dev = optarg; break;
		case 'g': o.gid_idx = atoi(optarg); break;
		case 's': o.seed = strtoull(optarg, NULL, 0); seeded = 1; break;
		case 't': o.seconds = atoi(optarg); break;
		case 'n': o.steps = atol(optarg); break;
		case 'P': o.peer = optarg; break;
		case 'L': o.listen = 1; break;
		case 'p': o.port = atoi(optarg); break;
		case 'T': o.connect_timeout = atoi(optarg); break;
		case 'w': o.watchdog = atoi(optarg); break;
		case 'k': o.known_every = atoi(optarg); break;
		case 'K': o.known_wait = atoi(optarg); break;
		case 'C': o.known_only = optarg; break;
		case 'S': o.skip_known_inputs = 1; break;
		case 'N': o.no_known = 1; break;
		case 'X': o.no_children = 1; break;
		case 'U': o.require_unpriv = 1; break;
		case 'W': o.wd_selftest = 1; break;
		case 'c': o.child = 1; break;
		case 'v': o.verbose = 1; break;
		default: usage();
		}
	}
	if (!o.dev || o.gid_idx < 0 || optind != argc || o.seconds < 0 ||
	    o.watchdog <= 0 || o.known_wait <= 0 || o.known_every < 0 ||
	    (o.listen && o.peer))
		usage();
	if (o.known_only) {
		for (i = 0; i < NKCASES; i++)
			if (known_selected(&kcases[i]))
				break;
		if (i == NKCASES) {
			fprintf(stderr, "%s: --known-case %s: none of", prog, o.known_only);
			for (i = 0; i < NKCASES; i++)
				fprintf(stderr, " %s", kcases[i].name);
			fprintf(stderr, "\n");
			exit(2);
		}
	}
	if (o.child) {
		o.role = "[child]";
		o.no_known = 1;
		o.no_children = 1;
	} else if (o.listen) {
		o.role = "[server]";
	} else if (o.peer) {
		o.role = "[client]";
	}
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o.seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_sec;
	}
	if (o.require_unpriv)
		check_unprivileged();
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		o.no_children = 1;
	else
		self_exe[n] = 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		die2("getrlimit: %s", strerror(errno));
	memlock_cur = rl.rlim_cur;

	mem_init();
	alarm(120);
	list = ibv_get_device_list(NULL);
	if (!list)
		die2("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), o.dev))
			break;
	if (!list[i])
		die2("no device %s", o.dev);
	dev = list[i];
	if (ctx_open(0))
		die2("ibv_open_device %s: %s", o.dev, strerror(errno));
	if (ibv_query_device(C[0].ctx, &dattr))
		die2("ibv_query_device: %s", strerror(errno));
	if (ibv_query_port(C[0].ctx, 1, &pa))
		die2("ibv_query_port: %s", strerror(errno));
	port_mtu = pa.active_mtu;
	if (ibv_query_gid(C[0].ctx, 1, o.gid_idx, &my_gid))
		die2("ibv_query_gid %d: %s", o.gid_idx, strerror(errno));
	for (i = 0; i < NQP; i++)
		C[0].qp[i].srq = -1;
	if (!o.child)
		out("%s GID index %d, seed %" PRIu64 ", %d s%s, uid %d, RLIMIT_MEMLOCK %s%" PRIu64
		    " KiB, watchdog %d s", o.dev, o.gid_idx, o.seed, o.seconds,
		    o.peer || o.listen ? ", with the peer VM" : "", (int)getuid(),
		    memlock_cur == RLIM_INFINITY ? "unlimited " : "",
		    memlock_cur == RLIM_INFINITY ? 0 : memlock_cur / 1024, o.watchdog);

	if (o.wd_selftest)
		return watchdog_selftest();
	if (o.listen || o.peer)
		ctl_setup();

	start = now_ms();
	end = start + (long)o.seconds * 1000;
	next_known = o.known_every ? start + (long)o.known_every * 1000 : end + 1;
	next_wd = start + 1000;
	for (step = 0;; step++) {
		long now = now_ms();

		if (now >= end || (o.steps && step >= o.steps) || nfail >= 20)
			break;
		if (!o.no_known && now >= next_known && now < end) {
			/* --known-every: a round amid the random traffic too. */
			known_round();
			next_known = now_ms() + (long)o.known_every * 1000;
		}
		rng_step((uint64_t)step);
		one_step();
		st.steps++;
		if (o.child && chance(1) && chance(20)) {
			/* Die abruptly, maybe after closing the contexts with everything alive. */
			if (chance(50))
				for (i = 0; i < NCTX; i++)
					if (C[i].ctx)
						ibv_close_device(C[i].ctx);
			_exit(nfail ? 1 : 0);
		}
		child_check(0);
		if (now_ms() >= next_wd) {
			periodic_checks();
			next_wd = now_ms() + 1000;
		}
	}
	if (o.child) {
		/* A child never cleans up: the kernel does, at exit. */
		if (chance(50))
			for (i = 0; i < NCTX; i++)
				if (C[i].ctx)
					ibv_close_device(C[i].ctx);
		_exit(nfail ? 1 : 0);
	}
	alarm(0);
	out("fuzzing done after %ld steps", step);
	/*
	 * The known cases after the random phase: on a kernel that gets one
	 * of them wrong, the random phase has still run on a healthy device.
	 */
	if (!o.no_known)
		known_round();
	out("draining: every QP to ERR, every WR must come back");
	ctl_send("E");
	drain_and_teardown();
	ibv_free_device_list(list);
	if (cfd >= 0) {
		/* Let the peer finish with its QPs towards us before we go. */
		long w = now_ms() + 300000;

		while (!peer_ended && cfd >= 0 && now_ms() < w) {
			alarm(120);
			ctl_poll();
			usleep(20000);
		}
		if (!peer_ended)
			out("note: the peer did not report its end");
		close(cfd);
	}
	alarm(0);
	out("stats: steps=%lu calls=%lu ok=%lu errors=%lu wrs=%lu cqes=%lu error-cqes=%lu "
	    "flushed=%lu late-cqes=%lu events=%lu children=%lu peer-qps=%lu peer-ok=%lu "
	    "uc-qps=%lu uc-recv=%lu rereg-ok=%lu mw-bound=%lu mw-refused=%lu mr-busy=%lu "
	    "mmap-ok=%lu known-ok=%lu", st.steps, st.calls, st.ok, st.err, st.wrs, st.cqes,
	    st.cqe_err, st.flush, st.dead_cqes, st.events, st.children, st.peer_qps,
	    st.peer_ok, st.uc_qps, st.uc_recv, st.rereg_ok, st.mw_bound, st.mw_refused,
	    st.mr_busy, st.mmap_ok, st.known_ok);
	if (nfail) {
		out("FAIL: %d failure(s), seed %" PRIu64 ", first: %s", nfail, o.seed, first_fail);
		return 1;
	}
	if (!st.calls || (!o.no_known && !st.known_ok)) {
		out("FAIL: nothing ran");
		return 1;
	}
	out("PASS: seed %" PRIu64 ", %lu steps, %lu verbs calls, %lu WRs, %lu completions, "
	    "%lu known cases", o.seed, st.steps, st.calls, st.wrs, st.cqes, st.known_ok);
	return 0;
}
