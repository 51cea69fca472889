// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE queue pairs: creation, the IB state machine (checked with
 * ib_modify_qp_is_ok), attributes, work request posting and the flush
 * of outstanding work to the CQs when the QP enters the error state.
 */

#include <linux/slab.h>
#include <linux/log2.h>
#include <rdma/ib_cache.h>

#include "metaroce.h"
#include "trace.h"

/* ---- lookup / lifetime ---------------------------------------------- */

/* Receive-path lookup: a referenced QP or NULL (mroce_qp_put()). */
struct mroce_qp *mroce_qp_get(struct mroce_dev *dev, u32 qpn)
{
	struct mroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&dev->qps, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

void mroce_qp_put(struct mroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->done);
}

void mroce_qp_async_event(struct mroce_qp *qp, enum ib_event_type type)
{
	struct ib_qp *ibqp = &qp->ibqp;
	struct ib_event ev = {
		.device = ibqp->device,
		.element.qp = ibqp,
		.event = type,
	};

	if (ibqp->event_handler)
		ibqp->event_handler(&ev, ibqp->qp_context);
}

/* Ring corruption or similar: error state and IB_EVENT_QP_FATAL. */
void mroce_qp_fatal(struct mroce_qp *qp)
{
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		return;
	mroce_qp_error(qp);
	mroce_qp_async_event(qp, IB_EVENT_QP_FATAL);
}

/* ---- queues ---------------------------------------------------------- */

int mroce_rq_init(struct mroce_rq *rq, u32 max_wr, u32 max_sge)
{
	spin_lock_init(&rq->lock);
	rq->size = roundup_pow_of_two(max(max_wr, 1U));
	rq->max_sge = max(max_sge, 1U);
	rq->wqe_size = struct_size((struct mroce_recv_wqe *)NULL, sge,
				   rq->max_sge);
	rq->buf = kvcalloc(rq->size, rq->wqe_size, GFP_KERNEL_ACCOUNT);
	return rq->buf ? 0 : -ENOMEM;
}

void mroce_rq_free(struct mroce_rq *rq)
{
	kvfree(rq->buf);
	rq->buf = NULL;
}

static struct mroce_recv_wqe *mroce_rq_ret_wqe(struct mroce_rq *rq, u32 idx)
{
	return rq->ret + (size_t)(idx & (rq->size - 1)) * rq->wqe_size;
}

/*
 * The receive WQE to consume next - one given back first, then the
 * ring's (a user ring's new WQEs are taken in) - or NULL if none.
 * rq->lock held; mroce_rq_consume() takes it.
 */
struct mroce_recv_wqe *mroce_rq_peek(struct mroce_rq *rq)
{
	if (rq->ret_head != rq->ret_tail)
		return mroce_rq_ret_wqe(rq, rq->ret_head);
	if (!mroce_rq_count(rq))
		mroce_urq_pull(rq);
	if (!mroce_rq_count(rq))
		return NULL;
	return mroce_rq_wqe(rq, rq->head);
}

/* Consume the WQE mroce_rq_peek() returned; rq->lock held. */
void mroce_rq_consume(struct mroce_rq *rq)
{
	if (rq->ret_head != rq->ret_tail) {
		rq->ret_head++;
		return;
	}
	rq->head++;
	/* A user ring's slot is the process's again. */
	mroce_urq_publish(rq);
}

/*
 * An SRQ WQE a QP bound and did not use goes back to the SRQ
 * (MR-VERBS-20). False if there is no room (the caller flushes it).
 * rq->lock held.
 */
bool mroce_rq_give_back(struct mroce_rq *rq, const struct mroce_recv_wqe *w)
{
	if (!rq->ret || rq->ret_tail - rq->ret_head >= rq->size)
		return false;
	memcpy(mroce_rq_ret_wqe(rq, rq->ret_tail), w, rq->wqe_size);
	rq->ret_tail++;
	return true;
}

