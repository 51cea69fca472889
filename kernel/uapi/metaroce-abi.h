/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * MetaRoCE user/kernel ABI: shared by the kernel module (metaroce.ko) and
 * the rdma-core provider (libmetaroce-rdmav34.so).
 *
 * Contents:
 *   - the ABI version (also the device's uverbs ABI version),
 *   - the driver-private udata of the uverbs commands (alloc_ucontext,
 *     create_cq, create_qp, create_srq, create_ah),
 *   - the mmap scheme of the shared rings,
 *   - the ring layout: header with producer/consumer indices, SQ WQE,
 *     RQ/SRQ WQE, CQE.
 *
 * Design: Documentation/metaroce/provider.rst.
 *
 * Rings
 * -----
 * Every queue a process uses is a ring in kernel memory (vmalloc_user)
 * mapped into the process with mmap() on the uverbs command fd:
 *
 *   SQ   userspace produces WQEs, the kernel consumes them;
 *   RQ   userspace produces WQEs, the kernel consumes them;
 *   SRQ  userspace produces WQEs, the kernel consumes them;
 *   CQ   the kernel produces CQEs, userspace consumes them.
 *
 * A ring is a struct metaroce_ring_hdr (METAROCE_RING_HDR_SIZE bytes)
 * followed by 'entries' slots of 'stride' bytes; 'entries' is a power of
 * two and both come from the create response.  The indices are u32
 * free-running counters (they wrap at 2^32, never reset while the queue
 * exists, except on QP RESET, see provider.rst); slot i lives at
 * hdr_size + (i & (entries - 1)) * stride.  prod - cons (u32 arithmetic)
 * is the number of filled slots, 0 <= prod - cons <= entries.
 *
 * Ownership: 'prod' is written only by the producer, 'cons' only by the
 * consumer.  Each side keeps its own index in private memory, publishes
 * it with a release store and never reads its own index back from the
 * ring.  The producer fills a slot, then publishes prod (release); the
 * consumer reads prod (acquire), reads the slot, then publishes cons
 * (release).  The producer reads cons (acquire) before reusing a slot.
 *
 * SECURITY: the kernel MUST treat every byte of a ring as hostile.  The
 * process can rewrite any slot and any index at any moment, from several
 * threads, including while the kernel reads it.  Therefore the kernel:
 *   - copies a WQE out of its slot exactly once (into kernel memory) and
 *     validates and uses only that copy, never the ring again;
 *   - indexes slots only with its own private index masked by
 *     (entries - 1) and the stride it chose itself; it never reads
 *     entries, stride or any size from the ring;
 *   - reads the peer's index once per batch and checks it: for a
 *     user-produced ring, avail = prod - kcons must be <= entries,
 *     otherwise the queue is corrupt (QP/SRQ to the error state, async
 *     event); for the CQ, kprod - cons must be <= entries, otherwise the
 *     CQ is in error (IB_EVENT_CQ_ERR);
 *   - bounds num_sge by the queue's own max_sge, inline_len by the QP's
 *     max_inline_data, checks opcode and send_flags against the lists
 *     below (unknown values are errors, not ignored), and validates every
 *     lkey, address range, AH number and remote QPN exactly as for a
 *     kernel consumer; a bad WQE completes with an error status
 *     (IB_WC_LOC_QP_OP_ERR, IB_WC_LOC_LEN_ERR, IB_WC_LOC_PROT_ERR) and
 *     moves the QP to the error state.  Never a crash, never an access
 *     outside registered memory.
 * The provider, in turn, bounds every index it reads from a ring against
 * 'entries' before using it.
 */
#ifndef METAROCE_ABI_USER_H
#define METAROCE_ABI_USER_H

#include <linux/types.h>
#include <linux/stddef.h>

/*
 * The uverbs ABI version of a metaroce device (ib_device_ops.uverbs_abi_ver,
 * shown in /sys/class/infiniband_verbs/uverbsN/abi_version) and the value
 * of the device's sysfs attribute METAROCE_SYSFS_ABI_ATTR.  Numbering
 * starts at 64, outside the range accepted by every rdma-core provider
 * that claims devices by name (rxe: 1..2), so no other provider binds a
 * metaroce device whatever its link name.  Increment on every
 * incompatible change of this file.
 */
#define METAROCE_UVERBS_ABI_VERSION	64

/*
 * Device identification for the provider (rdma-core cannot match an
 * RDMA_DRIVER_UNKNOWN device by driver id): every metaroce ib_device has
 * the attribute /sys/class/infiniband/<ibdev>/metaroce_abi_version,
 * read-only, containing METAROCE_UVERBS_ABI_VERSION in decimal and a
 * newline.  See provider.rst, "Device matching".
 */
#define METAROCE_SYSFS_ABI_ATTR		"metaroce_abi_version"

/* Ring geometry. */
#define METAROCE_RING_HDR_SIZE		256
#define METAROCE_MAX_RING_ENTRIES	(1U << 16)
#define METAROCE_MAX_SGE		32
#define METAROCE_MAX_INLINE		512

/* ------------------------------------------------------------------ */
/* Ring header                                                          */

/* Flags in metaroce_ring_hdr.kflags (written only by the kernel). */
enum {
	/*
	 * SQ/RQ: the QP is in the error state.  Work requests posted from
	 * now on are only flushed, and the kernel learns about RQ posts only
	 * through a doorbell: the provider rings one after posting to an RQ
	 * whose ring has this flag (see provider.rst, "Doorbells").
	 */
	METAROCE_RING_F_QP_ERR		= 1 << 0,
	/* CQ: overflow or corrupt consumer index; the CQ is in error. */
	METAROCE_RING_F_CQ_ERR		= 1 << 1,
};

/*
 * Four cache lines: each line has one writer, so producer and consumer
 * never write the same line.
 */
struct metaroce_ring_hdr {
	/* Line 0, written by the producer only. */
	__u32 prod;
	__u32 rsvd_prod[15];
	/* Line 1, written by the consumer only. */
	__u32 cons;
	__u32 rsvd_cons[15];
	/* Line 2, written by the kernel only (whatever the direction). */
	__u32 kflags;		/* METAROCE_RING_F_* */
	__u32 rsvd_kernel[15];
	/* Line 3, written by userspace only; reserved, write 0. */
	__u32 rsvd_user[16];
};

/* ------------------------------------------------------------------ */
/* Work queue entries                                                   */

struct metaroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/*
 * SQ opcodes.  The values equal enum ib_uverbs_wr_opcode; only these are
 * valid, anything else is a malformed WQE.  UD QPs accept SEND and
 * SEND_WITH_IMM only.
 */
enum metaroce_wr_opcode {
	METAROCE_WR_RDMA_WRITE			= 0,
	METAROCE_WR_RDMA_WRITE_WITH_IMM		= 1,
	METAROCE_WR_SEND			= 2,
	METAROCE_WR_SEND_WITH_IMM		= 3,
	METAROCE_WR_RDMA_READ			= 4,
	METAROCE_WR_ATOMIC_CMP_AND_SWP		= 5,
	METAROCE_WR_ATOMIC_FETCH_AND_ADD	= 6,
	METAROCE_WR_LOCAL_INV			= 7,	/* RC: ex.invalidate_rkey */
	METAROCE_WR_BIND_MW			= 8,	/* RC: wr.bind */
	METAROCE_WR_SEND_WITH_INV		= 9,
};

/* SQ WQE send_flags (values equal IBV_SEND_*); other bits are invalid. */
enum {
	METAROCE_SEND_FENCE		= 1 << 0,
	METAROCE_SEND_SIGNALED		= 1 << 1,
	METAROCE_SEND_SOLICITED		= 1 << 2,
	METAROCE_SEND_INLINE		= 1 << 3,
};
#define METAROCE_SEND_VALID_FLAGS					\
	(METAROCE_SEND_FENCE | METAROCE_SEND_SIGNALED |			\
	 METAROCE_SEND_SOLICITED | METAROCE_SEND_INLINE)

struct metaroce_wqe_rdma {
	__aligned_u64 remote_addr;
	__u32 rkey;
	__u32 reserved;
};

struct metaroce_wqe_atomic {
	__aligned_u64 remote_addr;
	__aligned_u64 compare_add;	/* compare (CMP_AND_SWP) or add */
	__aligned_u64 swap;		/* CMP_AND_SWP only */
	__u32 rkey;
	__u32 reserved;
};

/*
 * BIND_MW (ibv_bind_mw() of a type 1 window, IBV_WR_BIND_MW of a type 2
 * one): bind the window whose rkey is mw_rkey to [addr, addr + length)
 * of the MR whose lkey is mr_lkey, with the remote rights in access
 * (IBV_ACCESS_* bits); its rkey becomes new_rkey, which must name the
 * same window (same bits 31..8).  length 0 binds no memory (type 1:
 * unbinds).  num_sge must be 0 and METAROCE_SEND_INLINE clear, as for
 * LOCAL_INV.  Everything is checked when the WQE executes; a bad bind
 * completes with IBV_WC_MW_BIND_ERR.
 */
struct metaroce_wqe_bind {
	__aligned_u64 addr;
	__aligned_u64 length;
	__u32 mw_rkey;
	__u32 new_rkey;
	__u32 mr_lkey;
	__u32 access;
};

struct metaroce_wqe_ud {
	__u32 ah_num;		/* from metaroce_create_ah_resp, same context */
	__u32 remote_qpn;	/* 24 bits */
	__u32 remote_qkey;
	__u32 reserved;
};

/*
 * SQ slot: this 64-byte header, then either num_sge SGEs or, with
 * METAROCE_SEND_INLINE, inline_len bytes of data.  The slot stride
 * (sq_wqe_size) holds max_send_sge SGEs and max_inline_data bytes.
 * INLINE is valid only for SEND*, RDMA_WRITE* and UD SEND*; num_sge must
 * then be 0.  Atomics take exactly one 8-byte SGE.
 */
struct metaroce_sq_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;		/* enum metaroce_wr_opcode */
	__u32 send_flags;	/* METAROCE_SEND_* */
	__u32 num_sge;
	__u32 inline_len;
	union {
		__be32 imm_data;		/* *_WITH_IMM, network order */
		__u32 invalidate_rkey;	/* SEND_WITH_INV, LOCAL_INV */
	} ex;
	__u32 reserved;
	union {
		struct metaroce_wqe_rdma rdma;		/* RDMA_WRITE*, RDMA_READ */
		struct metaroce_wqe_atomic atomic;	/* ATOMIC_* */
		struct metaroce_wqe_bind bind;		/* BIND_MW */
		struct metaroce_wqe_ud ud;		/* UD QPs */
	} wr;
	union {
		__DECLARE_FLEX_ARRAY(struct metaroce_sge, sge);
		__DECLARE_FLEX_ARRAY(__u8, inline_data);
	};
};

