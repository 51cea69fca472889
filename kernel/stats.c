// SPDX-License-Identifier: GPL-2.0
/*
 * MetaRoCE hardware counters, exported through the RDMA hw-stats
 * interface (`rdma statistic show link NAME/1`). Counters are per-CPU
 * and summed on read; the datapath increments them without locks.
 */

#include <rdma/ib_verbs.h>

#include "metaroce.h"

static const struct rdma_stat_desc mroce_counter_descs[] = {
	[MROCE_CNT_TX_PKTS].name = "tx_packets",
	[MROCE_CNT_TX_BYTES].name = "tx_bytes",
	[MROCE_CNT_RX_PKTS].name = "rx_packets",
	[MROCE_CNT_RX_BYTES].name = "rx_bytes",
	[MROCE_CNT_TX_DROPS].name = "tx_drops",
	[MROCE_CNT_RETX].name = "retransmissions",
	[MROCE_CNT_ACK_TX].name = "acks_sent",
	[MROCE_CNT_ACK_RX].name = "acks_received",
	[MROCE_CNT_SACK_TX].name = "sacks_sent",
	[MROCE_CNT_SACK_RX].name = "sacks_received",
	[MROCE_CNT_NACK_TX_TRIMMED].name = "nack_sent_trimmed",
	[MROCE_CNT_NACK_TX_SEQ_ERR].name = "nack_sent_seq_err",
	[MROCE_CNT_NACK_TX_RNR].name = "nack_sent_rnr",
	[MROCE_CNT_NACK_TX_REM_ACCESS].name = "nack_sent_remote_access",
	[MROCE_CNT_NACK_TX_INV_REQ].name = "nack_sent_invalid_req",
	[MROCE_CNT_NACK_TX_REM_OP].name = "nack_sent_remote_op",
	[MROCE_CNT_NACK_RX_TRIMMED].name = "nack_rcvd_trimmed",
	[MROCE_CNT_NACK_RX_SEQ_ERR].name = "nack_rcvd_seq_err",
	[MROCE_CNT_NACK_RX_RNR].name = "nack_rcvd_rnr",
	[MROCE_CNT_NACK_RX_REM_ACCESS].name = "nack_rcvd_remote_access",
	[MROCE_CNT_NACK_RX_INV_REQ].name = "nack_rcvd_invalid_req",
	[MROCE_CNT_NACK_RX_REM_OP].name = "nack_rcvd_remote_op",
	[MROCE_CNT_RTO].name = "rto_fired",
	[MROCE_CNT_SPURIOUS_RTO].name = "rto_spurious",
	[MROCE_CNT_RNR_EVENTS].name = "rnr_events",
	[MROCE_CNT_ECN_CE_SEEN].name = "ecn_ce_seen",
	[MROCE_CNT_ECN_ECHOED].name = "ecn_echoed",
	[MROCE_CNT_ICRC_DROPS].name = "icrc_drops",
	[MROCE_CNT_MALFORMED_DROPS].name = "malformed_drops",
	[MROCE_CNT_VERSION_DROPS].name = "version_drops",
	[MROCE_CNT_QPN_DROPS].name = "unknown_qpn_drops",
	[MROCE_CNT_DUP_DROPS].name = "duplicate_drops",
	[MROCE_CNT_WINDOW_DROPS].name = "out_of_window_drops",
	[MROCE_CNT_RKEY_VIOLATIONS].name = "rkey_violations",
	[MROCE_CNT_PATH_REROLLS].name = "path_rerolls",
	[MROCE_CNT_QKEY_DROPS].name = "qkey_drops",
	[MROCE_CNT_NO_WQE_DROPS].name = "no_wqe_drops",
	[MROCE_CNT_UD_LEN_DROPS].name = "ud_len_drops",
	[MROCE_CNT_STALE_DROPS].name = "stale_drops",
	[MROCE_CNT_FUTURE_DROPS].name = "future_drops",
	[MROCE_CNT_OLD_DUP_DROPS].name = "old_dup_drops",
	[MROCE_CNT_ERR_POINT_DROPS].name = "error_point_drops",
	[MROCE_CNT_REPLAY_DROPS].name = "replay_drops",
	[MROCE_CNT_ATOMIC_MISS].name = "atomic_miss",
	[MROCE_CNT_RATE_LIMITED].name = "rate_limited",
	[MROCE_CNT_ACK_AGE_DROPS].name = "ack_age_drops",
	[MROCE_CNT_TRIM_DROPS].name = "trimmed_drops",
	[MROCE_CNT_TRIMMED_RX].name = "trimmed_received",
	[MROCE_CNT_RESP_DROPS].name = "response_drops",
	[MROCE_CNT_NACK_TX_RESOURCE].name = "nack_sent_resource",
	[MROCE_CNT_NACK_RX_RESOURCE].name = "nack_rcvd_resource",
	[MROCE_CNT_PMTU_DROPS].name = "pmtu_drops",
	[MROCE_CNT_ICMP_ERRORS].name = "icmp_errors",
	/* Connection setup, revision 1.1 (MR-VER-12, MR-VER-13, MR-VER-14) */
	[MROCE_CNT_HELLO_SENT].name = "hello_sent",
	[MROCE_CNT_HELLO_RECEIVED].name = "hello_received",
	[MROCE_CNT_HELLO_UNANSWERED].name = "hello_unanswered",
	[MROCE_CNT_HELLO_CONFLICT].name = "hello_conflict",
	[MROCE_CNT_HELLO_LATE].name = "hello_late",
	/* Declared lost, delivered after all (MR-LOSS-12, MR-CONF-7) */
	[MROCE_CNT_SPURIOUS_LOSS].name = "lost_spurious",
	[MROCE_CNT_TRUNC_DROPS].name = "trunc_drops",
	[MROCE_CNT_RSVD_DROPS].name = "rsvd_drops",
	[MROCE_CNT_OPCODE_DROPS].name = "opcode_drops",
	[MROCE_CNT_HDR_LEN_DROPS].name = "hdr_len_drops",
	[MROCE_CNT_FLAGS_DROPS].name = "flags_drops",
	[MROCE_CNT_PAYLOAD_DROPS].name = "payload_drops",
	[MROCE_CNT_RANGE_DROPS].name = "range_drops",
	[MROCE_CNT_ALIGN_DROPS].name = "align_drops",
	[MROCE_CNT_FIELD_DROPS].name = "field_drops",
	[MROCE_CNT_SRC_DROPS].name = "src_drops",
	[MROCE_CNT_MSG_MISMATCH_DROPS].name = "msg_mismatch_drops",
	[MROCE_CNT_UC_OLD_DROPS].name = "uc_old_drops",
	[MROCE_CNT_UC_LATE_DROPS].name = "uc_late_drops",
	[MROCE_CNT_UC_REFUSED_DROPS].name = "uc_refused_drops",
	[MROCE_CNT_UC_MSG_DROPS].name = "uc_msg_drops",
	/*
	 * Path health (MR-MP-8..11, MR-CONF-7). Unmatched PROBE_REPLYs
	 * (MR-MP-25) count in duplicate_drops.
	 */
	[MROCE_CNT_PATH_DEATHS].name = "path_deaths",
	[MROCE_CNT_PATH_REVIVALS].name = "path_revivals",
	[MROCE_CNT_PATH_PROBES].name = "path_probes",
	[MROCE_CNT_PATH_PROBE_REPLIES].name = "path_probe_replies",
	[MROCE_CNT_PATH_EXPLORES].name = "path_explores",
};