/* Append one receive WR; the caller holds rq->lock. */
int mroce_rq_post(struct mroce_rq *rq, const struct ib_recv_wr *wr)
{
	struct mroce_recv_wqe *wqe;

	if (unlikely(wr->num_sge < 0 || wr->num_sge > rq->max_sge))
		return -EINVAL;
	if (unlikely(mroce_rq_count(rq) >= rq->size))
		return -ENOMEM;

	wqe = mroce_rq_wqe(rq, rq->tail);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	memcpy(wqe->sge, wr->sg_list, wr->num_sge * sizeof(*wr->sg_list));
	rq->tail++;
	return 0;
}

static int mroce_sq_init(struct mroce_sq *sq, struct ib_qp_cap *cap)
{
	size_t data;

	spin_lock_init(&sq->lock);
	sq->size = roundup_pow_of_two(max(cap->max_send_wr, 1U));
	sq->max_sge = max(cap->max_send_sge, 1U);
	sq->max_inline = cap->max_inline_data;
	data = max_t(size_t, sq->max_sge * sizeof(struct ib_sge),
		     sq->max_inline);
	sq->wqe_size = ALIGN(sizeof(struct mroce_send_wqe) + data, 8);
	sq->buf = kvcalloc(sq->size, sq->wqe_size, GFP_KERNEL_ACCOUNT);
	return sq->buf ? 0 : -ENOMEM;
}

/* ---- create / destroy ------------------------------------------------ */

/*
 * A user QP's rings, the same size as the kernel's queues so that ring
 * slot i is kernel slot i, and the create response describing them.
 */
static int mroce_qp_user_rings(struct mroce_qp *qp, struct ib_udata *udata,
			       struct metaroce_create_qp_resp *resp)
{
	struct mroce_ucontext *uc = mroce_udata_uctx(udata);
	u32 body, stride;
	int err;

	qp->uctx = uc;
	body = max_t(u32, qp->sq.max_sge * sizeof(struct metaroce_sge),
		     qp->sq.max_inline);
	stride = ALIGN(sizeof(struct metaroce_sq_wqe) + body, 64);
	err = mroce_uring_alloc(&qp->usq, &uc->ibuc, qp->sq.size, stride,
				&resp->sq_mi);
	if (err)
		return err;
	resp->sq_entries = qp->sq.size;
	resp->sq_wqe_size = stride;
	if (!qp->srq) {
		stride = struct_size((struct metaroce_rq_wqe *)NULL, sge,
				     qp->rq.max_sge);
		err = mroce_uring_alloc(&qp->rq.ur, &uc->ibuc, qp->rq.size,
					stride, &resp->rq_mi);
		if (err)
			goto err_sq;
		resp->rq_entries = qp->rq.size;
		resp->rq_wqe_size = stride;
	}
	err = mroce_udata_resp(udata, resp, sizeof(*resp));
	if (err)
		goto err_rq;
	return 0;

err_rq:
	mroce_uring_free(&qp->rq.ur);
err_sq:
	mroce_uring_free(&qp->usq);
	return err;
}

/*
 * A QPN an off-path sender has to guess (MR-SEC-3): random in the 24-bit
 * space, a few tries, then the next free one after the last random
 * pick. Reserved (NULL) until the QP is ready for the receive path.
 */
static int mroce_qpn_alloc(struct mroce_dev *dev, u32 *qpn)
{
	int i, err;

	for (i = 0; i < 8; i++) {
		*qpn = MROCE_FIRST_QPN +
		       get_random_u32() % (MROCE_QPN_MAX - MROCE_FIRST_QPN + 1);
		err = xa_insert(&dev->qps, *qpn, NULL, GFP_KERNEL);
		if (err != -EBUSY)
			return err;
	}
	dev->qpn_next = *qpn;
	err = xa_alloc_cyclic(&dev->qps, qpn, NULL,
			      XA_LIMIT(MROCE_FIRST_QPN, MROCE_QPN_MAX),
			      &dev->qpn_next, GFP_KERNEL);
	return err < 0 ? err : 0;
}

static void mroce_qp_work(struct work_struct *work);
static void mroce_qp_doorbell(struct mroce_qp *qp);

