// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host check of the provider's datapath builders, run by
 * `make -C userspace check` (no RDMA device: the rings are plain memory).
 *
 * queues.c is compiled into this program, so its static builders are
 * called directly; the doorbell (ibv_cmd_post_send) is interposed here
 * and counted.  Checked:
 *
 *   - every opcode, through ibv_post_send() and through the ibv_wr_*()
 *     API (the public inline wrappers, i.e. the callbacks the provider
 *     installs), writes exactly the struct metaroce_sq_wqe written out
 *     independently below, byte for byte over the whole slot;
 *   - ibv_wr_complete() publishes a batch with one doorbell, ibv_wr_abort()
 *     and any error inside a batch publish nothing and leave the producer
 *     index where it was, and the SQ lock is free afterwards;
 *   - create_qp_ex's attribute and send_ops_flags checks, and
 *     create_cq_ex's refusals;
 *   - the ibv_cq_ex accessors return what ibv_poll_cq() returns for the
 *     same CQEs (one decoder), the consumer index moves as for
 *     ibv_poll_cq(), and start/next/end_poll behave on an empty, a
 *     refilled and a corrupt ring.
 */
#include <endian.h>
#include <stdio.h>

#include "queues.c"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int failures;
static int checks;

#define CHECK(cond)							\
	do {								\
		checks++;						\
		if (!(cond)) {						\
			fprintf(stderr, "test_datapath: FAIL %s:%d: %s\n", \
				__FILE__, __LINE__, #cond);		\
			failures++;					\
		}							\
	} while (0)

/* The doorbell: counted, never sent. */
static int doorbells;

int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr)
{
	(void)ibqp;
	(void)bad_wr;
	if (!wr)
		doorbells++;
	return 0;
}

#define ENTRIES		8
#define MAX_SGE		4
#define MAX_INLINE	128
/* mroce_sq_min_stride(MAX_SGE, MAX_INLINE) */
#define STRIDE		(64 + MAX_INLINE)
#define FILL		0xa5	/* slot bytes before a WQE is written */

static const uint64_t WR_ID = 0x1122334455667788ULL;
static const uint32_t RKEY = 0xabcd0102;
static const uint64_t RADDR = 0x7f0012345678ULL;
static const uint64_t COMPARE = 0x0505050505050505ULL;
static const uint64_t SWAP = 0x0909090909090909ULL;
static const uint32_t INV_RKEY = 0x00c0ffee;
static const uint32_t QPN = 0x123456;
static const uint32_t QKEY = 0x11111111;
static const uint32_t AH_NUM = 77;

static const struct ibv_sge SGES[2] = {
	{ .addr = 0x100000, .length = 100, .lkey = 0x42 },
	{ .addr = 0x200000, .length = 3000, .lkey = 0x43 },
};
static const char INL_A[] = "inline ";
static const char INL_B[] = "data, two buffers";

static struct mroce_ah test_ah = { .ah_num = 77 };

struct fake_qp {
	struct mroce_qp *qp;
	void *mem;
};

static struct fake_qp fake_qp(enum ibv_qp_type type, uint32_t limit,
			      bool sig_all, uint64_t send_ops)
{
	size_t sz = METAROCE_RING_HDR_SIZE + (size_t)ENTRIES * STRIDE;
	struct fake_qp f;
	struct mroce_qp *qp;

	_Static_assert(STRIDE % 16 == 0, "stride");
	qp = calloc(1, sizeof(*qp));
	f.mem = aligned_alloc(64, sz);
	if (!qp || !f.mem || pthread_spin_init(&qp->sq_lock, 0))
		exit(2);
	memset(f.mem, FILL, sz);
	memset(f.mem, 0, METAROCE_RING_HDR_SIZE);
	qp->vqp.qp.qp_type = type;
	qp->vqp.qp.state = IBV_QPS_RTS;
	qp->sq.hdr = f.mem;
	qp->sq.slots = (uint8_t *)f.mem + METAROCE_RING_HDR_SIZE;
	qp->sq.entries = ENTRIES;
	qp->sq.stride = STRIDE;
	qp->sq.limit = limit;
	qp->sq_sig_all = sig_all;
	qp->max_send_sge = MAX_SGE;
	qp->max_inline_data = MAX_INLINE;
	if (mroce_sq_min_stride(MAX_SGE, MAX_INLINE) > STRIDE)
		exit(2);
	mroce_qpx_init(qp, send_ops);
	f.qp = qp;
	return f;
}

static void fake_qp_free(struct fake_qp *f)
{
	pthread_spin_destroy(&f->qp->sq_lock);
	free(f->qp);
	free(f->mem);
}

/* The SQ lock is free (nobody left it held). */
static bool sq_unlocked(struct mroce_qp *qp)
{
	if (pthread_spin_trylock(&qp->sq_lock))
		return false;
	pthread_spin_unlock(&qp->sq_lock);
	return true;
}