/* The reason counter of each malformed-packet error of the codec. */
static const u8 mroce_malformed_cnt[MR_ERR_NUM] = {
	[-MR_ERR_TRUNC] = MROCE_CNT_TRUNC_DROPS,
	[-MR_ERR_RSVD] = MROCE_CNT_RSVD_DROPS,
	[-MR_ERR_OPCODE] = MROCE_CNT_OPCODE_DROPS,
	[-MR_ERR_HDR_LEN] = MROCE_CNT_HDR_LEN_DROPS,
	[-MR_ERR_FLAGS] = MROCE_CNT_FLAGS_DROPS,
	[-MR_ERR_PAYLOAD] = MROCE_CNT_PAYLOAD_DROPS,
	[-MR_ERR_RANGE] = MROCE_CNT_RANGE_DROPS,
	[-MR_ERR_ALIGN] = MROCE_CNT_ALIGN_DROPS,
	[-MR_ERR_FIELD] = MROCE_CNT_FIELD_DROPS,
};

/*
 * A packet the codec refused with @err (a negative enum mr_err,
 * MR-MAL-2), counted by its reason (MR-MAL-9): a wrong version, ICRC,
 * trimmed packet without payload or PMTU cut has its own counter; any
 * other error is malformed: malformed_drops, the total, and the
 * counter of its reason where it has one.
 */
void mroce_count_decode_err(struct mroce_dev *dev, int err)
{
	switch (err) {
	case MR_ERR_VERSION:
		mroce_count(dev, MROCE_CNT_VERSION_DROPS);
		return;
	case MR_ERR_ICRC:
		mroce_count(dev, MROCE_CNT_ICRC_DROPS);
		return;
	case MR_ERR_TRIMMED:
		mroce_count(dev, MROCE_CNT_TRIM_DROPS);
		return;
	case MR_ERR_PMTU:
		mroce_count(dev, MROCE_CNT_PMTU_DROPS);
		return;
	}
	mroce_count(dev, MROCE_CNT_MALFORMED_DROPS);
	if (err < 0 && -err < MR_ERR_NUM && mroce_malformed_cnt[-err])
		mroce_count(dev, mroce_malformed_cnt[-err]);
}

u64 mroce_counter_read(struct mroce_dev *dev, enum mroce_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(dev->stats, cpu)->cnt[c];
	return sum;
}
MR_KUNIT_EXPORT(mroce_counter_read);

struct rdma_hw_stats *mroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	BUILD_BUG_ON(ARRAY_SIZE(mroce_counter_descs) != MROCE_NUM_COUNTERS);

	return rdma_alloc_hw_stats_struct(mroce_counter_descs,
					  MROCE_NUM_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}
MR_KUNIT_EXPORT(mroce_alloc_hw_port_stats);

int mroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct mroce_dev *dev = to_mdev(ibdev);
	int i;

	if (!port || !stats)
		return -EINVAL;

	for (i = 0; i < MROCE_NUM_COUNTERS; i++)
		stats->value[i] = mroce_counter_read(dev, i);
	return MROCE_NUM_COUNTERS;
}
MR_KUNIT_EXPORT(mroce_get_hw_stats);
