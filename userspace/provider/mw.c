// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE rdma-core provider: memory windows.  Allocation goes through
 * the kernel; binding is a BIND_MW WQE on the SQ ring (struct
 * metaroce_wqe_bind), which the kernel checks and executes in SQ order
 * (spec: MR-MW-*).  ibv_bind_mw() of a type 1 window posts that WQE
 * like IBV_WR_BIND_MW does for a type 2 one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

struct ibv_mw *mroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ibv_alloc_mw cmd;
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	/* The kernel refuses a type other than 1 and 2 (EINVAL). */
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int mroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * ibv_bind_mw() of a type 1 window: a BIND_MW work request with the
 * next rkey.  The window takes that rkey once the WQE is posted, so
 * the caller may hand it out right away (the bind executes before any
 * later WQE of this QP).
 */
int mroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = mroce_post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