static int mroce_qp_check_init(struct mroce_dev *dev,
			       struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_GSI:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	/* UC receives into its own RQ only (MR-UC-1). */
	if (init->qp_type == IB_QPT_UC && init->srq)
		return -EOPNOTSUPP;
	/* User QPs: RC and UD; the GSI QP belongs to the kernel. */
	if (udata && init->qp_type == IB_QPT_GSI)
		return -EOPNOTSUPP;
	if (init->qp_type == IB_QPT_GSI && init->port_num != 1)
		return -EINVAL;
	if (cap->max_send_wr > dev->attr.max_qp_wr ||
	    cap->max_send_sge > dev->attr.max_send_sge ||
	    cap->max_inline_data > MROCE_MAX_INLINE)
		return -EINVAL;
	if (!init->srq && (cap->max_recv_wr > dev->attr.max_qp_wr ||
			   cap->max_recv_sge > dev->attr.max_recv_sge))
		return -EINVAL;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	return 0;
}

int mroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibqp->device);
	struct mroce_qp *qp = to_mqp(ibqp);
	struct metaroce_create_qp_req ureq;
	struct metaroce_create_qp_resp uresp = {};
	u32 qpn;
	int err;

	err = mroce_qp_check_init(dev, init, udata);
	if (err) {
		/* dynamic debug: why a create_qp failed (admin-guide.rst) */
		ibdev_dbg(&dev->ibdev, "create_qp type %d refused: %d\n",
			  init->qp_type, err);
		return err;
	}
	err = mroce_udata_req(udata, &ureq, sizeof(ureq));
	if (err)
		return err;

	if (atomic_inc_return(&dev->num_qp) > dev->attr.max_qp) {
		err = -ENOMEM;
		goto err_count;
	}

	qp->dev = dev;
	INIT_WORK(&qp->req_work, mroce_qp_work);
	refcount_set(&qp->ref, 1);
	init_completion(&qp->done);
	mutex_init(&qp->modify_lock);
	qp->state = IB_QPS_RESET;
	qp->scq = to_mcq(init->send_cq);
	qp->rcq = to_mcq(init->recv_cq);
	qp->srq = init->srq ? to_msrq(init->srq) : NULL;
	qp->sq_sig_type = init->sq_sig_type;
	qp->attr.path_mtu = IB_MTU_1024;
	qp->attr.port_num = 1;

	err = dst_cache_init(&qp->dst_cache, GFP_KERNEL);
	if (err)
		goto err_count;
	err = mroce_sq_init(&qp->sq, &init->cap);
	if (err)
		goto err_dst;
	if (qp->srq) {
		spin_lock_init(&qp->rq.lock);
	} else {
		err = mroce_rq_init(&qp->rq, init->cap.max_recv_wr,
				    init->cap.max_recv_sge);
		if (err)
			goto err_sq;
	}

	err = mroce_proto_alloc(qp);
	if (err)
		goto err_rq;

	if (init->qp_type == IB_QPT_GSI) {
		qpn = MROCE_GSI_QPN;
		err = xa_insert(&dev->qps, qpn, NULL, GFP_KERNEL);
	} else {
		err = mroce_qpn_alloc(dev, &qpn);
	}
	if (err)
		goto err_proto;
	ibqp->qp_num = qpn;
	qp->serial = atomic64_inc_return(&dev->qp_serial);

	/* Report what was actually allocated. */
	init->cap.max_send_wr = qp->sq.size;
	init->cap.max_send_sge = qp->sq.max_sge;
	init->cap.max_inline_data = qp->sq.max_inline;
	if (!qp->srq) {
		init->cap.max_recv_wr = qp->rq.size;
		init->cap.max_recv_sge = qp->rq.max_sge;
	}

	if (udata) {
		err = mroce_qp_user_rings(qp, udata, &uresp);
		if (err)
			goto err_qpn;
	}

	/* Visible to the receive path from here on. */
	xa_store(&dev->qps, qpn, qp, GFP_KERNEL);
	return 0;

err_qpn:
	xa_erase(&dev->qps, qpn);
err_proto:
	mroce_proto_free(qp);
err_rq:
	mroce_rq_free(&qp->rq);
err_sq:
	kvfree(qp->sq.buf);
err_dst:
	dst_cache_destroy(&qp->dst_cache);
err_count:
	atomic_dec(&dev->num_qp);
	return err;
}

int mroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct mroce_dev *dev = qp->dev;

	mutex_lock(&qp->modify_lock);
	xa_erase(&dev->qps, ibqp->qp_num);
	/*
	 * ib_core frees the QP memory when we return: wait until no
	 * receive-path walker can still reach it through the xarray, then
	 * for the references already taken.
	 */
	synchronize_rcu();
	mroce_qp_put(qp);
	wait_for_completion(&qp->done);
	/*
	 * No receive-path user left; stop the timers and works in the
	 * order that keeps them stopped (req.c), then give back the SRQ
	 * WQEs the QP still holds (MR-VERBS-20).
	 */
	mroce_qp_stop_timers(qp);
	mutex_unlock(&qp->modify_lock);
	if (qp->srq)
		mroce_srq_slots_release(qp, false);

	mroce_proto_free(qp);
	mroce_uring_free(&qp->usq);
	mroce_uring_free(&qp->rq.ur);
	mroce_rq_free(&qp->rq);
	kvfree(qp->sq.buf);
	dst_cache_destroy(&qp->dst_cache);
	/* Drops the GID reference taken by rdma_replace_ah_attr(). */
	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	mutex_destroy(&qp->modify_lock);
	atomic_dec(&dev->num_qp);
	return 0;
}

/* ---- state machine --------------------------------------------------- */

static void mroce_qp_set_state(struct mroce_qp *qp, enum ib_qp_state state)
{
	spin_lock_bh(&qp->sq.lock);
	spin_lock(&qp->rq.lock);
	trace_metaroce_qp_state(qp->dev->ibdev.index, qp->ibqp.qp_num,
				qp->state, state);
	WRITE_ONCE(qp->state, state);
	/*
	 * Tell the process to ring a doorbell after RQ posts from now on
	 * (provider.rst, "Doorbells"). The full barrier orders this store
	 * before the flush's read of the RQ ring's prod; the provider
	 * orders its prod store before its kflags load the same way.
	 */
	if (state == IB_QPS_ERR) {
		mroce_uring_set_kflags(&qp->usq, METAROCE_RING_F_QP_ERR, 0);
		mroce_uring_set_kflags(&qp->rq.ur, METAROCE_RING_F_QP_ERR, 0);
		/* kflags store before the flush's prod load (see above). */
		smp_mb();
	} else {
		mroce_uring_set_kflags(&qp->usq, 0, METAROCE_RING_F_QP_ERR);
		mroce_uring_set_kflags(&qp->rq.ur, 0, METAROCE_RING_F_QP_ERR);
	}
	spin_unlock(&qp->rq.lock);
	spin_unlock_bh(&qp->sq.lock);
}

/*
 * The SRQ WQEs this QP bound to SSNs of messages that will not complete
 * (MR-VERBS-20): those into which nothing was placed go back to the SRQ
 * for other QPs; on an error (@err) the others complete with
 * WR_FLUSH_ERR (the one a message failed on with that failure), and
 * IB_EVENT_QP_LAST_WQE_REACHED follows once (no more SRQ WQEs for this
 * QP). Without @err (reset, destroy) every WQE goes back. A WQE that
 * finds the SRQ's give-back queue full is flushed instead.
 */
