/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MetaRoCE: software RDMA device carrying the MetaRoCE transport over
 * any Ethernet netdev. What every glue file includes: the role headers
 *   dev.h    device, limits, counters, link and namespaces
 *   uctx.h   user contexts and the rings shared with processes
 *   verbs.h  PD, AH, CQ, memory region, RQ/SRQ; verbs entry points
 *   qp.h     the QP, its protocol state and datapath prototypes
 * (resp.h: the responder's internals, for resp.c, resp_rd.c and uc.c).
 *
 * Object model (one struct per verbs object, embedding the ib_* object
 * so ib_core allocates it, see INIT_RDMA_OBJ_SIZE in device.c):
 *
 *   mroce_dev  - one per `rdma link add`, bound to one netdev
 *   mroce_pd, mroce_ah, mroce_cq, mroce_mr, mroce_qp, mroce_srq
 *
 * Locking overview (each lock is also documented at its declaration):
 *   mroce_devs_lock (main.c)  - global device list
 *   mroce_net.lock            - per-namespace socket refcount + dev list
 *   dev->port_lock            - port state / active MTU
 *   dev->params.lock (mutex)  - the device's parameter set (a leaf)
 *   qp->modify_lock (mutex)   - serialises modify_qp/destroy_qp
 *   qp->sq.lock               - send queue ring, requester state
 *   qp->resp_lock             - responder state (struct mroce_resp)
 *   qp->rq.lock / srq->rq.lock - receive queue ring
 *   cq->lock                  - completion ring + notify state
 *   mr->lock                  - fast-reg MR state/keys/page list
 * Lock order: qp->modify_lock -> qp->sq.lock -> qp->rq.lock -> cq->lock,
 * and qp->resp_lock -> qp->rq.lock or srq->rq.lock -> cq->lock
 * (sq.lock and resp_lock are never held together). mr->lock is a leaf.
 * A completion enters its CQ under the lock that orders its WQE; no
 * lock is held across a call into a consumer's completion or event
 * handler.
 */
#ifndef MROCE_METAROCE_H
#define MROCE_METAROCE_H

#include "dev.h"
#include "uctx.h"
#include "verbs.h"
#include "qp.h"
#include "kcompat.h"

#endif /* MROCE_METAROCE_H */