/* ------------------------------------------------------------------ */
/* One WQE per opcode, three ways                                       */

struct wqe_case {
	const char *name;
	enum ibv_qp_type type;
	enum ibv_wr_opcode op;
	unsigned int flags;	/* send_flags / wr_flags, without INLINE */
	bool inl;		/* data inline (both buffers) */
	bool sig_all;
};

static const struct wqe_case wqe_cases[] = {
	{ "rc send", IBV_QPT_RC, IBV_WR_SEND, IBV_SEND_SIGNALED, false, false },
	{ "rc send_imm", IBV_QPT_RC, IBV_WR_SEND_WITH_IMM,
	  IBV_SEND_SOLICITED, false, true },
	{ "rc send_inv", IBV_QPT_RC, IBV_WR_SEND_WITH_INV,
	  IBV_SEND_FENCE | IBV_SEND_SIGNALED, false, false },
	{ "rc rdma_write", IBV_QPT_RC, IBV_WR_RDMA_WRITE, 0, false, false },
	{ "rc rdma_write_imm", IBV_QPT_RC, IBV_WR_RDMA_WRITE_WITH_IMM,
	  IBV_SEND_SIGNALED, false, false },
	{ "rc rdma_read", IBV_QPT_RC, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED,
	  false, false },
	{ "rc cmp_swp", IBV_QPT_RC, IBV_WR_ATOMIC_CMP_AND_SWP,
	  IBV_SEND_SIGNALED, false, false },
	{ "rc fetch_add", IBV_QPT_RC, IBV_WR_ATOMIC_FETCH_AND_ADD,
	  IBV_SEND_FENCE, false, true },
	{ "rc send inline", IBV_QPT_RC, IBV_WR_SEND, IBV_SEND_SIGNALED,
	  true, false },
	{ "rc send_imm inline", IBV_QPT_RC, IBV_WR_SEND_WITH_IMM, 0,
	  true, false },
	{ "rc rdma_write inline", IBV_QPT_RC, IBV_WR_RDMA_WRITE, 0, true,
	  false },
	{ "ud send", IBV_QPT_UD, IBV_WR_SEND, IBV_SEND_SIGNALED, false,
	  false },
	{ "ud send_imm inline", IBV_QPT_UD, IBV_WR_SEND_WITH_IMM,
	  IBV_SEND_SOLICITED, true, true },
};

static bool is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static size_t case_nsge(const struct wqe_case *c)
{
	return is_atomic(c->op) ? 1 : 2;
}

/* The WQE the case must produce, from the uapi layout alone. */
static void expected_wqe(const struct wqe_case *c, uint8_t *slot)
{
	struct metaroce_sq_wqe *w = (struct metaroce_sq_wqe *)slot;
	uint32_t flags = c->flags;
	size_t i;

	memset(slot, FILL, STRIDE);
	memset(w, 0, sizeof(*w));
	if (c->sig_all)
		flags |= METAROCE_SEND_SIGNALED;
	if (c->inl)
		flags |= METAROCE_SEND_INLINE;
	w->wr_id = WR_ID;
	w->opcode = c->op;
	w->send_flags = flags;
	if (c->op == IBV_WR_SEND_WITH_IMM ||
	    c->op == IBV_WR_RDMA_WRITE_WITH_IMM)
		w->ex.imm_data = htobe32(0xdeadbeef);
	if (c->op == IBV_WR_SEND_WITH_INV)
		w->ex.invalidate_rkey = INV_RKEY;
	if (c->type == IBV_QPT_UD) {
		w->wr.ud.ah_num = AH_NUM;
		w->wr.ud.remote_qpn = QPN;
		w->wr.ud.remote_qkey = QKEY;
	} else if (c->op == IBV_WR_RDMA_WRITE ||
		   c->op == IBV_WR_RDMA_WRITE_WITH_IMM ||
		   c->op == IBV_WR_RDMA_READ) {
		w->wr.rdma.remote_addr = RADDR;
		w->wr.rdma.rkey = RKEY;
	} else if (is_atomic(c->op)) {
		w->wr.atomic.remote_addr = RADDR;
		w->wr.atomic.rkey = RKEY;
		w->wr.atomic.compare_add = COMPARE;
		if (c->op == IBV_WR_ATOMIC_CMP_AND_SWP)
			w->wr.atomic.swap = SWAP;
	}
	if (c->inl) {
		w->inline_len = strlen(INL_A) + strlen(INL_B);
		memcpy(w->inline_data, INL_A, strlen(INL_A));
		memcpy(w->inline_data + strlen(INL_A), INL_B, strlen(INL_B));
	} else {
		w->num_sge = case_nsge(c);
		for (i = 0; i < case_nsge(c); i++) {
			w->sge[i].addr = SGES[i].addr;
			w->sge[i].length = SGES[i].length;
			w->sge[i].lkey = SGES[i].lkey;
		}
	}
}