void mroce_srq_slots_release(struct mroce_qp *qp, bool err)
{
	struct mroce_resp *resp = qp->resp;
	struct mroce_rq *srq = &qp->srq->rq;
	struct mroce_recv_wqe *w;
	struct ib_wc wc = {
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
	};
	unsigned int note = 0;
	bool last = false, back;
	u32 k;

	if (!resp)
		return;
	spin_lock_bh(&qp->resp_lock);
	while (resp->rcv.ssn_base != resp->ssn_fetched) {
		k = resp->rcv.ssn_base % MR_WINDOW;
		w = resp->slots + k * resp->slot_size;
		wc.wr_id = w->wr_id;
		wc.status = resp->rwqe_err &&
			    resp->rcv.ssn_base == resp->rwqe_err_ssn ?
			    resp->rwqe_err : IB_WC_WR_FLUSH_ERR;
		spin_lock(&srq->lock);
		back = !(err && (test_bit(k, (unsigned long *)resp->slot_placed) ||
				 wc.status != IB_WC_WR_FLUSH_ERR)) &&
		       mroce_rq_give_back(srq, w);
		spin_unlock(&srq->lock);
		if (!back)
			note |= mroce_cq_add(qp->rcq, &wc, false);
		resp->rcv.ssn_base++;
	}
	memset(resp->slot_placed, 0, sizeof(resp->slot_placed));
	if (err && !resp->last_wqe && READ_ONCE(qp->state) == IB_QPS_ERR) {
		resp->last_wqe = true;
		last = true;
	}
	spin_unlock_bh(&qp->resp_lock);
	mroce_cq_notify(qp->rcq, note);
	if (last)
		mroce_qp_async_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/* Flush the receive queue (not an SRQ's) to the receive CQ. */
static void mroce_rq_flush(struct mroce_qp *qp)
{
	struct mroce_rq *rq = &qp->rq;
	unsigned int note;
	u32 budget;
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
	};

	if (qp->srq) {
		if (READ_ONCE(qp->state) == IB_QPS_ERR)
			mroce_srq_slots_release(qp, true);
		return;
	}
	/*
	 * The state is ERR already: a responder run that saw it otherwise
	 * (resp_lock, checked once per packet) finishes its placements and
	 * completions before the flush takes a WQE, and later runs drop.
	 * Without it a completion after the flush would move head past
	 * tail, and data would land in buffers completed as flushed.
	 */
	spin_lock_bh(&qp->resp_lock);
	spin_unlock_bh(&qp->resp_lock);
	/*
	 * A user RQ: take what the process posted, once, so that the loop
	 * below is bounded by the ring size.
	 */
	spin_lock_bh(&rq->lock);
	mroce_urq_pull(rq);
	spin_unlock_bh(&rq->lock);
	/*
	 * One WQE per lock hold: the completion handler may post again,
	 * so it runs with no queue lock held; the CQE itself enters the
	 * CQ under rq.lock, after any completion the responder made of an
	 * earlier WQE on another CPU (WQE order, MR-VERBS-25). At most a
	 * queue's worth per call: WQEs other posters pull meanwhile are
	 * theirs to flush, or req_work's.
	 */
	for (budget = rq->size;; budget--) {
		spin_lock_bh(&rq->lock);
		if (READ_ONCE(qp->state) != IB_QPS_ERR ||
		    !mroce_rq_count(rq)) {
			spin_unlock_bh(&rq->lock);
			break;
		}
		if (!budget) {
			spin_unlock_bh(&rq->lock);
			/* stopping under sq.lock (mroce_qp_stop_timers) */
			spin_lock_bh(&qp->sq.lock);
			if (!qp->stopping)
				queue_work(system_wq, &qp->req_work);
			spin_unlock_bh(&qp->sq.lock);
			break;
		}
		wc.wr_id = mroce_rq_wqe(rq, rq->head)->wr_id;
		/* The WQE a message failed on carries that error. */
		wc.status = qp->resp && READ_ONCE(qp->resp->rwqe_err) &&
			    rq->head == qp->resp->rwqe_err_idx ?
			    qp->resp->rwqe_err : IB_WC_WR_FLUSH_ERR;
		note = mroce_cq_add(qp->rcq, &wc, false);
		rq->head++;
		mroce_urq_publish(rq);
		spin_unlock_bh(&rq->lock);
		mroce_cq_notify(qp->rcq, note);
	}
}

/* Complete every outstanding WR with IB_WC_WR_FLUSH_ERR (state ERR). */
void mroce_qp_flush(struct mroce_qp *qp)
{
	mroce_req_run(qp);	/* flushes the SQ in the error state */
	mroce_rq_flush(qp);
}

/* Move the QP to the error state (datapath or modify) and flush. */
void mroce_qp_error(struct mroce_qp *qp)
{
	ibdev_dbg(&qp->dev->ibdev, "qp %u: to ERR from %pS\n",
		  qp->ibqp.qp_num, __builtin_return_address(0));
	mroce_qp_set_state(qp, IB_QPS_ERR);
	mroce_qp_flush(qp);
}

