/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CRC32C (Castagnoli, reflected polynomial 0x82F63B78) for the ICRC
 * (MR-ICRC-1). Portable slicing-by-8 tables; a kernel build may define
 * MR_KERNEL_CRC32C to use the kernel's accelerated crc32c() instead (the
 * module then depends on libcrc32c).
 */
#ifndef MR_PROTO_CRC32C_H
#define MR_PROTO_CRC32C_H

#include "compat.h"

/*
 * Raw update, same contract as the kernel's crc32c(): no initial or final
 * inversion, so it can be chained over fragments. The standard CRC32C of a
 * buffer is ~mr_crc32c_update(~0U, buf, len).
 */
u32 mr_crc32c_update(u32 crc, const void *buf, u32 len);

/* Standard CRC32C: init 0xFFFFFFFF, xorout 0xFFFFFFFF. */
static inline u32 mr_crc32c(const void *buf, u32 len)
{
	return ~mr_crc32c_update(~0U, buf, len);
}

#endif /* MR_PROTO_CRC32C_H */