static int post_case(struct mroce_qp *qp, const struct wqe_case *c)
{
	struct ibv_sge isg[2] = {
		{ .addr = (uintptr_t)INL_A, .length = strlen(INL_A) },
		{ .addr = (uintptr_t)INL_B, .length = strlen(INL_B) },
	};
	struct ibv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_ID;
	wr.opcode = c->op;
	wr.send_flags = c->flags | (c->inl ? IBV_SEND_INLINE : 0);
	wr.sg_list = c->inl ? isg : (struct ibv_sge *)SGES;
	wr.num_sge = c->inl ? 2 : (int)case_nsge(c);
	if (c->op == IBV_WR_SEND_WITH_IMM ||
	    c->op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htobe32(0xdeadbeef);
	if (c->op == IBV_WR_SEND_WITH_INV)
		wr.invalidate_rkey = INV_RKEY;
	if (c->type == IBV_QPT_UD) {
		wr.wr.ud.ah = &test_ah.ibah;
		wr.wr.ud.remote_qpn = QPN;
		wr.wr.ud.remote_qkey = QKEY;
	} else if (is_atomic(c->op)) {
		wr.wr.atomic.remote_addr = RADDR;
		wr.wr.atomic.rkey = RKEY;
		wr.wr.atomic.compare_add = COMPARE;
		if (c->op == IBV_WR_ATOMIC_CMP_AND_SWP)
			wr.wr.atomic.swap = SWAP;
	} else {
		wr.wr.rdma.remote_addr = RADDR;
		wr.wr.rdma.rkey = RKEY;
	}
	return mroce_post_send(&qp->vqp.qp, &wr, &bad);
}

/* Builds the case's WR in an open ibv_wr_start() batch. */
static void wr_case(struct ibv_qp_ex *qpx, const struct wqe_case *c)
{
	const struct ibv_data_buf bufs[2] = {
		{ .addr = (void *)INL_A, .length = strlen(INL_A) },
		{ .addr = (void *)INL_B, .length = strlen(INL_B) },
	};

	qpx->wr_id = WR_ID;
	/* INLINE in wr_flags must not matter: the data setter decides. */
	qpx->wr_flags = c->flags | (c->inl ? 0 : IBV_SEND_INLINE);
	switch (c->op) {
	case IBV_WR_SEND:
		ibv_wr_send(qpx);
		break;
	case IBV_WR_SEND_WITH_IMM:
		ibv_wr_send_imm(qpx, htobe32(0xdeadbeef));
		break;
	case IBV_WR_SEND_WITH_INV:
		ibv_wr_send_inv(qpx, INV_RKEY);
		break;
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(qpx, RKEY, RADDR);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ibv_wr_rdma_write_imm(qpx, RKEY, RADDR, htobe32(0xdeadbeef));
		break;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(qpx, RKEY, RADDR);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		ibv_wr_atomic_cmp_swp(qpx, RKEY, RADDR, COMPARE, SWAP);
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		ibv_wr_atomic_fetch_add(qpx, RKEY, RADDR, COMPARE);
		break;
	default:
		abort();
	}
	if (c->type == IBV_QPT_UD)
		ibv_wr_set_ud_addr(qpx, &test_ah.ibah, QPN, QKEY);
	if (c->inl)
		ibv_wr_set_inline_data_list(qpx, 2, bufs);
	else if (case_nsge(c) == 1)
		ibv_wr_set_sge(qpx, SGES[0].lkey, SGES[0].addr,
			       SGES[0].length);
	else
		ibv_wr_set_sge_list(qpx, case_nsge(c), SGES);
}

static void test_wqe_cases(void)
{
	_Alignas(64) uint8_t exp[STRIDE];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wqe_cases); i++) {
		const struct wqe_case *c = &wqe_cases[i];
		uint64_t ops = c->type == IBV_QPT_UD ? MROCE_QPX_OPS_UD :
						       MROCE_QPX_OPS_RC;
		struct fake_qp a = fake_qp(c->type, ENTRIES, c->sig_all, ops);
		struct fake_qp b = fake_qp(c->type, ENTRIES, c->sig_all, ops);
		struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(&b.qp->vqp.qp);
		int db = doorbells, r1, r2;

		expected_wqe(c, exp);
		r1 = post_case(a.qp, c);
		CHECK(qpx == &b.qp->vqp.qp_ex);
		ibv_wr_start(qpx);
		wr_case(qpx, c);
		r2 = ibv_wr_complete(qpx);
		if (r1 || r2 ||
		    memcmp(mroce_ring_slot(&a.qp->sq, 0), exp, STRIDE) ||
		    memcmp(mroce_ring_slot(&b.qp->sq, 0), exp, STRIDE))
			fprintf(stderr,
				"test_datapath: case %s: post_send %d, wr_complete %d\n",
				c->name, r1, r2);
		CHECK(r1 == 0);
		CHECK(r2 == 0);
		CHECK(!memcmp(mroce_ring_slot(&a.qp->sq, 0), exp, STRIDE));
		CHECK(!memcmp(mroce_ring_slot(&b.qp->sq, 0), exp, STRIDE));
		CHECK(a.qp->sq.hdr->prod == 1 && b.qp->sq.hdr->prod == 1);
		CHECK(doorbells == db + 2);
		CHECK(sq_unlocked(b.qp));
		fake_qp_free(&a);
		fake_qp_free(&b);
	}
}