/* RESET: drop all WQEs without completions (IB spec 10.3.1). */
static void mroce_qp_reset(struct mroce_qp *qp)
{
	/*
	 * RESET first: stopping the timers passes through resp_lock, so no
	 * responder run is left that saw the old state, and later ones drop
	 * before the queues below are emptied under them.
	 */
	mroce_qp_set_state(qp, IB_QPS_RESET);
	mroce_qp_stop_timers(qp);
	/* User rings: cons back to 0 too; the provider resets prod. */
	spin_lock_bh(&qp->sq.lock);
	qp->sq.head = 0;
	qp->sq.tail = 0;
	if (qp->usq.hdr)
		mroce_uring_put(&qp->usq.hdr->cons, 0);
	if (qp->req)
		qp->req->inited = false;
	spin_unlock_bh(&qp->sq.lock);
	if (!qp->srq) {
		spin_lock_bh(&qp->rq.lock);
		qp->rq.head = 0;
		qp->rq.tail = 0;
		qp->rq.broken = false;
		mroce_urq_publish(&qp->rq);
		spin_unlock_bh(&qp->rq.lock);
	}
	if (qp->srq)
		mroce_srq_slots_release(qp, false);
	if (qp->resp) {
		spin_lock_bh(&qp->resp_lock);
		qp->resp->rwqe_err = 0;
		mr_rdresp_clear_jobs(&qp->resp->rcv.rd);
		/* Built before the reset: not for the next connection. */
		__skb_queue_purge(&qp->resp->txq);
		spin_unlock_bh(&qp->resp_lock);
	}
	dst_cache_reset(&qp->dst_cache);
}

static int mroce_qp_check_attr(struct mroce_qp *qp, struct ib_qp_attr *attr,
			       int mask, struct mroce_av *av)
{
	struct mroce_dev *dev = qp->dev;

	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > dev->attr.max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > dev->attr.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if (mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE | IB_QP_RATE_LIMIT))
		return -EOPNOTSUPP;
	if (mask & IB_QP_AV)
		return mroce_av_from_attr(av, &attr->ah_attr);
	return 0;
}

static void mroce_qp_apply_attr(struct mroce_qp *qp, struct ib_qp_attr *attr,
				int mask, const struct mroce_av *av)
{
	struct mroce_qp_attrs *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		rdma_replace_ah_attr(&a->ah_attr, &attr->ah_attr);
		a->av = *av;
		dst_cache_reset(&qp->dst_cache);
	}
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & MROCE_QPN_MAX;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & MROCE_QPN_MAX;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qpn = attr->dest_qp_num & MROCE_QPN_MAX;
}

int mroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	enum ib_qp_state cur, next;
	struct mroce_av av;
	int err;

	if (udata && (udata->inlen || udata->outlen))
		return -EOPNOTSUPP;

	mutex_lock(&qp->modify_lock);
	cur = qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;

	err = -EINVAL;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur)
		goto out;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask))
		goto out;
	err = mroce_qp_check_attr(qp, attr, mask, &av);
	if (err)
		goto out;

	mroce_qp_apply_attr(qp, attr, mask, &av);

	if (mask & IB_QP_STATE) {
		if (next == IB_QPS_RESET)
			mroce_qp_reset(qp);
		qp->attr.sq_draining = next == IB_QPS_SQD;
		if (next != IB_QPS_SQD)
			WRITE_ONCE(qp->sqd_notify, false);
		/* Protocol state starts with the connection (MR-WIN-1). */
		if (cur == IB_QPS_INIT && next == IB_QPS_RTR) {
			mroce_resp_start(qp);
			mroce_hello_start(qp);
			if (qp->uc)
				mroce_uc_start_rx(qp);
		}
		if (cur == IB_QPS_RTR && next == IB_QPS_RTS) {
			mroce_req_start(qp);
			if (qp->uc)
				mroce_uc_start_tx(qp);
		}
		mroce_qp_set_state(qp, next);
		if (next == IB_QPS_ERR)
			mroce_qp_flush(qp);
		/* WQEs a process posted before RTS: look at its SQ now. */
		if (next == IB_QPS_RTS && cur != IB_QPS_RTS && qp->usq.hdr)
			mroce_qp_doorbell(qp);
		/* The first HELLO goes at RTS (MR-VER-14). */
		if (cur == IB_QPS_RTR && next == IB_QPS_RTS && qp->req)
			mroce_qp_kick(qp);
		/*
		 * SQD: IB_EVENT_SQ_DRAINED once every request already
		 * started has completed; the requester reports it.
		 */
		if (next == IB_QPS_SQD && (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) &&
		    attr->en_sqd_async_notify) {
			WRITE_ONCE(qp->sqd_notify, true);
			mroce_qp_kick(qp);
		}
	}
