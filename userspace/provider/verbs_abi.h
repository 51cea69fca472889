/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The part of libibverbs' private provider interface that the MetaRoCE
 * provider uses, for rdma-core 44 (libibverbs.so.1, symbol version
 * IBVERBS_PRIVATE_34).
 *
 * Debian does not ship rdma-core's provider headers (infiniband/driver.h,
 * infiniband/kern-abi.h), so the provider declares what it needs here,
 * written from the layouts of rdma-core v44.0.  Nothing in this file is
 * checked by the compiler against libibverbs: a wrong member order or
 * type is silent memory corruption inside libibverbs.  Rules:
 *
 *   - Every struct that libibverbs reads or writes is declared member for
 *     member in the v44 order, including members the provider never uses.
 *   - Only symbols exported under IBVERBS_PRIVATE_34 are declared
 *     (objdump -T libibverbs.so.1 | grep PRIVATE_34).
 *   - The layouts were compared against the real v44.0 headers with
 *     static assertions (sizeof and offsetof of every member here) and the
 *     prototypes by redeclaring them after the real driver.h; see
 *     provider.rst, "Checking this header".  Re-run that check before
 *     changing anything here or moving to another rdma-core version: a new
 *     IBVERBS_PRIVATE_nn means these layouts may have changed.
 *
 * Inside an rdma-core tree (CMakeLists.txt defines METAROCE_RDMA_CORE_TREE)
 * the real <infiniband/driver.h> is used instead of this file.
 */
#ifndef METAROCE_VERBS_ABI_H
#define METAROCE_VERBS_ABI_H

#ifdef METAROCE_RDMA_CORE_TREE
#include <infiniband/driver.h>
#else

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

/* The private ABI number: part of the registration symbol's name. */
#define IBVERBS_PABI_VERSION 34

/*
 * METAROCE_VERBS_ABI_PROTOS_ONLY: declare only the functions, with the
 * struct types taken from elsewhere.  The local layout check uses it to
 * redeclare every prototype below after the real driver.h, so that any
 * mismatch becomes a "conflicting types" error.
 */
#ifndef METAROCE_VERBS_ABI_PROTOS_ONLY

/* ccan's doubly linked list node, as embedded in libibverbs' structs. */
struct mroce_abi_list_node {
	struct mroce_abi_list_node *next;
	struct mroce_abi_list_node *prev;
};

/* ------------------------------------------------------------------ */
/* Device discovery and registration                                    */

/* verbs_match_ent.kind */
enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

/* One row of a provider's match table; a row of kind 0 ends the table. */
struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/* verbs_sysfs_dev.flags */
enum {
	VSYSFS_READ_MODALIAS = 1 << 0,
	VSYSFS_READ_NODE_GUID = 1 << 1,
};

/*
 * An RDMA device found by libibverbs (netlink, or sysfs as a fallback),
 * passed to the provider's match_device() and alloc_device().  Owned by
 * libibverbs.
 */
struct verbs_sysfs_dev {
	struct mroce_abi_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;	/* table row that matched */
	unsigned int flags;			/* VSYSFS_READ_* */
	char sysfs_name[IBV_SYSFS_NAME_MAX];	/* uverbsN */
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];	/* the rdma link name */
	char ibdev_path[IBV_SYSFS_PATH_MAX];	/* /sys/class/infiniband/NAME */
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;			/* enum rdma_driver_id */
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;			/* the device's uverbs ABI */
	struct timespec time_created;
};

struct verbs_device;

/*
 * A provider's entry points.  Matching, as libibverbs 44 does it, for
 * each registered provider in turn until one accepts the device: if
 * match_table is set, look for a row matching the driver id, else the
 * name, else device/modalias; then, if match_device is set, its verdict
 * decides (a table match is not required); else a table match is needed.
 * Last, the device's uverbs ABI must lie in
 * [match_min_abi_version, match_max_abi_version].
 */