/* ------------------------------------------------------------------ */
/* Batches                                                              */

static void send_sge(struct ibv_qp_ex *qpx, uint64_t wr_id)
{
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 1, 0x1000, 8);
}

static void test_batches(void)
{
	struct fake_qp f = fake_qp(IBV_QPT_RC, ENTRIES, false,
				   MROCE_QPX_OPS_RC);
	struct ibv_qp_ex *qpx = &f.qp->vqp.qp_ex;
	struct metaroce_sq_wqe *w;
	struct ibv_sge many[MAX_SGE + 1];
	int db, i;

	memset(many, 0, sizeof(many));

	/* Three WRs, one doorbell, prod 3, each slot its own wr_id. */
	db = doorbells;
	ibv_wr_start(qpx);
	for (i = 0; i < 3; i++)
		send_sge(qpx, 100 + i);
	CHECK(f.qp->sq.hdr->prod == 0);	/* nothing published before */
	CHECK(ibv_wr_complete(qpx) == 0);
	CHECK(f.qp->sq.hdr->prod == 3);
	CHECK(doorbells == db + 1);
	for (i = 0; i < 3; i++) {
		w = mroce_ring_slot(&f.qp->sq, i);
		CHECK(w->wr_id == 100u + i && w->opcode == IBV_WR_SEND);
	}
	CHECK(sq_unlocked(f.qp));

	/* Abort: nothing published, the next batch reuses the slots. */
	db = doorbells;
	ibv_wr_start(qpx);
	send_sge(qpx, 200);
	ibv_wr_abort(qpx);
	CHECK(f.qp->sq.idx == 3 && f.qp->sq.hdr->prod == 3);
	CHECK(doorbells == db);
	CHECK(sq_unlocked(f.qp));

	/* An empty batch: success, no doorbell. */
	ibv_wr_start(qpx);
	CHECK(ibv_wr_complete(qpx) == 0);
	CHECK(doorbells == db);

	/* An error in the second WR discards the first one too. */
	ibv_wr_start(qpx);
	send_sge(qpx, 300);
	ibv_wr_send(qpx);
	ibv_wr_set_sge_list(qpx, MAX_SGE + 1, many);
	send_sge(qpx, 301);	/* ignored after the error */
	CHECK(ibv_wr_complete(qpx) == EINVAL);
	CHECK(f.qp->sq.idx == 3 && f.qp->sq.hdr->prod == 3);
	CHECK(doorbells == db);
	CHECK(sq_unlocked(f.qp));

	/* Granted depth 4 with 3 outstanding: the second WR finds no room. */
	f.qp->sq.limit = 4;
	ibv_wr_start(qpx);
	send_sge(qpx, 400);
	send_sge(qpx, 401);
	CHECK(ibv_wr_complete(qpx) == ENOMEM);
	CHECK(f.qp->sq.idx == 3 && doorbells == db);

	/* The kernel consumed two: two fit now, and post_send still works. */
	f.qp->sq.hdr->cons = 2;
	ibv_wr_start(qpx);
	send_sge(qpx, 500);
	send_sge(qpx, 501);
	CHECK(ibv_wr_complete(qpx) == 0);
	CHECK(f.qp->sq.hdr->prod == 5 && doorbells == db + 1);
	w = mroce_ring_slot(&f.qp->sq, 4);
	CHECK(w->wr_id == 501);

	/* A cons beyond prod is corruption: EIO, nothing published. */
	f.qp->sq.hdr->cons = 9;
	ibv_wr_start(qpx);
	send_sge(qpx, 600);
	CHECK(ibv_wr_complete(qpx) == EIO);
	CHECK(f.qp->sq.hdr->prod == 5);
	f.qp->sq.hdr->cons = 5;

	/* Not yet RTS: the batch is refused at wr_complete. */
	f.qp->vqp.qp.state = IBV_QPS_RTR;
	ibv_wr_start(qpx);
	send_sge(qpx, 700);
	CHECK(ibv_wr_complete(qpx) == EINVAL);
	CHECK(f.qp->sq.idx == 5 && f.qp->sq.hdr->prod == 5);
	CHECK(sq_unlocked(f.qp));
	f.qp->vqp.qp.state = IBV_QPS_RTS;

	fake_qp_free(&f);
}