out:
	mutex_unlock(&qp->modify_lock);
	if (err)
		ibdev_dbg(ibqp->device, "qp %u: modify state %d -> %d (mask %#x) refused: %d\n",
			  ibqp->qp_num, cur, next, mask, err);
	return err;
}

int mroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	struct mroce_qp_attrs *a = &qp->attr;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));

	mutex_lock(&qp->modify_lock);
	attr->qp_state = READ_ONCE(qp->state);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = a->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = a->qkey;
	attr->rq_psn = a->rq_psn;
	attr->sq_psn = a->sq_psn;
	attr->dest_qp_num = a->dest_qpn;
	attr->qp_access_flags = a->access_flags;
	attr->pkey_index = a->pkey_index;
	attr->port_num = a->port_num;
	attr->sq_draining = a->sq_draining;
	attr->max_rd_atomic = a->max_rd_atomic;
	attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
	attr->min_rnr_timer = a->min_rnr_timer;
	attr->timeout = a->timeout;
	attr->retry_cnt = a->retry_cnt;
	attr->rnr_retry = a->rnr_retry;
	/* Without a GID reference: callers do not release one. */
	attr->ah_attr = a->ah_attr;
	attr->ah_attr.grh.sgid_attr = NULL;
	mutex_unlock(&qp->modify_lock);

	attr->cap.max_send_wr = qp->sq.size;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	if (!qp->srq) {
		attr->cap.max_recv_wr = qp->rq.size;
		attr->cap.max_recv_sge = qp->rq.max_sge;
	}
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_type;
	init->qp_type = ibqp->qp_type;
	init->port_num = 1;
	return 0;
}

/* ---- posting --------------------------------------------------------- */

static bool mroce_opcode_ok(enum ib_qp_type type, enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return true;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		/* UC carries SENDs and WRITEs (MR-UC-1). */
		return type == IB_QPT_RC || type == IB_QPT_UC;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
		return type == IB_QPT_RC;
	default:
		return false;
	}
}

/* Copy one send WR into the WQE at the SQ tail; sq.lock held. */
static int mroce_sq_push(struct mroce_qp *qp, const struct ib_send_wr *wr)
{
	struct mroce_sq *sq = &qp->sq;
	struct mroce_send_wqe *wqe;
	u64 len = 0;
	u32 i;
	u8 status;

	if (unlikely(!mroce_opcode_ok(qp->ibqp.qp_type, wr->opcode)))
		return -EINVAL;
	if (unlikely(wr->num_sge < 0 || wr->num_sge > sq->max_sge))
		return -EINVAL;
	if (unlikely(sq->tail - sq->head >= sq->size))
		return -ENOMEM;
	/* 64 bits: 32 SGEs of up to 4 GiB each cannot wrap the sum. */
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if ((wr->send_flags & IB_SEND_INLINE) && len > sq->max_inline)
		return -EINVAL;
	if ((wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	     wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) &&
	    (wr->num_sge != 1 || len != sizeof(u64)))
		return -EINVAL;

	wqe = mroce_sq_wqe(sq, sq->tail);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	wqe->tx.length = min_t(u64, len, U32_MAX);
	wqe->tx.op = mroce_wire_opcode(wr->opcode);
	wqe->tx.fence = !!(wr->send_flags & IB_SEND_FENCE);
	wqe->tx.state = MR_SWQE_QUEUED;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		wqe->wr.reg.mr = to_mmr(reg_wr(wr)->mr);
		wqe->wr.reg.key = reg_wr(wr)->key;
		wqe->wr.reg.access = reg_wr(wr)->access;
		break;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (qp->ibqp.qp_type == IB_QPT_UD ||
		    qp->ibqp.qp_type == IB_QPT_GSI) {
			wqe->wr.ud.av = to_mah(ud_wr(wr)->ah)->av;
			wqe->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
			wqe->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		}
		break;
	default:
		break;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = wqe->inline_data;

		/* Kernel consumers: SGE addresses are kernel VAs. */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		wqe->num_sge = 0;
	} else {
		memcpy(wqe->sge, wr->sg_list,
		       wr->num_sge * sizeof(*wr->sg_list));
		wqe->num_sge = wr->num_sge;
	}
	/*
	 * A WR no transport could carry completes with its error in SQ
	 * order (the QP then enters Error), like a bad user WQE (uring.c).
	 */
	status = len > MR_MAX_MSG_LEN ? IB_WC_LOC_LEN_ERR :
					mroce_req_validate(wqe);
	if (status != IB_WC_SUCCESS) {
		wqe->tx.op = 0;
		wqe->tx.state = MR_SWQE_DONE;
		wqe->tx.status = status;
	}
	sq->tail++;
	return 0;
}