struct verbs_device_ops {
	const char *name;

	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd,
					       void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/*
 * The provider allocates this (embedded first in its own device struct)
 * in alloc_device(); libibverbs fills the members after 'device' and
 * calls uninit_device() when the last reference goes.
 */
struct verbs_device {
	struct ibv_device device;	/* first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct mroce_abi_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/* ------------------------------------------------------------------ */
/* Context operations                                                   */

/*
 * Every operation a provider can implement, in libibverbs 44's order
 * (alphabetical).  A NULL member falls back to a stub that fails with
 * EOPNOTSUPP.  struct verbs_context itself is public (verbs.h).
 */
struct verbs_mr;
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(
		struct ibv_context *context,
		struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(
		struct ibv_context *context,
		struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(
		struct ibv_context *context,
		struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(
		struct ibv_context *context,
		struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp,
				      enum ibv_wr_opcode op, uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/* ------------------------------------------------------------------ */
/* Objects libibverbs expects around the public ones                    */

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

/* ibv_cmd_reg_mr() fills mr_type and access. */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

/* verbs_qp.comp_mask */
enum verbs_qp_mask {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,	/* ibv_qp_to_qp_ex() returns qp_ex */
};

/*
 * ibv_cmd_create_qp_ex() sets comp_mask (to 0 or VERBS_QP_XRCD) and xrcd;
 * the provider adds VERBS_QP_EX.
 */
struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* The SRQ commands may reach beyond the ibv_srq into these members. */
struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/* ------------------------------------------------------------------ */
/* uverbs command buffers                                               */

/*
 * The ibv_cmd_*() functions take the command as the uverbs header plus
 * the core command struct of the kernel uapi, directly followed by the
 * driver's request (cmd_size - sizeof(core) bytes, sent as udata); and
 * the core response struct directly followed by the driver's response
 * (resp_size - sizeof(core resp) bytes).  rdma-core declares the core part
 * as a union of the kernel struct and an unnamed copy of its members; the
 * layout is the same as this plain embedding.
 */
#define MROCE_ABI_CMD(_name, _kstruct)					\
	struct _name {							\
		struct ib_uverbs_cmd_hdr hdr;				\
		struct _kstruct core_payload;				\
	}

MROCE_ABI_CMD(ibv_get_context, ib_uverbs_get_context);
MROCE_ABI_CMD(ibv_query_port, ib_uverbs_query_port);
MROCE_ABI_CMD(ibv_alloc_pd, ib_uverbs_alloc_pd);
MROCE_ABI_CMD(ibv_reg_mr, ib_uverbs_reg_mr);
MROCE_ABI_CMD(ibv_alloc_mw, ib_uverbs_alloc_mw);
MROCE_ABI_CMD(ibv_create_cq, ib_uverbs_create_cq);
MROCE_ABI_CMD(ibv_create_qp, ib_uverbs_create_qp);
MROCE_ABI_CMD(ibv_modify_qp, ib_uverbs_modify_qp);
MROCE_ABI_CMD(ibv_query_qp, ib_uverbs_query_qp);
MROCE_ABI_CMD(ibv_create_srq, ib_uverbs_create_srq);
MROCE_ABI_CMD(ibv_modify_srq, ib_uverbs_modify_srq);
MROCE_ABI_CMD(ibv_query_srq, ib_uverbs_query_srq);
MROCE_ABI_CMD(ibv_resize_cq, ib_uverbs_resize_cq);
MROCE_ABI_CMD(ibv_rereg_mr, ib_uverbs_rereg_mr);

#undef MROCE_ABI_CMD

#endif /* !METAROCE_VERBS_ABI_PROTOS_ONLY */

/* ------------------------------------------------------------------ */
/* Functions exported by libibverbs.so.1 under IBVERBS_PRIVATE_34       */

/*
 * Registration.  The symbol carries the private ABI number, so a provider
 * built for another rdma-core private ABI fails to load instead of
 * corrupting memory.
 */
void verbs_register_driver_34(const struct verbs_device_ops *ops);

/*
 * Allocates alloc_size bytes (zeroed), initialises the verbs_context that
 * sits context_offset bytes into them (the offset is passed as a pointer
 * value) and binds the fd.  Returns the start of the allocation, NULL on
 * failure with errno set.
 */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/* Reads <ibdev_path>/<fnfmt>; returns the length read or -1. */
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);

int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);

int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);

int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);

int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe,
		      struct ibv_resize_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size);

int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);

/*
 * The write-path post commands.  With an empty WR list they carry no work
 * and the kernel's post_send/post_recv sees a NULL list: MetaRoCE's
 * doorbell (provider.rst, "Doorbells").
 */
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);

#endif /* METAROCE_RDMA_CORE_TREE */

#endif /* METAROCE_VERBS_ABI_H */