/* RQ and SRQ slot: this header, then num_sge SGEs (<= the queue's max_sge). */
struct metaroce_rq_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct metaroce_sge sge[];
};

/* ------------------------------------------------------------------ */
/* Completion queue entries                                             */

/* CQE opcodes (values equal enum ibv_wc_opcode / enum ib_wc_opcode). */
enum metaroce_wc_opcode {
	METAROCE_WC_SEND		= 0,
	METAROCE_WC_RDMA_WRITE		= 1,
	METAROCE_WC_RDMA_READ		= 2,
	METAROCE_WC_COMP_SWAP		= 3,
	METAROCE_WC_FETCH_ADD		= 4,
	METAROCE_WC_BIND_MW		= 5,
	METAROCE_WC_LOCAL_INV		= 6,
	METAROCE_WC_RECV		= 128,
	METAROCE_WC_RECV_RDMA_WITH_IMM	= 129,
};

/* CQE wc_flags (values equal the IBV_WC_* flags of enum ibv_wc_flags). */
enum {
	METAROCE_WC_F_GRH		= 1 << 0,
	METAROCE_WC_F_WITH_IMM		= 1 << 1,
	METAROCE_WC_F_WITH_INV		= 1 << 3,
};

/*
 * One completion.  status is an enum ib_wc_status value (numerically the
 * same as enum ibv_wc_status).  opcode is undefined unless status is
 * success (verbs rule); the kernel still fills it.
 */