/* Each builder/setter misuse fails the batch with its error. */
static void test_batch_errors(void)
{
	struct fake_qp rc = fake_qp(IBV_QPT_RC, ENTRIES, false,
				    IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_RDMA_READ |
				    IBV_QP_EX_WITH_BIND_MW |
				    IBV_QP_EX_WITH_LOCAL_INV);
	struct fake_qp ud = fake_qp(IBV_QPT_UD, ENTRIES, false,
				    MROCE_QPX_OPS_UD);
	struct ibv_qp_ex *q = &rc.qp->vqp.qp_ex, *u = &ud.qp->vqp.qp_ex;
	char big[MAX_INLINE + 1];
	struct ibv_data_buf two[2] = {
		{ .addr = big, .length = MAX_INLINE },
		{ .addr = big, .length = 1 },
	};

	memset(big, 'x', sizeof(big));

	/* An operation not asked for at creation. */
	ibv_wr_start(q);
	ibv_wr_rdma_write(q, RKEY, RADDR);
	CHECK(ibv_wr_complete(q) == EINVAL);

	/* A setter with no builder before it. */
	ibv_wr_start(q);
	ibv_wr_set_sge(q, 1, 0x1000, 8);
	CHECK(ibv_wr_complete(q) == EINVAL);

	/* Inline data on an RDMA READ. */
	ibv_wr_start(q);
	ibv_wr_rdma_read(q, RKEY, RADDR);
	ibv_wr_set_inline_data(q, big, 4);
	CHECK(ibv_wr_complete(q) == EINVAL);

	/* Inline data: exactly max_inline_data fits, one byte more not. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, big, MAX_INLINE);
	CHECK(ibv_wr_complete(q) == 0);
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data_list(q, 2, two);
	CHECK(ibv_wr_complete(q) == EINVAL);
	CHECK(rc.qp->sq.hdr->prod == 1);

	/* A later data setter replaces an earlier one. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, big, MAX_INLINE);
	ibv_wr_set_sge(q, 7, 0x2000, 16);
	CHECK(ibv_wr_complete(q) == 0);
	{
		struct metaroce_sq_wqe *w = mroce_ring_slot(&rc.qp->sq, 1);

		CHECK(!(w->send_flags & METAROCE_SEND_INLINE));
		CHECK(w->num_sge == 1 && w->inline_len == 0 &&
		      w->sge[0].lkey == 7);
	}

	/* An address on an RC QP; refused operations and XRC. */
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_ud_addr(q, &test_ah.ibah, QPN, QKEY);
	CHECK(ibv_wr_complete(q) == EINVAL);
	/* A bind without a window is refused at once. */
	ibv_wr_start(q);
	ibv_wr_bind_mw(q, NULL, 5, NULL);
	CHECK(ibv_wr_complete(q) == EINVAL);
	/* A bind and a LOCAL_INV: their WQEs, no data. */
	{
		struct ibv_mr mr = { .lkey = 0x1207 };
		struct ibv_mw mw = { .rkey = 0x3400 };
		struct ibv_mw_bind_info bi = {
			.mr = &mr, .addr = 0x5000, .length = 64,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
		};
		struct metaroce_sq_wqe *w;

		ibv_wr_start(q);
		ibv_wr_bind_mw(q, &mw, 0x3401, &bi);
		ibv_wr_local_inv(q, 0x3401);
		CHECK(ibv_wr_complete(q) == 0);
		w = mroce_ring_slot(&rc.qp->sq, 2);
		CHECK(w->opcode == METAROCE_WR_BIND_MW && w->num_sge == 0 &&
		      w->wr.bind.mw_rkey == 0x3400 &&
		      w->wr.bind.new_rkey == 0x3401 &&
		      w->wr.bind.mr_lkey == 0x1207 &&
		      w->wr.bind.addr == 0x5000 && w->wr.bind.length == 64 &&
		      w->wr.bind.access == IBV_ACCESS_REMOTE_WRITE);
		w = mroce_ring_slot(&rc.qp->sq, 3);
		CHECK(w->opcode == METAROCE_WR_LOCAL_INV && w->num_sge == 0 &&
		      w->ex.invalidate_rkey == 0x3401);
	}
	ibv_wr_start(q);
	ibv_wr_send(q);
	ibv_wr_set_xrc_srqn(q, 5);
	CHECK(ibv_wr_complete(q) == EOPNOTSUPP);
	CHECK(rc.qp->sq.hdr->prod == 4 && sq_unlocked(rc.qp));

	/* UD: a WR without its address, and one with a NULL AH. */
	ibv_wr_start(u);
	ibv_wr_send(u);
	ibv_wr_set_sge(u, 1, 0x1000, 8);
	CHECK(ibv_wr_complete(u) == EINVAL);
	ibv_wr_start(u);
	ibv_wr_send(u);
	ibv_wr_set_ud_addr(u, &test_ah.ibah, QPN, QKEY);
	ibv_wr_send(u);		/* this one never gets an address */
	CHECK(ibv_wr_complete(u) == EINVAL);
	ibv_wr_start(u);
	ibv_wr_send(u);
	ibv_wr_set_ud_addr(u, NULL, QPN, QKEY);
	CHECK(ibv_wr_complete(u) == EINVAL);
	/* UD rejects RC operations even if the bit were granted. */
	ud.qp->send_ops |= IBV_QP_EX_WITH_RDMA_WRITE;
	ibv_wr_start(u);
	ibv_wr_rdma_write(u, RKEY, RADDR);
	ibv_wr_set_ud_addr(u, &test_ah.ibah, QPN, QKEY);
	CHECK(ibv_wr_complete(u) == EINVAL);
	CHECK(ud.qp->sq.hdr->prod == 0 && sq_unlocked(ud.qp));

	/* Invalid wr_flags. */
	ibv_wr_start(u);
	u->wr_flags = IBV_SEND_IP_CSUM;
	ibv_wr_send(u);
	ibv_wr_set_ud_addr(u, &test_ah.ibah, QPN, QKEY);
	CHECK(ibv_wr_complete(u) == EINVAL);

	fake_qp_free(&rc);
	fake_qp_free(&ud);
}

