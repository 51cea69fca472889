// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host check of the MetaRoCE user/kernel ABI and of the provider library,
 * run by `make -C userspace check`.
 *
 * Part 1, layout: kernel/uapi/metaroce-abi.h must have exactly the layout
 * written down below (offset and size of every member, alignment,
 * constants).  The table is written independently of the header, so a
 * change of the header that moves anything fails here until the table
 * (and the ABI version) is changed on purpose.  This part is compiled
 * twice: as a kernel object through kbuild (MROCE_TEST_KERNEL_STYLE, the
 * header seen by the module) and as this userspace program (the header
 * seen by the provider).
 *
 * Part 2, library (userspace only): dlopen()s the provider given as
 * argv[1], checks that its constructor registered it with libibverbs
 * (the registration call is interposed here and forwarded), checks the
 * registered ops, and runs the device match callback against fake sysfs
 * directories.
 */
#ifdef MROCE_TEST_KERNEL_STYLE
#include <linux/module.h>
#include <linux/stddef.h>
#include "metaroce-abi.h"
#else
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metaroce.h"
#endif

/* ------------------------------------------------------------------ */
/* Part 1: layout                                                       */

#define MEMBER(s, m, off, size)						\
	_Static_assert(offsetof(struct s, m) == (off),			\
		       "offset of " #s "." #m);				\
	_Static_assert(sizeof(((struct s *)0)->m) == (size),		\
		       "size of " #s "." #m)
#define SIZE(s, size, align)						\
	_Static_assert(sizeof(struct s) == (size), "size of " #s);	\
	_Static_assert(_Alignof(struct s) == (align), "alignment of " #s)
#define VALUE(c, v) _Static_assert((c) == (v), "value of " #c)

VALUE(METAROCE_UVERBS_ABI_VERSION, 64);
VALUE(METAROCE_RING_HDR_SIZE, 256);
VALUE(METAROCE_MAX_RING_ENTRIES, 65536);
VALUE(METAROCE_MAX_SGE, 32);
VALUE(METAROCE_MAX_INLINE, 512);
VALUE(METAROCE_RING_F_QP_ERR, 1);
VALUE(METAROCE_RING_F_CQ_ERR, 2);
VALUE(METAROCE_WR_RDMA_WRITE, 0);
VALUE(METAROCE_WR_RDMA_WRITE_WITH_IMM, 1);
VALUE(METAROCE_WR_SEND, 2);
VALUE(METAROCE_WR_SEND_WITH_IMM, 3);
VALUE(METAROCE_WR_RDMA_READ, 4);
VALUE(METAROCE_WR_ATOMIC_CMP_AND_SWP, 5);
VALUE(METAROCE_WR_ATOMIC_FETCH_AND_ADD, 6);
VALUE(METAROCE_WR_LOCAL_INV, 7);
VALUE(METAROCE_WR_BIND_MW, 8);
VALUE(METAROCE_WR_SEND_WITH_INV, 9);
VALUE(METAROCE_SEND_VALID_FLAGS, 0xf);
VALUE(METAROCE_WC_SEND, 0);
VALUE(METAROCE_WC_FETCH_ADD, 4);
VALUE(METAROCE_WC_BIND_MW, 5);
VALUE(METAROCE_WC_LOCAL_INV, 6);
VALUE(METAROCE_WC_RECV, 128);
VALUE(METAROCE_WC_RECV_RDMA_WITH_IMM, 129);
VALUE(METAROCE_WC_F_GRH, 1);
VALUE(METAROCE_WC_F_WITH_IMM, 2);
VALUE(METAROCE_WC_F_WITH_INV, 8);

SIZE(metaroce_ring_hdr, 256, 4);
MEMBER(metaroce_ring_hdr, prod, 0, 4);
MEMBER(metaroce_ring_hdr, cons, 64, 4);
MEMBER(metaroce_ring_hdr, kflags, 128, 4);
MEMBER(metaroce_ring_hdr, rsvd_user, 192, 64);

SIZE(metaroce_sge, 16, 8);
MEMBER(metaroce_sge, addr, 0, 8);
MEMBER(metaroce_sge, length, 8, 4);
MEMBER(metaroce_sge, lkey, 12, 4);

SIZE(metaroce_sq_wqe, 64, 8);
MEMBER(metaroce_sq_wqe, wr_id, 0, 8);
MEMBER(metaroce_sq_wqe, opcode, 8, 4);
MEMBER(metaroce_sq_wqe, send_flags, 12, 4);
MEMBER(metaroce_sq_wqe, num_sge, 16, 4);
MEMBER(metaroce_sq_wqe, inline_len, 20, 4);
MEMBER(metaroce_sq_wqe, ex.imm_data, 24, 4);
MEMBER(metaroce_sq_wqe, ex.invalidate_rkey, 24, 4);
MEMBER(metaroce_sq_wqe, reserved, 28, 4);
MEMBER(metaroce_sq_wqe, wr, 32, 32);
MEMBER(metaroce_sq_wqe, wr.rdma.remote_addr, 32, 8);
MEMBER(metaroce_sq_wqe, wr.rdma.rkey, 40, 4);
MEMBER(metaroce_sq_wqe, wr.atomic.remote_addr, 32, 8);
MEMBER(metaroce_sq_wqe, wr.atomic.compare_add, 40, 8);
MEMBER(metaroce_sq_wqe, wr.atomic.swap, 48, 8);
MEMBER(metaroce_sq_wqe, wr.atomic.rkey, 56, 4);
MEMBER(metaroce_sq_wqe, wr.bind.addr, 32, 8);
MEMBER(metaroce_sq_wqe, wr.bind.length, 40, 8);
MEMBER(metaroce_sq_wqe, wr.bind.mw_rkey, 48, 4);
MEMBER(metaroce_sq_wqe, wr.bind.new_rkey, 52, 4);
MEMBER(metaroce_sq_wqe, wr.bind.mr_lkey, 56, 4);
MEMBER(metaroce_sq_wqe, wr.bind.access, 60, 4);
MEMBER(metaroce_sq_wqe, wr.ud.ah_num, 32, 4);
MEMBER(metaroce_sq_wqe, wr.ud.remote_qpn, 36, 4);
MEMBER(metaroce_sq_wqe, wr.ud.remote_qkey, 40, 4);
_Static_assert(offsetof(struct metaroce_sq_wqe, sge) == 64, "sq sge");
_Static_assert(offsetof(struct metaroce_sq_wqe, inline_data) == 64,
	       "sq inline_data");

SIZE(metaroce_rq_wqe, 16, 8);
MEMBER(metaroce_rq_wqe, wr_id, 0, 8);
MEMBER(metaroce_rq_wqe, num_sge, 8, 4);
MEMBER(metaroce_rq_wqe, reserved, 12, 4);
_Static_assert(offsetof(struct metaroce_rq_wqe, sge) == 16, "rq sge");

SIZE(metaroce_cqe, 64, 8);
MEMBER(metaroce_cqe, wr_id, 0, 8);
MEMBER(metaroce_cqe, status, 8, 4);
MEMBER(metaroce_cqe, opcode, 12, 4);
MEMBER(metaroce_cqe, vendor_err, 16, 4);
MEMBER(metaroce_cqe, byte_len, 20, 4);
MEMBER(metaroce_cqe, qp_num, 24, 4);
MEMBER(metaroce_cqe, src_qp, 28, 4);
MEMBER(metaroce_cqe, ex.imm_data, 32, 4);
MEMBER(metaroce_cqe, ex.invalidated_rkey, 32, 4);
MEMBER(metaroce_cqe, wc_flags, 36, 4);
MEMBER(metaroce_cqe, pkey_index, 40, 2);
MEMBER(metaroce_cqe, slid, 42, 2);
MEMBER(metaroce_cqe, sl, 44, 1);
MEMBER(metaroce_cqe, dlid_path_bits, 45, 1);
MEMBER(metaroce_cqe, reserved0, 46, 2);
MEMBER(metaroce_cqe, reserved, 48, 16);

SIZE(metaroce_mmap_info, 16, 8);
MEMBER(metaroce_mmap_info, offset, 0, 8);
MEMBER(metaroce_mmap_info, size, 8, 8);

SIZE(metaroce_alloc_ucontext_req, 8, 4);
MEMBER(metaroce_alloc_ucontext_req, comp_mask, 0, 4);
SIZE(metaroce_alloc_ucontext_resp, 24, 4);
MEMBER(metaroce_alloc_ucontext_resp, abi_version, 0, 4);
MEMBER(metaroce_alloc_ucontext_resp, comp_mask, 4, 4);
MEMBER(metaroce_alloc_ucontext_resp, ring_hdr_size, 8, 4);
MEMBER(metaroce_alloc_ucontext_resp, cqe_size, 12, 4);
MEMBER(metaroce_alloc_ucontext_resp, max_inline_data, 16, 4);
MEMBER(metaroce_alloc_ucontext_resp, max_sge, 20, 4);

SIZE(metaroce_create_cq_req, 8, 4);
SIZE(metaroce_create_cq_resp, 24, 8);
MEMBER(metaroce_create_cq_resp, mi, 0, 16);
MEMBER(metaroce_create_cq_resp, entries, 16, 4);
MEMBER(metaroce_create_cq_resp, cqe_size, 20, 4);

SIZE(metaroce_resize_cq_req, 8, 4);
SIZE(metaroce_resize_cq_resp, 24, 8);
MEMBER(metaroce_resize_cq_resp, mi, 0, 16);
MEMBER(metaroce_resize_cq_resp, entries, 16, 4);
MEMBER(metaroce_resize_cq_resp, cqe_size, 20, 4);

SIZE(metaroce_create_qp_req, 8, 4);
SIZE(metaroce_create_qp_resp, 56, 8);
MEMBER(metaroce_create_qp_resp, sq_mi, 0, 16);
MEMBER(metaroce_create_qp_resp, rq_mi, 16, 16);
MEMBER(metaroce_create_qp_resp, sq_entries, 32, 4);
MEMBER(metaroce_create_qp_resp, sq_wqe_size, 36, 4);
MEMBER(metaroce_create_qp_resp, rq_entries, 40, 4);
MEMBER(metaroce_create_qp_resp, rq_wqe_size, 44, 4);
MEMBER(metaroce_create_qp_resp, comp_mask, 48, 4);

SIZE(metaroce_create_srq_req, 8, 4);
SIZE(metaroce_create_srq_resp, 24, 8);
MEMBER(metaroce_create_srq_resp, mi, 0, 16);
MEMBER(metaroce_create_srq_resp, entries, 16, 4);
MEMBER(metaroce_create_srq_resp, wqe_size, 20, 4);

SIZE(metaroce_create_ah_resp, 8, 4);
MEMBER(metaroce_create_ah_resp, ah_num, 0, 4);

#ifdef MROCE_TEST_KERNEL_STYLE

MODULE_LICENSE("Dual BSD/GPL");

#else /* userspace: part 2 */

/* ------------------------------------------------------------------ */
/* Part 2: the provider library                                         */

static int failures;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "test_abi: FAIL %s:%d: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			failures++;					\
		}							\
	} while (0)

static const struct verbs_device_ops *registered;
static int registrations;

/*
 * Interposes libibverbs' registration function (this executable is
 * linked with -rdynamic, so the provider binds here first), records the
 * ops and forwards to the real one.
 */
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	void (*real)(const struct verbs_device_ops *);

	registered = ops;
	registrations++;
	real = (void (*)(const struct verbs_device_ops *))
		dlvsym(RTLD_NEXT, "verbs_register_driver_34",
		       "IBVERBS_PRIVATE_34");
	if (real) {
		real(ops);
	} else {
		fprintf(stderr, "test_abi: FAIL libibverbs has no verbs_register_driver_34@IBVERBS_PRIVATE_34\n");
		failures++;
	}
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
}

static void remove_file(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static void test_match(const struct verbs_device_ops *ops)
{
	char dir[] = "/tmp/metaroce-test-abi.XXXXXX";
	struct verbs_sysfs_dev *sd;
	struct verbs_device *vdev;
	char abi[16];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(2);
	}
	sd = calloc(1, sizeof(*sd));
	if (!sd)
		exit(2);
	snprintf(sd->ibdev_path, sizeof(sd->ibdev_path), "%s", dir);
	snprintf(sd->ibdev_name, sizeof(sd->ibdev_name), "anyname0");
	sd->driver_id = RDMA_DRIVER_UNKNOWN;
	sd->abi_ver = METAROCE_UVERBS_ABI_VERSION;
	snprintf(abi, sizeof(abi), "%u\n", METAROCE_UVERBS_ABI_VERSION);

	/* No attribute: some other driver's device (rxe, siw, ...). */
	CHECK(!ops->match_device(sd));

	/* The attribute as the module writes it. */
	write_file(dir, METAROCE_SYSFS_ABI_ATTR, abi);
	CHECK(ops->match_device(sd));

	/* A device with a real driver id is never ours. */
	sd->driver_id = RDMA_DRIVER_MLX5;
	CHECK(!ops->match_device(sd));
	sd->driver_id = RDMA_DRIVER_UNKNOWN;

	/* Garbage in the attribute. */
	write_file(dir, METAROCE_SYSFS_ABI_ATTR, "metaroce\n");
	CHECK(!ops->match_device(sd));
	write_file(dir, METAROCE_SYSFS_ABI_ATTR, "");
	CHECK(!ops->match_device(sd));

	vdev = ops->alloc_device(sd);
	CHECK(vdev != NULL);
	if (vdev)
		ops->uninit_device(vdev);

	remove_file(dir, METAROCE_SYSFS_ABI_ATTR);
	rmdir(dir);
	free(sd);
}

int main(int argc, char **argv)
{
	const struct verbs_device_ops *ops;
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: %s path/to/libmetaroce-rdmav34.so\n",
			argv[0]);
		return 2;
	}

	/* Providers are never unloaded: libibverbs keeps the ops pointer. */
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "test_abi: FAIL dlopen: %s\n", dlerror());
		return 1;
	}
	CHECK(registrations == 1);
	ops = registered;
	if (!ops) {
		fprintf(stderr, "test_abi: FAIL the provider did not register\n");
		return 1;
	}
	CHECK(ops->name && !strcmp(ops->name, "metaroce"));
	CHECK(ops->match_min_abi_version == METAROCE_UVERBS_ABI_VERSION);
	CHECK(ops->match_max_abi_version == METAROCE_UVERBS_ABI_VERSION);
	/* libibverbs walks the table unconditionally: present, end marker only. */
	CHECK(ops->match_table != NULL);
	if (ops->match_table)
		CHECK(ops->match_table[0].kind == VERBS_MATCH_SENTINEL);
	CHECK(ops->match_device != NULL);
	CHECK(ops->alloc_device != NULL);
	CHECK(ops->uninit_device != NULL);
	CHECK(ops->alloc_context != NULL);
	CHECK(ops->import_context == NULL);
	/* The provider's own symbols stay hidden. */
	CHECK(dlsym(h, "mroce_post_send") == NULL);

	if (ops->match_device && ops->alloc_device && ops->uninit_device)
		test_match(ops);

	if (failures) {
		fprintf(stderr, "test_abi: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_abi: layout, registration and matching OK\n");
	return 0;
}

#endif /* MROCE_TEST_KERNEL_STYLE */