struct metaroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;		/* enum metaroce_wc_opcode */
	__u32 vendor_err;
	__u32 byte_len;
	__u32 qp_num;
	__u32 src_qp;		/* UD receive */
	union {
		__be32 imm_data;		/* METAROCE_WC_F_WITH_IMM */
		__u32 invalidated_rkey;	/* METAROCE_WC_F_WITH_INV */
	} ex;
	__u32 wc_flags;		/* METAROCE_WC_F_* */
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u16 reserved0;
	__u32 reserved[4];
};

/* ------------------------------------------------------------------ */
/* uverbs command udata                                                 */

/*
 * Every request below may grow at its end.  The kernel accepts a shorter
 * request (missing fields read as zero), rejects a longer one whose extra
 * bytes are not all zero (ib_is_udata_cleared), and rejects comp_mask bits
 * it does not know with EOPNOTSUPP.  Responses are written for the length
 * userspace gave (udata->outlen), truncated if shorter.
 *
 * Each driver request/response directly follows the core uverbs struct of
 * its command (struct ib_uverbs_*, include/uapi/rdma/ib_user_verbs.h) with
 * no padding; every struct here is a multiple of 8 bytes and made of
 * __u32/__aligned_u64 members so that holds for every core struct.
 */

/* Ring mapping: offset is an opaque key for mmap() on the uverbs fd. */
struct metaroce_mmap_info {
	__aligned_u64 offset;	/* mmap() offset (rdma_user_mmap_entry key) */
	__aligned_u64 size;	/* mapping length, a multiple of the page size */
};