/* ------------------------------------------------------------------ */
/* create_qp_ex / create_cq_ex attribute checks                         */

static void test_create_checks(void)
{
	struct ibv_pd pd;
	struct ibv_qp_init_attr_ex a;
	struct ibv_cq_init_attr_ex ca;
	static const uint64_t refused[] = {
		IBV_QP_EX_WITH_TSO, IBV_QP_EX_WITH_ATOMIC_WRITE,
	};
	size_t i;

	memset(&pd, 0, sizeof(pd));
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.pd = &pd;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	CHECK(mroce_qp_attr_check(&a) == 0);
	/* pyverbs' random_qp_init_attr_ex: CREATE_FLAGS with 0 */
	a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	CHECK(mroce_qp_attr_check(&a) == 0);
	a.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	CHECK(mroce_qp_attr_check(&a) == EOPNOTSUPP);
	a.create_flags = 0;
	a.comp_mask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	CHECK(mroce_qp_attr_check(&a) == 0);
	a.max_tso_header = 64;
	CHECK(mroce_qp_attr_check(&a) == EOPNOTSUPP);
	a.max_tso_header = 0;
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = MROCE_QPX_OPS_RC;
	CHECK(mroce_qp_attr_check(&a) == 0);
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		a.send_ops_flags = IBV_QP_EX_WITH_SEND | refused[i];
		CHECK(mroce_qp_attr_check(&a) == EOPNOTSUPP);
	}
	a.qp_type = IBV_QPT_UD;
	a.send_ops_flags = MROCE_QPX_OPS_UD;
	CHECK(mroce_qp_attr_check(&a) == 0);
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	CHECK(mroce_qp_attr_check(&a) == EOPNOTSUPP);
	/* UC: SENDs and WRITEs, no READ or atomic (MR-UC-1). */
	a.qp_type = IBV_QPT_UC;
	a.send_ops_flags = MROCE_QPX_OPS_UC;
	CHECK(mroce_qp_attr_check(&a) == 0);
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_READ;
	CHECK(mroce_qp_attr_check(&a) == EOPNOTSUPP);
	a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	a.qp_type = IBV_QPT_XRC_SEND;
	CHECK(mroce_qp_attr_check(&a) == EOPNOTSUPP);
	a.qp_type = IBV_QPT_RC;
	a.comp_mask |= IBV_QP_INIT_ATTR_XRCD;
	CHECK(mroce_qp_attr_check(&a) == EOPNOTSUPP);
	a.comp_mask &= ~(uint32_t)(IBV_QP_INIT_ATTR_XRCD |
				   IBV_QP_INIT_ATTR_PD);
	CHECK(mroce_qp_attr_check(&a) == EINVAL);

	/* Refused before any command reaches the kernel (none exists here). */
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;
	ca.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	CHECK(!mroce_create_cq_ex(NULL, &ca) && errno == EOPNOTSUPP);
	ca.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_CVLAN;
	errno = 0;
	CHECK(!mroce_create_cq_ex(NULL, &ca) && errno == EOPNOTSUPP);
	ca.wc_flags = IBV_WC_STANDARD_FLAGS;
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	errno = 0;
	CHECK(!mroce_create_cq_ex(NULL, &ca) && errno == EOPNOTSUPP);
	ca.flags = 0;
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	errno = 0;
	CHECK(!mroce_create_cq_ex(NULL, &ca) && errno == EOPNOTSUPP);
	ca.comp_mask = 0;
	ca.cqe = 0;
	errno = 0;
	CHECK(!mroce_create_cq_ex(NULL, &ca) && errno == EINVAL);
	ca.cqe = (uint32_t)INT_MAX + 1;
	errno = 0;
	CHECK(!mroce_create_cq_ex(NULL, &ca) && errno == EINVAL);
}