/*
 * SQ doorbell of a user QP: take the new WQEs of its ring and run the
 * requester (which flushes in the error state). A corrupt ring index
 * is fatal to the QP. Before RTS the ring is not read: a send there is
 * an immediate error for kernel consumers, the provider refuses it,
 * and the requester has no state yet; WQEs a process wrote anyway are
 * taken at RTS (mroce_modify_qp). Process context only, so _bh as
 * every other user of sq.lock but the kernel poster.
 */
static void mroce_qp_doorbell(struct mroce_qp *qp)
{
	int err = 0;

	spin_lock_bh(&qp->sq.lock);
	if (qp->state >= IB_QPS_RTS)
		err = mroce_usq_pull(qp);
	spin_unlock_bh(&qp->sq.lock);
	if (err)
		mroce_qp_fatal(qp);
	mroce_qp_kick(qp);
}

int mroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	enum ib_qp_state state;
	unsigned long flags;
	int err = 0;

	/*
	 * A user QP's WQEs are in its SQ ring; uverbs' POST_SEND without a
	 * work request is the doorbell (provider.rst, "Doorbells").
	 */
	if (qp->usq.hdr) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		mroce_qp_doorbell(qp);
		return 0;
	}

	/* irqsave: the MAD layer posts with interrupts disabled. */
	spin_lock_irqsave(&qp->sq.lock, flags);
	state = qp->state;
	if (unlikely(state < IB_QPS_RTS)) {
		err = -EINVAL;
		*bad_wr = wr;
	}
	for (; wr && !err; wr = wr->next) {
		err = mroce_sq_push(qp, wr);
		if (err)
			*bad_wr = wr;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	mroce_qp_kick(qp);
	return err;
}

int mroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct mroce_qp *qp = to_mqp(ibqp);
	unsigned long flags;
	int err = 0;

	if (qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/*
	 * User QP: receive WQEs are in the RQ ring; the empty POST_RECV
	 * only asks for the flush of an errored QP.
	 */
	if (qp->rq.ur.hdr) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		if (READ_ONCE(qp->state) == IB_QPS_ERR)
			mroce_qp_kick(qp);
		return 0;
	}

	spin_lock_irqsave(&qp->rq.lock, flags);
	if (unlikely(qp->state == IB_QPS_RESET)) {
		err = -EINVAL;
		*bad_wr = wr;
	}
	for (; wr && !err; wr = wr->next) {
		err = mroce_rq_post(&qp->rq, wr);
		if (err)
			*bad_wr = wr;
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);

	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		mroce_qp_kick(qp);
	return err;
}

/* Deferred requester run / flush, for callers with interrupts off. */
static void mroce_qp_work(struct work_struct *work)
{
	struct mroce_qp *qp = container_of(work, struct mroce_qp, req_work);

	mroce_req_run(qp);
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		mroce_rq_flush(qp);
}

/*
 * Process newly posted work now, in the caller's context (no workqueue
 * hop); in the error state this flushes (ib_drain_qp). Callers with
 * interrupts disabled (the MAD layer posts under an irqsave lock) get
 * the run deferred: transmitting needs interrupts on.
 */
void mroce_qp_kick(struct mroce_qp *qp)
{
	if (irqs_disabled()) {
		queue_work(system_highpri_wq, &qp->req_work);
		return;
	}
	mroce_req_run(qp);
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		mroce_rq_flush(qp);
}
