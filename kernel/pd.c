// SPDX-License-Identifier: GPL-2.0
/* MetaRoCE protection domains. */

#include "metaroce.h"

int mroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mroce_dev *dev = to_mdev(ibpd->device);

	if (atomic_inc_return(&dev->num_pd) > dev->attr.max_pd) {
		atomic_dec(&dev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

int mroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_mdev(ibpd->device)->num_pd);
	return 0;
}