/* ------------------------------------------------------------------ */
/* Extended CQ                                                          */

#define CQ_ENTRIES 4

struct fake_cq {
	struct mroce_cq *cq;
	void *mem;
	uint32_t prod;
};

static struct fake_cq fake_cq(void)
{
	size_t sz = METAROCE_RING_HDR_SIZE +
		    CQ_ENTRIES * sizeof(struct metaroce_cqe);
	struct fake_cq f;

	f.cq = calloc(1, sizeof(*f.cq));
	f.mem = aligned_alloc(64, sz);
	if (!f.cq || !f.mem || pthread_spin_init(&f.cq->lock, 0))
		exit(2);
	memset(f.mem, 0, sz);
	f.cq->ring.hdr = f.mem;
	f.cq->ring.slots = (uint8_t *)f.mem + METAROCE_RING_HDR_SIZE;
	f.cq->ring.entries = CQ_ENTRIES;
	f.cq->ring.stride = sizeof(struct metaroce_cqe);
	f.cq->ring.limit = CQ_ENTRIES;
	f.prod = 0;
	mroce_cqx_init(&f.cq->vcq.cq_ex);
	return f;
}

/* The kernel's side: one CQE into the ring, then prod. */
static void produce(struct fake_cq *f, const struct metaroce_cqe *e)
{
	memcpy(mroce_ring_slot(&f->cq->ring, f->prod), e, sizeof(*e));
	f->prod++;
	mroce_store_release(&f->cq->ring.hdr->prod, f->prod);
}

static bool cq_unlocked(struct mroce_cq *cq)
{
	if (pthread_spin_trylock(&cq->lock))
		return false;
	pthread_spin_unlock(&cq->lock);
	return true;
}

static const struct metaroce_cqe cqes[] = {
	{ .wr_id = 1, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND,
	  .byte_len = 0, .qp_num = 0x11, .wc_flags = 0 },
	{ .wr_id = 2, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV,
	  .byte_len = 1024, .qp_num = 0x12, .src_qp = 0x345678,
	  .ex.imm_data = 0x04030201,
	  .wc_flags = METAROCE_WC_F_WITH_IMM | METAROCE_WC_F_GRH,
	  .pkey_index = 0, .slid = 0x1234, .sl = 5, .dlid_path_bits = 3 },
	{ .wr_id = 3, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV,
	  .byte_len = 7, .qp_num = 0x13, .ex.invalidated_rkey = 0xbeef0001,
	  .wc_flags = METAROCE_WC_F_WITH_INV | 0x4000 /* not a verbs flag */ },
	{ .wr_id = 4, .status = 9999 /* out of range */, .opcode = 2,
	  .vendor_err = 0x77, .qp_num = 0x14 },
	{ .wr_id = 5, .status = IBV_WC_WR_FLUSH_ERR,
	  .opcode = IBV_WC_RDMA_WRITE, .qp_num = 0x15 },
};

#define NCQES ARRAY_SIZE(cqes)

/* The accessors and status/wr_id against the ibv_wc of ibv_poll_cq(). */
static void check_current(struct ibv_cq_ex *cqx, const struct ibv_wc *wc)
{
	CHECK(cqx->wr_id == wc->wr_id);
	CHECK(cqx->status == wc->status);
	CHECK(ibv_wc_read_opcode(cqx) == wc->opcode);
	CHECK(ibv_wc_read_vendor_err(cqx) == wc->vendor_err);
	CHECK(ibv_wc_read_byte_len(cqx) == wc->byte_len);
	CHECK(ibv_wc_read_wc_flags(cqx) == wc->wc_flags);
	if (wc->wc_flags & IBV_WC_WITH_INV)
		CHECK(ibv_wc_read_invalidated_rkey(cqx) ==
		      wc->invalidated_rkey);
	else
		CHECK(ibv_wc_read_imm_data(cqx) == wc->imm_data);
	CHECK(ibv_wc_read_qp_num(cqx) == wc->qp_num);
	CHECK(ibv_wc_read_src_qp(cqx) == wc->src_qp);
	CHECK(ibv_wc_read_slid(cqx) == wc->slid);
	CHECK(ibv_wc_read_sl(cqx) == wc->sl);
	CHECK(ibv_wc_read_dlid_path_bits(cqx) == wc->dlid_path_bits);
}

