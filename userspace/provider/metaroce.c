// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE rdma-core provider: registration, device matching, context,
 * and the verbs that go through the kernel (device/port queries, PD, MR,
 * AH).  Queues and the datapath are in queues.c.
 *
 * Design: Documentation/metaroce/provider.rst.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metaroce.h"

/* ------------------------------------------------------------------ */
/* Device matching                                                      */

/*
 * A metaroce ib_device registers as RDMA_DRIVER_UNKNOWN (out of tree, the
 * driver-id enum cannot be extended) and has no parent device, hence no
 * modalias; it is identified by its sysfs attribute
 * /sys/class/infiniband/<name>/metaroce_abi_version, which only the
 * metaroce module creates.  This works for any link name.  libibverbs then
 * checks the uverbs ABI version against match_{min,max}_abi_version.
 */
static bool mroce_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char buf[32];
	char *end;
	unsigned long v;
	int len;

	/* A device with a driver id belongs to an in-tree driver. */
	if (sysfs_dev->driver_id != RDMA_DRIVER_UNKNOWN)
		return false;

	len = ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev, "%s",
					METAROCE_SYSFS_ABI_ATTR);
	if (len <= 0)
		return false;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v > UINT32_MAX)
		return false;
	return true;
}

static struct verbs_device *mroce_alloc_device(struct verbs_sysfs_dev *sd)
{
	struct mroce_device *dev;

	(void)sd;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->vdev;
}

static void mroce_uninit_device(struct verbs_device *vdev)
{
	free(MROCE_CONTAINER(vdev, struct mroce_device, vdev));
}

/* ------------------------------------------------------------------ */
/* Device and port                                                      */

