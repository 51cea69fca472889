// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: any byte string through mr_pkt_decode() (MR-MAL-1) and
 * through mr_pkt_receive() unmarked and with the trimmed DSCP (MR-MAL-2,
 * MR-TRIM-2).
 *
 * Properties, enforced with abort():
 *  - decode returns 0 or a defined negative enum mr_err;
 *  - on error the output struct is byte-for-byte unchanged;
 *  - on success the packet re-encodes to the same length and the same
 *    bytes (reserved flag bits of the MBH and of a HELLO's hello_flags
 *    and the HLH's reserved word cleared, MR-VER-2, MR-HDR-27; ICRC
 *    recomputed), and that
 *    encoding decodes to the same struct with a valid ICRC;
 *  - receive, unmarked: the result of decode then the ICRC (TRIM flag:
 *    no ICRC, no payload); with the trimmed DSCP: the unmarked result if
 *    the ICRC verifies, else a defined error or a packet with TRIM set
 *    and no payload, of an opcode that may carry one (MR-TRIM-3); on
 *    error the output is unchanged.
 * Out-of-bounds reads are caught by ASan (libFuzzer passes a buffer of
 * exactly @size bytes).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_receive(const uint8_t *data, size_t size, int dec_err)
{
	const struct mr_op_desc *d;
	struct mr_pkt plain, marked, sentinel;
	bool icrc_ok = size >= MR_ICRC_LEN && !mr_icrc_check(data, (u32)size);
	int e1, e2;

	memset(&sentinel, 0xC3, sizeof(sentinel));
	plain = sentinel;
	marked = sentinel;
	e1 = mr_pkt_receive(data, (u32)size, MR_DSCP_UNKNOWN,
			    MR_TRIM_DSCP_DEFAULT, &plain);
	e2 = mr_pkt_receive(data, (u32)size, MR_TRIM_DSCP_DEFAULT,
			    MR_TRIM_DSCP_DEFAULT, &marked);
	if (e1 > 0 || e1 <= -MR_ERR_NUM || e2 > 0 || e2 <= -MR_ERR_NUM)
		abort();
	if ((e1 && memcmp(&plain, &sentinel, sizeof(plain))) ||
	    (e2 && memcmp(&marked, &sentinel, sizeof(marked))))
		abort();
	/* unmarked: decode first, then the ICRC unless TRIM */
	if (dec_err ? e1 != dec_err :
	    e1 && (e1 != MR_ERR_ICRC || icrc_ok))
		abort();
	if (!e1 && (plain.flags & MR_F_TRIM) &&
	    (plain.payload || plain.payload_len))
		abort();
	if (icrc_ok) {
		if (e1 != e2 || (!e1 && memcmp(&plain, &marked, sizeof(plain))))
			abort();
		return;
	}
	if (e2 == MR_ERR_ICRC)
		abort();
	if (!e2) {
		d = mr_op_desc(marked.opcode);
		if (!(marked.flags & MR_F_TRIM) || marked.payload ||
		    marked.payload_len || !d || !(d->flags_ok & MR_F_TRIM))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mr_pkt out, sentinel, again;
	u8 *re, *cmp;
	int err, len;

	if (size > 0xFFFF)
		return 0;
	memset(&sentinel, 0xA5, sizeof(sentinel));
	out = sentinel;
	err = mr_pkt_decode(data, (u32)size, &out);
	check_receive(data, size, err);
	if (err) {
		if (err >= 0 || err <= -MR_ERR_NUM)
			abort();
		if (memcmp(&out, &sentinel, sizeof(out)))
			abort();
		return 0;
	}
	if (out.hdr_len + out.payload_len + MR_ICRC_LEN != size ||
	    out.payload != data + out.hdr_len)
		abort();

	re = malloc(size);
	if (!re)
		return 0;
	len = mr_pkt_encode(&out, re, (u32)size);
	if (len != (int)size)
		abort();
	/*
	 * Headers + payload identical apart from reserved flag bits and
	 * ATOMIC_FA's compare field, which is read and written as zero
	 * (MR-HDR-14): zero it in a copy of the input.
	 */
	cmp = malloc(size);
	if (!cmp)
		abort();
	memcpy(cmp, data, size);
	if (out.opcode == MR_OP_ATOMIC_FA)
		memset(cmp + MR_MBH_LEN + MR_DXH_LEN +
		       offsetof(struct mr_wire_axh, compare), 0, 8);
	/*
	 * ... and a HELLO's unassigned hello_flags and its reserved word,
	 * ignored on receipt (MR-HDR-27), read as zero too
	 */
	if (out.opcode == MR_OP_HELLO) {
		u8 *h = cmp + MR_MBH_LEN;

		h[offsetof(struct mr_wire_hlh, hflags)] &= MR_HLF_KNOWN >> 8;
		h[offsetof(struct mr_wire_hlh, hflags) + 1] &=
			MR_HLF_KNOWN & 0xff;
		memset(h + offsetof(struct mr_wire_hlh, rsvd), 0, 4);
	}
	if (re[0] != cmp[0] || re[1] != cmp[1] || re[2] != 0 ||
	    re[3] != (cmp[3] & MR_F_KNOWN) ||
	    memcmp(re + 4, cmp + 4, size - 4 - MR_ICRC_LEN))
		abort();
	free(cmp);
	if (mr_icrc_check(re, (u32)size))
		abort();
	memset(&again, 0x5A, sizeof(again));
	if (mr_pkt_decode(re, (u32)size, &again))
		abort();
	again.payload = out.payload;
	if (memcmp(&again, &out, sizeof(out)))
		abort();
	free(re);
	return 0;
}