static void test_cq_ex(void)
{
	struct fake_cq legacy = fake_cq(), ext = fake_cq();
	struct ibv_cq_ex *cqx = &ext.cq->vcq.cq_ex;
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	struct ibv_wc wc[NCQES];
	size_t i;
	int n;

	/* The reference: ibv_poll_cq() over the same CQEs. */
	for (i = 0; i < NCQES && i < CQ_ENTRIES; i++)
		produce(&legacy, &cqes[i]);
	n = mroce_poll_cq(&legacy.cq->vcq.cq, CQ_ENTRIES, wc);
	CHECK(n == CQ_ENTRIES);
	produce(&legacy, &cqes[4]);
	n = mroce_poll_cq(&legacy.cq->vcq.cq, 1, &wc[4]);
	CHECK(n == 1);
	/* The decoder's clamping, seen through poll_cq. */
	CHECK(wc[1].wc_flags == (IBV_WC_WITH_IMM | IBV_WC_GRH));
	CHECK(wc[1].imm_data == 0x04030201);
	CHECK(wc[2].wc_flags == IBV_WC_WITH_INV);
	CHECK(wc[2].invalidated_rkey == 0xbeef0001);
	CHECK(wc[3].status == IBV_WC_GENERAL_ERR);

	/*
	 * Empty: ENOENT, lock released; end_poll after it does nothing, not
	 * even release the lock another poller holds.
	 */
	CHECK(ibv_start_poll(cqx, &pa) == ENOENT);
	CHECK(cq_unlocked(ext.cq));
	pthread_spin_lock(&ext.cq->lock);
	ibv_end_poll(cqx);
	CHECK(!cq_unlocked(ext.cq));
	pthread_spin_unlock(&ext.cq->lock);

	/* Two ready: start, next, then ENOENT until a third arrives. */
	produce(&ext, &cqes[0]);
	produce(&ext, &cqes[1]);
	CHECK(ibv_start_poll(cqx, &pa) == 0);
	CHECK(!cq_unlocked(ext.cq));	/* held while polling */
	check_current(cqx, &wc[0]);
	CHECK(ext.cq->ring.hdr->cons == 0);
	CHECK(ibv_next_poll(cqx) == 0);
	check_current(cqx, &wc[1]);
	CHECK(ext.cq->ring.hdr->cons == 1);
	CHECK(ibv_next_poll(cqx) == ENOENT);
	CHECK(ext.cq->ring.hdr->cons == 2);
	produce(&ext, &cqes[2]);
	CHECK(ibv_next_poll(cqx) == 0);
	check_current(cqx, &wc[2]);
	ibv_end_poll(cqx);
	CHECK(ext.cq->ring.hdr->cons == 3 && ext.cq->ring.idx == 3);
	CHECK(cq_unlocked(ext.cq));

	/* ibv_poll_cq() on the same CQ in between, then the ext API again. */
	produce(&ext, &cqes[3]);
	produce(&ext, &cqes[4]);
	n = mroce_poll_cq(&ext.cq->vcq.cq, 1, wc);
	CHECK(n == 1 && wc[0].wr_id == 4 && wc[0].status == IBV_WC_GENERAL_ERR);
	CHECK(ibv_start_poll(cqx, &pa) == 0);
	check_current(cqx, &wc[4]);
	ibv_end_poll(cqx);
	CHECK(ext.cq->ring.hdr->cons == 5);

	/* A poll attribute with an unknown comp_mask. */
	pa.comp_mask = 1;
	CHECK(ibv_start_poll(cqx, &pa) == EINVAL);
	CHECK(cq_unlocked(ext.cq));
	pa.comp_mask = 0;

	/* prod claiming more than the ring holds: EIO, nothing consumed. */
	mroce_store_release(&ext.cq->ring.hdr->prod, ext.prod + CQ_ENTRIES + 1);
	CHECK(ibv_start_poll(cqx, &pa) == EIO);
	CHECK(cq_unlocked(ext.cq));
	CHECK(ext.cq->ring.hdr->cons == 5);
	mroce_store_release(&ext.cq->ring.hdr->prod, ext.prod);
	produce(&ext, &cqes[0]);
	CHECK(ibv_start_poll(cqx, &pa) == 0);
	mroce_store_release(&ext.cq->ring.hdr->prod, ext.prod + CQ_ENTRIES + 1);
	CHECK(ibv_next_poll(cqx) == EIO);
	ibv_end_poll(cqx);
	CHECK(cq_unlocked(ext.cq));
	CHECK(ext.cq->ring.hdr->cons == 6);

	for (i = 0; i < 2; i++) {
		struct fake_cq *f = i ? &ext : &legacy;

		pthread_spin_destroy(&f->cq->lock);
		free(f->cq);
		free(f->mem);
	}
}

int main(void)
{
	test_wqe_cases();
	test_batches();
	test_batch_errors();
	test_create_checks();
	test_cq_ex();
	if (failures) {
		fprintf(stderr, "test_datapath: %d of %d checks failed\n",
			failures, checks);
		return 1;
	}
	printf("test_datapath: %d checks of the SQ builders, ibv_wr_*() batches and ibv_cq_ex OK\n",
	       checks);
	return 0;
}
