// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MetaRoCE provider: ibv_rereg_mr.  The kernel changes the MR in place
 * (kernel/mr.c, mroce_rereg_user_mr()); libibverbs updates the keys from
 * the response and the MR's pd, addr and length itself.  A new
 * translation gives the MR new keys (spec MR-SEC-14).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "metaroce.h"

int mroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_rereg_mr(vmr, (uint32_t)flags, addr, length,
			       (uintptr_t)addr, access, pd, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (ret)
		errno = ret;
	return ret;
}