static int mroce_query_device_ex(struct ibv_context *ctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

static int mroce_query_port(struct ibv_context *ctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

/* ------------------------------------------------------------------ */
/* PD, MR, AH                                                           */

static struct ibv_pd *mroce_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_alloc_pd cmd;
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_alloc_pd(ctx, pd, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int mroce_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (ret)
		return ret;
	free(pd);
	return 0;
}

static struct ibv_mr *mroce_reg_mr(struct ibv_pd *pd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ibv_reg_mr cmd;
	struct ib_uverbs_reg_mr_resp resp;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int mroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (ret)
		return ret;
	free(vmr);
	return 0;
}

MROCE_UDATA_PAIR(mroce_create_ah_resp, struct ib_uverbs_create_ah_resp,
		 struct metaroce_create_ah_resp);

static struct ibv_ah *mroce_create_ah(struct ibv_pd *pd,
				      struct ibv_ah_attr *attr)
{
	struct mroce_create_ah_resp resp;
	struct mroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_ah(pd, &ah->ibah, attr,
				mroce_create_ah_resp_core(&resp), sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ah_num = resp.drv.ah_num;
	return &ah->ibah;
}

static int mroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret = ibv_cmd_destroy_ah(ibah);

	if (ret)
		return ret;
	free(to_mah(ibah));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Context                                                              */

static void mroce_free_context(struct ibv_context *ibctx)
{
	struct mroce_context *ctx = to_mctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops mroce_ctx_ops = {
	.alloc_mw = mroce_alloc_mw,
	.alloc_pd = mroce_alloc_pd,
	.bind_mw = mroce_bind_mw,
	.create_ah = mroce_create_ah,
	.create_cq = mroce_create_cq,
	.create_cq_ex = mroce_create_cq_ex,
	.create_qp = mroce_create_qp,
	.create_qp_ex = mroce_create_qp_ex,
	.create_srq = mroce_create_srq,
	.dealloc_mw = mroce_dealloc_mw,
	.dealloc_pd = mroce_dealloc_pd,
	.dereg_mr = mroce_dereg_mr,
	.destroy_ah = mroce_destroy_ah,
	.destroy_cq = mroce_destroy_cq,
	.destroy_qp = mroce_destroy_qp,
	.destroy_srq = mroce_destroy_srq,
	.free_context = mroce_free_context,
	.modify_qp = mroce_modify_qp,
	.modify_srq = mroce_modify_srq,
	.poll_cq = mroce_poll_cq,
	.post_recv = mroce_post_recv,
	.post_send = mroce_post_send,
	.post_srq_recv = mroce_post_srq_recv,
	.query_device_ex = mroce_query_device_ex,
	.query_port = mroce_query_port,
	.query_qp = mroce_query_qp,
	.query_srq = mroce_query_srq,
	.reg_mr = mroce_reg_mr,
	.rereg_mr = mroce_rereg_mr,
	.req_notify_cq = mroce_req_notify_cq,
	.resize_cq = mroce_resize_cq,
};

MROCE_UDATA_PAIR(mroce_get_context_cmd, struct ibv_get_context,
		 struct metaroce_alloc_ucontext_req);

MROCE_UDATA_PAIR(mroce_get_context_resp, struct ib_uverbs_get_context_resp,
		 struct metaroce_alloc_ucontext_resp);

static struct verbs_context *mroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct mroce_get_context_cmd cmd;
	struct mroce_get_context_resp resp;
	struct mroce_context *ctx;
	int ret;

	(void)private_data;
	/* The context offset is passed as a pointer value. */
	ctx = _verbs_init_and_alloc_context(
		ibdev, cmd_fd, sizeof(*ctx),
		(struct verbs_context *)(uintptr_t)offsetof(struct mroce_context,
							    vctx),
		RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_get_context(&ctx->vctx, mroce_get_context_cmd_core(&cmd),
				  sizeof(cmd), mroce_get_context_resp_core(&resp),
				  sizeof(resp));
	if (ret)
		goto err;

	/* A kernel speaking another layout must not get as far as a ring. */
	if (resp.drv.abi_version != METAROCE_UVERBS_ABI_VERSION ||
	    resp.drv.ring_hdr_size != METAROCE_RING_HDR_SIZE ||
	    resp.drv.cqe_size != sizeof(struct metaroce_cqe)) {
		fprintf(stderr,
			"metaroce: %s: kernel ABI %u (ring header %u, CQE %u), provider expects %u (%u, %zu)\n",
			ibdev->name, resp.drv.abi_version,
			resp.drv.ring_hdr_size, resp.drv.cqe_size,
			METAROCE_UVERBS_ABI_VERSION, METAROCE_RING_HDR_SIZE,
			sizeof(struct metaroce_cqe));
		ret = EPROTO;
		goto err;
	}
	ctx->max_inline_data = resp.drv.max_inline_data;
	ctx->max_sge = resp.drv.max_sge;

	verbs_set_ops(&ctx->vctx, &mroce_ctx_ops);
	return &ctx->vctx;

err:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = ret;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Registration                                                         */

/*
 * Only the end marker: every match is made by mroce_match_device().  The
 * table must exist all the same, as libibverbs 44 walks the table of every
 * provider, without a NULL check, when it looks for a device's driver id.
 */
static const struct verbs_match_ent mroce_match_table[] = {
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_device_ops mroce_dev_ops = {
	.name = "metaroce",
	.match_min_abi_version = METAROCE_UVERBS_ABI_VERSION,
	.match_max_abi_version = METAROCE_UVERBS_ABI_VERSION,
	.match_table = mroce_match_table,
	.match_device = mroce_match_device,
	.alloc_device = mroce_alloc_device,
	.uninit_device = mroce_uninit_device,
	.alloc_context = mroce_alloc_context,
};

#ifdef METAROCE_RDMA_CORE_TREE
PROVIDER_DRIVER(metaroce, mroce_dev_ops);
#else
/* Runs at dlopen(); the library exports no symbol at all. */
static void __attribute__((constructor)) mroce_register_driver(void)
{
	verbs_register_driver_34(&mroce_dev_ops);
}
#endif
