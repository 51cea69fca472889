// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verified workload (mr-ue-load.h) on a libmrue endpoint: the calls
 * map one to one, the completion status is enum mrue_wc_status.
 */
#include "mr-ue-load.h"

static int be_reg_mr(void *ctx, void *addr, size_t len, uint32_t access,
		     uint32_t *key)
{
	return mrue_reg_mr(ctx, addr, len, access, key);
}

static int be_post_send(void *ctx, const struct mrue_send_wr *wr)
{
	return mrue_post_send(ctx, wr);
}

static int be_post_recv(void *ctx, uint64_t wr_id, void *buf, uint32_t len,
			uint32_t lkey)
{
	return mrue_post_recv(ctx, wr_id, buf, len, lkey);
}

static int be_poll_cq(void *ctx, struct mrue_wc *wc, int n)
{
	return mrue_poll_cq(ctx, wc, n);
}

const struct load_backend load_mrue_backend = {
	.reg_mr = be_reg_mr,
	.post_send = be_post_send,
	.post_recv = be_post_recv,
	.poll_cq = be_poll_cq,
	.status_str = mrue_wc_status_str,
};