/* IB_USER_VERBS_CMD_GET_CONTEXT */
struct metaroce_alloc_ucontext_req {
	__u32 comp_mask;	/* no bits defined: 0 */
	__u32 reserved;
};

struct metaroce_alloc_ucontext_resp {
	__u32 abi_version;	/* METAROCE_UVERBS_ABI_VERSION */
	__u32 comp_mask;
	__u32 ring_hdr_size;	/* METAROCE_RING_HDR_SIZE */
	__u32 cqe_size;		/* sizeof(struct metaroce_cqe) */
	__u32 max_inline_data;
	__u32 max_sge;
};

/* IB_USER_VERBS_CMD_CREATE_CQ */
struct metaroce_create_cq_req {
	__u32 comp_mask;	/* 0 */
	__u32 reserved;
};

struct metaroce_create_cq_resp {
	struct metaroce_mmap_info mi;	/* the CQ ring */
	__u32 entries;			/* power of two, >= requested cqe */
	__u32 cqe_size;			/* stride: sizeof(struct metaroce_cqe) */
};

/* IB_USER_VERBS_CMD_RESIZE_CQ: the CQ's new ring (provider.rst, "CQ resize") */
struct metaroce_resize_cq_req {
	__u32 comp_mask;	/* 0 */
	__u32 reserved;
};

struct metaroce_resize_cq_resp {
	struct metaroce_mmap_info mi;	/* the new CQ ring */
	__u32 entries;			/* power of two, >= requested cqe */
	__u32 cqe_size;			/* stride: sizeof(struct metaroce_cqe) */
};

/* IB_USER_VERBS_CMD_CREATE_QP */
struct metaroce_create_qp_req {
	__u32 comp_mask;	/* 0 */
	__u32 reserved;
};

/*
 * Granted capabilities (max_send_wr, max_send_sge, max_inline_data, ...)
 * are in the core response, struct ib_uverbs_create_qp_resp.  A QP on an
 * SRQ has no RQ ring: rq_mi is all zero and rq_entries is 0.
 */
struct metaroce_create_qp_resp {
	struct metaroce_mmap_info sq_mi;
	struct metaroce_mmap_info rq_mi;
	__u32 sq_entries;	/* power of two, >= max(max_send_wr, 1) */
	__u32 sq_wqe_size;	/* SQ stride in bytes, a multiple of 64 */
	__u32 rq_entries;	/* power of two, >= max(max_recv_wr, 1) */
	__u32 rq_wqe_size;	/* RQ stride in bytes, a multiple of 16 */
	__u32 comp_mask;
	__u32 reserved;
};

/* IB_USER_VERBS_CMD_CREATE_SRQ */
struct metaroce_create_srq_req {
	__u32 comp_mask;	/* 0 */
	__u32 reserved;
};

struct metaroce_create_srq_resp {
	struct metaroce_mmap_info mi;
	__u32 entries;		/* power of two, >= max_wr */
	__u32 wqe_size;		/* stride in bytes, a multiple of 16 */
};

/* IB_USER_VERBS_CMD_CREATE_AH */
struct metaroce_create_ah_resp {
	__u32 ah_num;		/* names the AH in metaroce_wqe_ud.ah_num */
	__u32 reserved;
};

/* ------------------------------------------------------------------ */
/* Layout checks                                                        */

#ifndef __cplusplus
#define METAROCE_ABI_ASSERT(cond) _Static_assert(cond, #cond)

METAROCE_ABI_ASSERT(sizeof(struct metaroce_ring_hdr) == METAROCE_RING_HDR_SIZE);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_sge) == 16);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_wqe_rdma) == 16);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_wqe_atomic) == 32);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_wqe_ud) == 16);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_wqe_bind) == 32);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_sq_wqe) == 64);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_rq_wqe) == 16);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_cqe) == 64);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_mmap_info) == 16);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_alloc_ucontext_req) == 8);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_alloc_ucontext_resp) == 24);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_create_cq_req) == 8);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_create_cq_resp) == 24);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_resize_cq_req) == 8);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_resize_cq_resp) == 24);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_create_qp_req) == 8);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_create_qp_resp) == 56);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_create_srq_req) == 8);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_create_srq_resp) == 24);
METAROCE_ABI_ASSERT(sizeof(struct metaroce_create_ah_resp) == 8);

#undef METAROCE_ABI_ASSERT
#endif /* !__cplusplus */

#endif /* METAROCE_ABI_USER_H */
