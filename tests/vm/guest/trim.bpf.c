// SPDX-License-Identifier: GPL-2.0
/*
 * A packet-trimming switch, as a tc classifier on a guest's eth0 egress
 * (tests/e2e/metaroce-trim.sh). It behaves like the trimming of switch
 * ASICs the spec's contract is written for (MR-TRIM-1), not like a
 * MetaRoCE-aware element: it does not set the MBH TRIM flag and does not
 * keep the ICRC. One in TRIM_ONE_IN MetaRoCE data packets (opcodes that
 * carry payload, by the MBH opcode: the switch has to pick data packets
 * so that ACKs are never cut, which a real one does by length) is
 *   - cut to a fixed IP length of TRIM_IP_LEN bytes,
 *   - re-marked with DSCP TRIM_DSCP (ECN kept),
 * with the IPv4 total length and header checksum updated, the UDP length
 * set to the cut datagram and the UDP checksum zeroed. IPv4 only, no VLAN.
 *
 * Built on the host by tests/vm/mkinitramfs.sh with clang -target bpf
 * (-DMR_PORT= the MetaRoCE UDP port of kernel/proto/wire.h); no libbpf
 * headers: the helpers are declared here from their <linux/bpf.h> IDs.
 * Loaded in the guest with
 *   tc qdisc add dev eth0 clsact
 *   tc filter add dev eth0 egress bpf da obj /mr/bpf/trim.o sec trim
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>

#ifndef MR_PORT
#error "MR_PORT: the MetaRoCE UDP port"
#endif
#ifndef TRIM_ONE_IN
#define TRIM_ONE_IN	8
#endif
#ifndef TRIM_DSCP
#define TRIM_DSCP	6	/* MR_TRIM_DSCP_DEFAULT */
#endif
/* 128 bytes of IP packet: 100 bytes of UDP payload kept (MR-TRIM-1: >= 60) */
#define TRIM_IP_LEN	128

#define SEC(name) __attribute__((section(name), used))

static long (*bpf_skb_load_bytes)(const void *skb, __u32 off, void *to,
				  __u32 len) = (void *)BPF_FUNC_skb_load_bytes;
static long (*bpf_skb_store_bytes)(void *skb, __u32 off, const void *from,
				   __u32 len, __u64 flags) =
	(void *)BPF_FUNC_skb_store_bytes;
static long (*bpf_l3_csum_replace)(void *skb, __u32 off, __u64 from,
				   __u64 to, __u64 size) =
	(void *)BPF_FUNC_l3_csum_replace;
static long (*bpf_skb_change_tail)(void *skb, __u32 len, __u64 flags) =
	(void *)BPF_FUNC_skb_change_tail;
static __u32 (*bpf_get_prandom_u32)(void) =
	(void *)BPF_FUNC_get_prandom_u32;

#define IP_OFF		ETH_HLEN
#define UDP_OFF		(ETH_HLEN + sizeof(struct iphdr))
#define MBH_OFF		(UDP_OFF + sizeof(struct udphdr))

/* MetaRoCE opcodes that carry payload (MR-HDR-2). */
static int data_opcode(__u8 op)
{
	return (op >= 0x01 && op <= 0x05) || op == 0x22;
}

SEC("trim")
int mr_trim(struct __sk_buff *skb)
{
	__u16 old_w0, new_w0, old_tot, new_tot, ulen;
	struct udphdr udp;
	struct iphdr ip;
	__u8 mbh[2];
	__be16 zero = 0;

	if (skb->protocol != __builtin_bswap16(ETH_P_IP))
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, IP_OFF, &ip, sizeof(ip)) ||
	    ip.ihl != 5 || ip.protocol != IPPROTO_UDP ||
	    (ip.frag_off & __builtin_bswap16(0x3fff)))
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, UDP_OFF, &udp, sizeof(udp)) ||
	    udp.dest != __builtin_bswap16(MR_PORT))
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, MBH_OFF, mbh, sizeof(mbh)) ||
	    (mbh[0] >> 4) != 1 || !data_opcode(mbh[1]))
		return TC_ACT_OK;
	old_tot = ip.tot_len;
	if (__builtin_bswap16(old_tot) <= TRIM_IP_LEN ||
	    skb->len != ETH_HLEN + __builtin_bswap16(old_tot))
		return TC_ACT_OK;
	if (bpf_get_prandom_u32() % TRIM_ONE_IN)
		return TC_ACT_OK;

	/* Cut at the fixed length, then the L3 rewrite of any router. */
	if (bpf_skb_change_tail(skb, ETH_HLEN + TRIM_IP_LEN, 0))
		return TC_ACT_SHOT;
	new_tot = __builtin_bswap16(TRIM_IP_LEN);
	if (bpf_l3_csum_replace(skb, IP_OFF + 10, old_tot, new_tot, 2) ||
	    bpf_skb_store_bytes(skb, IP_OFF + 2, &new_tot, 2, 0))
		return TC_ACT_SHOT;
	/* Version/IHL and TOS are the first 16-bit word of the header. */
	if (bpf_skb_load_bytes(skb, IP_OFF, &old_w0, 2))
		return TC_ACT_SHOT;
	new_w0 = old_w0;
	((__u8 *)&new_w0)[1] = (TRIM_DSCP << 2) | (ip.tos & 3);
	if (bpf_l3_csum_replace(skb, IP_OFF + 10, old_w0, new_w0, 2) ||
	    bpf_skb_store_bytes(skb, IP_OFF, &new_w0, 2, 0))
		return TC_ACT_SHOT;
	/* UDP length of the cut datagram, no checksum (MR-TRIM-1). */
	ulen = __builtin_bswap16(TRIM_IP_LEN - sizeof(struct iphdr));
	if (bpf_skb_store_bytes(skb, UDP_OFF + 4, &ulen, 2, 0) ||
	    bpf_skb_store_bytes(skb, UDP_OFF + 6, &zero, 2, 0))
		return TC_ACT_SHOT;
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
