-- SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
--
-- Wireshark dissector for the MetaRoCE v1 wire format
-- (Documentation/metaroce/spec.rst, sections ENC, HDR, ICRC, REL, MAL).
--
-- Install: copy this file into ~/.local/lib/wireshark/plugins/ (one user)
-- or /usr/lib/x86_64-linux-gnu/wireshark/plugins/ (every user), or load it
-- for one run with `tshark -X lua_script:metaroce.lua`.  It registers on
-- UDP destination port 4794, the default of spec v1.1 (MR-ENC-11;
-- preference "metaroce.udp_port") and is offered under "Decode As..." for
-- any other UDP port: a lab port, or 4793 of pre-1.1 builds, is read with
-- `tshark -d udp.port==4793,metaroce` (Wireshark: Analyze, Decode As, UDP
-- port 4793, MetaRoCE) or by setting the preference.  Filter fields start
-- with "metaroce." (Documentation/metaroce/admin-guide.rst, "Looking at
-- MetaRoCE packets").
--
-- Layout: first the spec transcribed as tables (flags, opcodes, NACK
-- reasons, one table per header diagram), then the code that walks them.
-- A change of the wire format is a change of a table, not of the code.
-- tests/dissector/check.sh checks the result against captures written by
-- the reference codec (kernel/proto/wire.c).

local bit = bit32 or bit	-- Lua 5.2 (Wireshark 4.0) has both
local band, bor, bxor = bit.band, bit.bor, bit.bxor
local lshift, rshift = bit.lshift, bit.rshift

local MR_VERSION = 1		-- MR-VER-1
local DEFAULT_PORT = 4794	-- MR-ENC-1, MR-ENC-11
local ENTROPY_BASE = 0xC000	-- UDP source port = base | entropy (MR-ENC-2)
local ENTROPY_MASK = 0x3FFF
local MBH_LEN = 20
local ICRC_LEN = 4		-- MR-HDR-20
local MAX_PATHS = 64		-- MR-HDR-6, MR-MAL-6
local PSN_MOD = 0x1000000	-- PSNs are 24 bits
local SACK_BITS = 256		-- MR-HDR-18

------------------------------------------------------------------------
-- The spec as tables
------------------------------------------------------------------------

-- MBH flags (MR-HDR-3).  abbr is the spelling of the opcode table.
local FLAGS = {
	{ mask = 0x0001, name = "ACKREQ", abbr = "AR",
	  desc = "Acknowledge this request without delay" },
	{ mask = 0x0002, name = "SE", abbr = "SE",
	  desc = "Solicited event" },
	{ mask = 0x0004, name = "FIRST", abbr = "F",
	  desc = "First packet of its message" },
	{ mask = 0x0008, name = "LAST", abbr = "L",
	  desc = "Last packet of its message (or of the served READ range)" },
	{ mask = 0x0010, name = "RETX", abbr = "RX",
	  desc = "Retransmission" },
	{ mask = 0x0020, name = "ECE", abbr = "ECE",
	  desc = "ECN echo: the triggering request arrived with CE" },
	{ mask = 0x0040, name = "TRIM", abbr = "TR",
	  desc = "Payload removed by a trimming switch" },
}
local FLAGS_RESERVED = 0xFF80	-- bits 7..15, ignored (MR-VER-2)

-- Masks by name, and all defined bits.
local FLAG, FLAGS_KNOWN = {}, 0
for _, f in ipairs(FLAGS) do
	FLAG[f.name] = f.mask
	FLAGS_KNOWN = bor(FLAGS_KNOWN, f.mask)
end

-- Opcodes (MR-HDR-2): code = { name, headers after the MBH, payload,
-- flags allowed, packets per message }, as the spec's table writes them.
local OPCODES = {
	[0x01] = { "SEND",        "DXH",         true,  "AR SE F L RX TR", "1..n" },
	[0x02] = { "SEND_IMM",    "DXH IMM",     true,  "AR SE F L RX TR", "1..n" },
	[0x03] = { "SEND_INV",    "DXH IETH",    true,  "AR SE F L RX TR", "1..n" },
	[0x04] = { "WRITE",       "DXH RXH",     true,  "AR F L RX TR",    "1..n" },
	[0x05] = { "WRITE_IMM",   "DXH RXH IMM", true,  "AR SE F L RX TR", "1..n" },
	[0x06] = { "READ_REQ",    "DXH RXH",     false, "AR F L RX",       "1" },
	[0x07] = { "ATOMIC_CS",   "DXH AXH",     false, "AR F L RX",       "1" },
	[0x08] = { "ATOMIC_FA",   "DXH AXH",     false, "AR F L RX",       "1" },
	[0x09] = { "UD_SEND",     "DETH",        true,  "SE F L TR",       "1" },
	[0x0A] = { "UD_SEND_IMM", "DETH IMM",    true,  "SE F L TR",       "1" },
	[0x0B] = { "UC_SEND",     "DXH",         true,  "SE F L TR",       "1..n" },
	[0x0C] = { "UC_SEND_IMM", "DXH IMM",     true,  "SE F L TR",       "1..n" },
	[0x0D] = { "UC_WRITE",    "DXH RXH",     true,  "F L TR",          "1..n" },
	[0x0E] = { "UC_WRITE_IMM", "DXH RXH IMM", true, "SE F L TR",       "1..n" },
	[0x20] = { "ACK",         "AKH",         false, "ECE",             "n/a" },
	[0x21] = { "NACK",        "AKH NKH",     false, "ECE",             "n/a" },
	[0x22] = { "READ_RESP",   "DXH",         true,  "F L RX TR",       "1..n" },
	[0x23] = { "ATOMIC_RESP", "DXH ATKH",    false, "F L RX",          "1" },
	[0x30] = { "PROBE",       "",            false, "",                "n/a" },
	[0x31] = { "PROBE_REPLY", "",            false, "",                "n/a" },
	[0x32] = { "HELLO",       "HLH",         false, "",                "n/a" },
}

-- HLH capability bits (MR-VER-11) and flags (MR-HDR-27).
local CAPS = { [0] = "CORE", [1] = "MULTIPATH", [2] = "CC" }
local HELLO_SEEN = 0x0001
local HELLO_READ_RANGE_MIN = 65536
local MAX_MSG_LEN = 0x80000000

-- NKH reasons (MR-REL-5; 7 RESOURCE since v1.1): value = { name, fatal }.
local NACK_REASONS = {
	[1] = { "TRIMMED", false },
	[2] = { "SEQ_ERR", false },
	[3] = { "RNR", false },
	[4] = { "REMOTE_ACCESS", true },
	[5] = { "INVALID_REQ", true },
	[6] = { "REMOTE_OP", true },
	[7] = { "RESOURCE", false },
}
local NACK_RNR = 3
local NACK_RESOURCE = 7
local RNR_TIMER_MAX = 31	-- MR-HDR-19

-- Value strings derived from the tables above.
local opcode_names, reason_names = {}, {}
for code, op in pairs(OPCODES) do opcode_names[code] = op[1] end
for code, r in pairs(NACK_REASONS) do reason_names[code] = r[1] end

-- The header diagrams of the HDR section (MR-HDR-1), one table each.
-- A field is { name, label, byte offset, byte width, mask, base } plus
--   rsvd = true   reserved, must be zero (MR-VER-3);
--   vals = {}     value names;
--   flags = true  the MBH flags word (its bits come from FLAGS).
-- The filter name of a field is metaroce.<name> for the MBH and
-- metaroce.<header>.<name> for the others.
local HEADERS = {
	MBH = { len = 20, title = "Base header (MBH)", prefix = "",
		{ "version",   "Version",                   0, 1, 0xF0,       base.DEC },
		{ "ver_rsvd",  "Reserved",                  0, 1, 0x0F,       base.HEX, rsvd = true },
		{ "opcode",    "Opcode",                    1, 1, nil,        base.HEX, vals = opcode_names },
		{ "flags",     "Flags",                     2, 2, nil,        base.HEX, flags = true },
		{ "path",      "Path",                      4, 4, 0xFF000000, base.DEC },
		{ "dqpn",      "Destination QPN",           4, 4, 0x00FFFFFF, base.HEX },
		{ "psn_rsvd",  "Reserved",                  8, 4, 0xFF000000, base.HEX, rsvd = true },
		{ "psn",       "PSN",                       8, 4, 0x00FFFFFF, base.HEX },
		{ "sqpn_rsvd", "Reserved",                 12, 4, 0xFF000000, base.HEX, rsvd = true },
		{ "sqpn",      "Source QPN",               12, 4, 0x00FFFFFF, base.HEX },
		{ "ts",        "Transmit timestamp (us)",  16, 4, nil,        base.DEC },
	},
	DXH = { len = 16, title = "Data extension header (DXH)", prefix = "dxh.",
		{ "msn",       "MSN",                       0, 4, nil,        base.DEC },
		{ "offset",    "Offset",                    4, 4, nil,        base.DEC },
		{ "msg_len",   "Message length",            8, 4, nil,        base.DEC },
		{ "ssn",       "SSN",                      12, 4, nil,        base.DEC },
	},
	RXH = { len = 16, title = "RDMA extension header (RXH)", prefix = "rxh.",
		{ "va",        "Virtual address",           0, 8, nil,        base.HEX },
		{ "rkey",      "R_Key",                     8, 4, nil,        base.HEX },
		{ "rsvd",      "Reserved",                 12, 4, nil,        base.HEX, rsvd = true },
	},
	IMM = { len = 4, title = "Immediate data (IMM)", prefix = "imm.",
		{ "data",      "Immediate data",            0, 4, nil,        base.HEX },
	},
	IETH = { len = 4, title = "Invalidate header (IETH)", prefix = "ieth.",
		{ "rkey",      "R_Key to invalidate",       0, 4, nil,        base.HEX },
	},
	AXH = { len = 28, title = "Atomic extension header (AXH)", prefix = "axh.",
		{ "va",        "Virtual address",           0, 8, nil,        base.HEX },
		{ "rkey",      "R_Key",                     8, 4, nil,        base.HEX },
		{ "swap_add",  "Swap (CS) / Add (FA)",     12, 8, nil,        base.HEX },
		{ "compare",   "Compare (CS; 0 for FA)",   20, 8, nil,        base.HEX },
	},
	ATKH = { len = 8, title = "Atomic response header (ATKH)", prefix = "atkh.",
		{ "orig",      "Original value",            0, 8, nil,        base.HEX },
	},
	DETH = { len = 8, title = "Datagram extension header (DETH)", prefix = "deth.",
		{ "qkey",      "Q_Key",                     0, 4, nil,        base.HEX },
		{ "rsvd",      "Reserved",                  4, 4, 0xFF000000, base.HEX, rsvd = true },
		{ "sqpn",      "Source QPN",                4, 4, 0x00FFFFFF, base.HEX },
	},
	AKH = { len = 52, title = "Acknowledgement header (AKH)", prefix = "akh.",
		{ "rsvd",      "Reserved",                  0, 4, 0xFF000000, base.HEX, rsvd = true },
		{ "cum_psn",   "Cumulative PSN",            0, 4, 0x00FFFFFF, base.HEX },
		{ "msn",       "MSN (completed messages)",  4, 4, nil,        base.DEC },
		{ "ts_echo",   "Timestamp echo",            8, 4, nil,        base.DEC },
		{ "ce_count",  "CE count",                 12, 2, nil,        base.DEC },
		{ "pkt_count", "Packet count",             14, 2, nil,        base.DEC },
		{ "credit",    "Credit (packets)",         16, 4, nil,        base.DEC },
		{ "sack_w0",   "SACK word 0 (bits 63..0)",    20, 8, nil,     base.HEX },
		{ "sack_w1",   "SACK word 1 (bits 127..64)",  28, 8, nil,     base.HEX },
		{ "sack_w2",   "SACK word 2 (bits 191..128)", 36, 8, nil,     base.HEX },
		{ "sack_w3",   "SACK word 3 (bits 255..192)", 44, 8, nil,     base.HEX },
	},
	NKH = { len = 8, title = "Negative acknowledgement header (NKH)", prefix = "nkh.",
		{ "reason",    "Reason",                    0, 1, nil,        base.DEC, vals = reason_names },
		{ "rnr_timer", "RNR timer",                 1, 1, nil,        base.DEC },
		{ "rsvd",      "Reserved",                  2, 2, nil,        base.HEX, rsvd = true },
		{ "psn_rsvd",  "Reserved",                  4, 4, 0xFF000000, base.HEX, rsvd = true },
		{ "nack_psn",  "NACK PSN",                  4, 4, 0x00FFFFFF, base.HEX },
	},
	-- Word 3 and the flag bits but SEEN are ignored, not dropped (MR-VER-9).
	HLH = { len = 16, title = "HELLO header (HLH)", prefix = "hlh.",
		{ "rev_major", "Revision major",            0, 1, nil,        base.DEC },
		{ "rev_minor", "Revision minor",            1, 1, nil,        base.DEC },
		{ "flags",     "HELLO flags",               2, 2, nil,        base.HEX },
		{ "caps",      "Capabilities",              4, 4, nil,        base.HEX },
		{ "max_read_range", "Max READ range",       8, 4, nil,        base.DEC },
		{ "rsvd",      "Reserved (ignored)",       12, 4, nil,        base.HEX },
	},
}

-- The opcode table, parsed once: header list, header length, flag mask.
local flag_by_abbr = {}
for _, f in ipairs(FLAGS) do flag_by_abbr[f.abbr] = f.mask end

for code, op in pairs(OPCODES) do
	local d = { name = op[1], hdrs = {}, payload = op[3], flags_ok = 0,
		    single = op[5] == "1", hdr_len = MBH_LEN }
	for h in op[2]:gmatch("%S+") do
		d.hdrs[#d.hdrs + 1] = h
		d.hdr_len = d.hdr_len + HEADERS[h].len
	end
	for a in op[4]:gmatch("%S+") do
		d.flags_ok = bor(d.flags_ok, flag_by_abbr[a])
	end
	OPCODES[code] = d
end

------------------------------------------------------------------------
-- Protocol, fields, expert infos
------------------------------------------------------------------------

local metaroce = Proto("metaroce", "MetaRoCE")

if set_plugin_info then
	set_plugin_info({
		version = "1",
		description = "MetaRoCE v1 wire format (spec.rst)",
	})
end

local CTOR = { [1] = ProtoField.uint8, [2] = ProtoField.uint16,
	       [4] = ProtoField.uint32, [8] = ProtoField.uint64 }

local all_fields = {}
local function field(f)
	all_fields[#all_fields + 1] = f
	return f
end

for _, h in pairs(HEADERS) do
	for _, f in ipairs(h) do
		f.pf = field(CTOR[f[4]]("metaroce." .. h.prefix .. f[1], f[2],
					f[6], f.vals, f[5]))
	end
end
for _, f in ipairs(FLAGS) do
	f.pf = field(ProtoField.bool("metaroce.flags." .. f.name:lower(),
				     f.name, 16, nil, f.mask, f.desc))
end

local pf = {
	flags_rsvd = field(ProtoField.uint16("metaroce.flags.reserved",
		"Reserved flag bits", base.HEX, nil, FLAGS_RESERVED)),
	entropy = field(ProtoField.uint16("metaroce.entropy",
		"Entropy (UDP source port & 0x3FFF)", base.HEX)),
	hdr_len = field(ProtoField.uint32("metaroce.hdr_len",
		"Header length (MBH + extension headers)", base.DEC)),
	payload_len = field(ProtoField.uint32("metaroce.payload_len",
		"Payload length", base.DEC)),
	payload = field(ProtoField.bytes("metaroce.payload", "Payload")),
	undecoded = field(ProtoField.bytes("metaroce.undecoded",
		"Undecoded bytes")),
	sack_count = field(ProtoField.uint16("metaroce.akh.sack_count",
		"SACKed PSNs", base.DEC)),
	sack_psn = field(ProtoField.uint24("metaroce.akh.sack_psn",
		"SACKed PSN", base.HEX)),
	icrc = field(ProtoField.uint32("metaroce.icrc", "ICRC", base.HEX)),
	icrc_computed = field(ProtoField.uint32("metaroce.icrc.computed",
		"Computed ICRC", base.HEX)),
	icrc_status = field(ProtoField.uint8("metaroce.icrc.status",
		"ICRC status", base.DEC, { [0] = "Bad", [1] = "Good",
		[2] = "Not checked: TRIM set", [3] = "Not checked: capture cut" })),
}
metaroce.fields = all_fields

-- One expert info per kind of problem; the text names the codec's drop
-- counter (admin guide, "Counters").
local function expert(name, text, group, severity)
	return ProtoExpert.new("metaroce.expert." .. name, text, group, severity)
end
local ex = {
	empty = expert("empty", "Empty UDP payload", PI_MALFORMED, PI_ERROR),
	version = expert("version", "Unknown MetaRoCE version",
		PI_MALFORMED, PI_ERROR),
	trunc = expert("trunc", "Shorter than MBH + ICRC", PI_MALFORMED,
		PI_ERROR),
	opcode = expert("opcode", "Unassigned opcode", PI_MALFORMED, PI_ERROR),
	hdr_len = expert("hdr_len", "Shorter than the opcode's headers + ICRC",
		PI_MALFORMED, PI_ERROR),
	rsvd = expert("rsvd", "Reserved field not zero", PI_MALFORMED,
		PI_ERROR),
	field = expert("field", "Field value not allowed", PI_MALFORMED,
		PI_ERROR),
	flags = expert("flags", "Flags not allowed on this opcode",
		PI_MALFORMED, PI_ERROR),
	payload = expert("payload", "Payload on an opcode without payload",
		PI_MALFORMED, PI_ERROR),
	flags_rsvd = expert("flags_rsvd", "Reserved flag bits set (ignored)",
		PI_PROTOCOL, PI_NOTE),
	sport = expert("sport", "UDP source port below 0xC000",
		PI_PROTOCOL, PI_WARN),
	icrc_bad = expert("icrc_bad", "Bad ICRC", PI_CHECKSUM, PI_ERROR),
	icrc_trim = expert("icrc_trim", "TRIM set: ICRC not checked",
		PI_CHECKSUM, PI_NOTE),
	snap = expert("snap", "Packet cut by the capture: ICRC not checked",
		PI_UNDECODED, PI_WARN),
}
local all_experts = {}
for _, e in pairs(ex) do all_experts[#all_experts + 1] = e end
metaroce.experts = all_experts

-- Problems that make a receiver drop the packet (MR-MAL-2), counted per
-- packet so that the Info column can say "[malformed]".
local DROPS = { [ex.empty] = true, [ex.version] = true, [ex.trunc] = true,
		[ex.opcode] = true, [ex.hdr_len] = true, [ex.rsvd] = true,
		[ex.field] = true, [ex.flags] = true, [ex.payload] = true }
local drops = 0

local function report(item, e, text)
	item:add_proto_expert_info(e, text)
	if DROPS[e] then drops = drops + 1 end
end

metaroce.prefs.udp_port = Pref.uint("UDP port", DEFAULT_PORT,
	"UDP destination port of MetaRoCE packets (module parameter udp_port)")

------------------------------------------------------------------------
-- ICRC: CRC32C, reflected polynomial 0x82F63B78, init and xorout
-- 0xFFFFFFFF, stored little-endian (MR-ICRC-1, MR-ICRC-3)
------------------------------------------------------------------------

local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if band(c, 1) ~= 0 then
			c = bxor(rshift(c, 1), 0x82F63B78)
		else
			c = rshift(c, 1)
		end
	end
	crc_table[i] = c
end

local function crc32c(s)
	local crc = 0xFFFFFFFF
	for i = 1, #s do
		crc = bxor(crc_table[band(bxor(crc, s:byte(i)), 0xFF)],
			   rshift(crc, 8))
	end
	return bxor(crc, 0xFFFFFFFF)
end

------------------------------------------------------------------------
-- Dissection
------------------------------------------------------------------------

local function hex24(v) return string.format("0x%06x", v) end

-- Trailing zero bits of a mask: the shift of a masked field's value.
local function mask_shift(mask)
	local s = 0
	while band(mask, 1) == 0 do
		mask = rshift(mask, 1)
		s = s + 1
	end
	return s
end

-- Add the fields of header @h found at @off, those that lie within the
-- first @have bytes of @tvb.  Returns the subtree, the field items and the
-- values (fields of up to 4 bytes) by name.  Reserved fields that are not
-- zero get an expert info (MR-VER-3).
local function add_header(tree, tvb, h, off, have)
	local n = math.min(h.len, have - off)
	local sub = tree:add(tvb(off, n), h.title)
	if n < h.len then
		sub:append_text(string.format(" [%d of %d bytes]", n, h.len))
	end
	local item, val = {}, {}
	for _, f in ipairs(h) do
		local name, foff, width, mask = f[1], off + f[3], f[4], f[5]
		if foff + width <= off + n then
			local r = tvb(foff, width)
			local it = sub:add(f.pf, r)
			item[name] = it
			if width <= 4 then
				local v = r:uint()
				if mask then
					v = rshift(band(v, mask), mask_shift(mask))
				end
				val[name] = v
			end
			if f.rsvd and val[name] ~= 0 then
				report(it, ex.rsvd,
					"Reserved field not zero (MR-VER-3; dropped: rsvd)")
			end
			if f.flags then
				for _, fl in ipairs(FLAGS) do it:add(fl.pf, r) end
				it:add(pf.flags_rsvd, r)
			end
		end
	end
	return sub, item, val
end

-- "FIRST LAST ACKREQ" for a flags word.
local function flag_names(flags)
	local s = {}
	for _, f in ipairs(FLAGS) do
		if band(flags, f.mask) ~= 0 then s[#s + 1] = f.name end
	end
	return table.concat(s, " ")
end

-- The MBH checks that need no extension header (MR-MAL-2 step 5).
local function check_mbh(op, item, val)
	if val.path >= MAX_PATHS then
		report(item.path, ex.field,
			"Path 64 or more (MR-MAL-6; dropped: field)")
	end
	local flags = val.flags
	if band(flags, FLAGS_RESERVED) ~= 0 then
		report(item.flags, ex.flags_rsvd,
			"Reserved flag bits set, ignored by receivers (MR-VER-2)")
	end
	local extra = band(flags, bxor(op.flags_ok, FLAGS_KNOWN))
	if extra ~= 0 then
		report(item.flags, ex.flags, string.format(
			"%s not allowed on %s (MR-HDR-22; dropped: flags)",
			flag_names(extra), op.name))
	end
	local first_last = bor(FLAG.FIRST, FLAG.LAST)
	if op.single and band(flags, first_last) ~= first_last then
		report(item.flags, ex.flags, string.format(
			"%s is single-packet: FIRST and LAST must be set " ..
			"(MR-HDR-23; dropped: flags)", op.name))
	end
	if (op.name == "ACK" or op.name == "NACK") and val.psn ~= 0 then
		report(item.psn, ex.field,
			"ACK and NACK carry PSN 0 (MR-HDR-8; dropped: field)")
	end
end

-- The SACKed PSNs of an AKH at @off (MR-HDR-18): bit i is in AKH byte
-- 20 + 8 * (i div 64) + 7 - ((i mod 64) div 8) under mask 1 << (i mod 8),
-- and names PSN cum_psn + i (mod 2^24).
local function add_sack(sub, tvb, off, cum_psn, item)
	local psns = {}
	for i = 0, SACK_BITS - 1 do
		local byte = off + 20 + 8 * math.floor(i / 64) + 7 -
			     math.floor((i % 64) / 8)
		if band(tvb(byte, 1):uint(), lshift(1, i % 8)) ~= 0 then
			if i == 0 then
				report(item.sack_w0, ex.field,
					"SACK bit 0 set: cum_psn itself is not received " ..
					"(MR-HDR-18; dropped: field)")
			else
				psns[#psns + 1] = { i, byte }
			end
		end
	end
	local list = sub:add(pf.sack_count, tvb(off + 20, 32), #psns)
	list:set_generated()
	for _, p in ipairs(psns) do
		local it = list:add(pf.sack_psn, tvb(p[2], 1),
				    (cum_psn + p[1]) % PSN_MOD)
		it:append_text(string.format(" (bit %d)", p[1]))
		it:set_generated()
	end
	return #psns
end

-- Extension header checks and Info text (MR-MAL-2 step 8).
local function check_ext(name, sub, tvb, off, item, val, mbh, info)
	if name == "AKH" then
		local n = add_sack(sub, tvb, off, val.cum_psn, item)
		if val.credit == 0xFFFFFFFF then
			item.credit:append_text(" (no limit)")	-- MR-CC-14
		end
		info[#info + 1] = "cum_psn=" .. hex24(val.cum_psn)
		if n > 0 then info[#info + 1] = "sacked=" .. n end
	elseif name == "NKH" then
		local r = NACK_REASONS[val.reason]
		if not r then
			report(item.reason, ex.field, string.format(
				"Reserved reason %d (MR-REL-5; dropped: field)",
				val.reason))
		else
			item.reason:append_text(r[2] and " (fatal)" or " (not fatal)")
		end
		if val.rnr_timer > RNR_TIMER_MAX or
		   (val.rnr_timer ~= 0 and val.reason ~= NACK_RNR and
		    val.reason ~= NACK_RESOURCE) then
			report(item.rnr_timer, ex.field,
				"RNR timer must be 0..31, and 0 unless the reason " ..
				"is RNR or RESOURCE (MR-HDR-19; dropped: field)")
		end
		info[#info + 1] = (r and r[1] or ("reason " .. val.reason)) ..
			" nack_psn=" .. hex24(val.nack_psn)
	elseif name == "HLH" then
		-- MR-VER-9: revision 1.x, x >= 1; CORE; 65536..2^31.
		if val.rev_major ~= 1 or val.rev_minor < 1 then
			report(item.rev_minor, ex.field,
				"HELLO exists from revision 1.1 of version 1 " ..
				"(MR-VER-9; dropped: field)")
		end
		if band(val.caps, 1) == 0 then
			report(item.caps, ex.field,
				"CORE not set (MR-VER-11; dropped: field)")
		end
		if val.max_read_range < HELLO_READ_RANGE_MIN or
		   val.max_read_range > MAX_MSG_LEN then
			report(item.max_read_range, ex.field,
				"Outside 65536..2^31 (MR-VER-16; dropped: field)")
		end
		local names = {}
		for bit = 0, 31 do
			if band(val.caps, lshift(1, bit)) ~= 0 then
				names[#names + 1] = CAPS[bit] or ("bit" .. bit)
			end
		end
		item.caps:append_text(" (" .. table.concat(names, " ") .. ")")
		local seen = band(val.flags, HELLO_SEEN) ~= 0
		if seen then item.flags:append_text(" (SEEN)") end
		info[#info + 1] = string.format("rev=%d.%d caps=0x%x%s",
			val.rev_major, val.rev_minor, val.caps,
			seen and " SEEN" or "")
	elseif name == "DETH" then
		if val.sqpn ~= mbh.sqpn then
			report(item.sqpn, ex.field,
				"Differs from the MBH source QPN (MR-HDR-16; " ..
				"dropped: field)")
		end
	elseif name == "DXH" then
		info[#info + 1] = string.format("msn=%d off=%d len=%d",
			val.msn, val.offset, val.msg_len)
	end
end

-- The ICRC trailer at @off (MR-ICRC-2..5).
local function add_icrc(tree, tvb, off, trimmed)
	local r = tvb(off, ICRC_LEN)
	local it = tree:add_le(pf.icrc, r)
	local status
	if trimmed then
		status = 2
		report(it, ex.icrc_trim,
			"TRIM set: the payload was cut, the ICRC is not checked " ..
			"(MR-ICRC-5)")
	else
		local computed = crc32c(tvb:raw(0, off))
		it:add(pf.icrc_computed, r, computed):set_generated()
		status = computed == r:le_uint() and 1 or 0
		if status == 0 then
			report(it, ex.icrc_bad, string.format(
				"Bad ICRC: computed 0x%08x (MR-ICRC-4; dropped: icrc)",
				computed))
		end
	end
	it:add(pf.icrc_status, r, status):set_generated()
	return status
end

function metaroce.dissector(tvb, pinfo, tree)
	local port = metaroce.prefs.udp_port
	-- Only the destination port makes a datagram MetaRoCE (MR-ENC-1);
	-- a port chosen with Decode As is taken as it is.
	if pinfo.match_uint == port and pinfo.dst_port ~= port then
		return 0
	end
	local wire = tvb:reported_len()
	local have = tvb:len()
	pinfo.cols.protocol = "MetaRoCE"
	local root = tree:add(metaroce, tvb())
	local info = {}
	drops = 0

	-- MR-ENC-2: source port 0xC000 | entropy.
	local e = root:add(pf.entropy, band(pinfo.src_port, ENTROPY_MASK))
	e:set_generated()
	if pinfo.src_port < ENTROPY_BASE then
		report(e, ex.sport,
			"UDP source port below 0xC000 (MR-ENC-2)")
	end

	local function done(text)
		if drops > 0 then text = text .. " [malformed]" end
		pinfo.cols.info = text
		root:append_text(", " .. text)
		return wire
	end
	local function undecoded(off, n)
		if n > 0 and off + n <= have then
			root:add(pf.undecoded, tvb(off, n))
		end
	end

	-- MR-MAL-2 step 2: version first, a future version may have
	-- another MBH.
	if wire < 1 then
		report(root, ex.empty, "Empty UDP payload (dropped: trunc)")
		return done("empty")
	end
	local ver = rshift(tvb(0, 1):uint(), 4)
	if ver ~= MR_VERSION then
		report(root:add(HEADERS.MBH[1].pf, tvb(0, 1)), ex.version,
			string.format(
			"Version %d, not 1 (MR-VER-1; dropped: version)", ver))
		undecoded(1, have - 1)
		return done(string.format("version %d (not decoded)", ver))
	end
	if wire < MBH_LEN + ICRC_LEN then
		add_header(root, tvb, HEADERS.MBH, 0, have)
		report(root, ex.trunc, string.format(
			"%d bytes, shorter than MBH + ICRC (%d) (MR-MAL-2; " ..
			"dropped: trunc)", wire, MBH_LEN + ICRC_LEN))
		return done(string.format("truncated (%d bytes)", wire))
	end

	-- MR-MAL-2 step 3: opcode and length.
	local _, mitem, mbh = add_header(root, tvb, HEADERS.MBH, 0, have)
	if have < MBH_LEN then
		report(root, ex.snap, "The capture cut this packet inside the MBH")
		return done("MBH cut by the capture")
	end
	local op = OPCODES[mbh.opcode]
	if not op then
		report(mitem.opcode, ex.opcode, string.format(
			"Opcode 0x%02x is not assigned (MR-VER-4; dropped: opcode)",
			mbh.opcode))
		local text = string.format("opcode 0x%02x (not decoded)", mbh.opcode)
		undecoded(MBH_LEN, wire - MBH_LEN - ICRC_LEN)
		if wire <= have then add_icrc(root, tvb, wire - ICRC_LEN, false) end
		return done(text)
	end
	root:add(pf.hdr_len, op.hdr_len):set_generated()
	info[1] = op.name
	local trimmed = band(mbh.flags, FLAG.TRIM) ~= 0
	local flags = band(mbh.flags, FLAGS_KNOWN)
	if flags ~= 0 then info[#info + 1] = "[" .. flag_names(flags) .. "]" end
	info[#info + 1] = "dqpn=" .. hex24(mbh.dqpn)
	-- What MBH.psn carries depends on the opcode (MR-HDR-8).
	if op.name == "PROBE" or op.name == "PROBE_REPLY" then
		info[#info + 1] = "id=" .. hex24(mbh.psn)
	elseif op.name ~= "ACK" and op.name ~= "NACK" and op.name ~= "HELLO" then
		info[#info + 1] = "psn=" .. hex24(mbh.psn)
	end

	local short = wire < op.hdr_len + ICRC_LEN
	local limit = short and math.min(wire, have) or math.min(have, wire - ICRC_LEN)
	local off = MBH_LEN
	for _, name in ipairs(op.hdrs) do
		if off >= limit then break end
		local h = HEADERS[name]
		local sub, item, val = add_header(root, tvb, h, off, limit)
		if off + h.len <= limit then
			check_ext(name, sub, tvb, off, item, val, mbh, info)
		end
		off = off + h.len
	end
	if short then
		report(root, ex.hdr_len, string.format(
			"%d bytes, %s needs %d (headers) + 4 (ICRC) (MR-MAL-2; " ..
			"dropped: hdr_len)", wire, op.name, op.hdr_len))
		return done(table.concat(info, " ") .. " [truncated]")
	end
	check_mbh(op, mitem, mbh)

	-- Payload (MR-HDR-21) and ICRC.
	local plen = wire - op.hdr_len - ICRC_LEN
	local pl = root:add(pf.payload_len, plen)
	pl:set_generated()
	if plen > 0 and not op.payload then
		report(pl, ex.payload, string.format(
			"%s carries no payload (MR-HDR-21; dropped: payload)",
			op.name))
	end
	if plen > 0 then
		info[#info + 1] = "payload=" .. plen
		if op.hdr_len + plen <= have then
			root:add(pf.payload, tvb(op.hdr_len, plen))
		end
	end
	if wire > have then
		report(root, ex.snap,
			"The capture cut this packet: ICRC not checked")
		root:add(pf.icrc_status, 3):set_generated()
		return done(table.concat(info, " "))
	end
	local status = add_icrc(root, tvb, wire - ICRC_LEN, trimmed)
	if status == 0 then info[#info + 1] = "[bad ICRC]" end
	return done(table.concat(info, " "))
end

-- Registration: the preferred port, and Decode As for any other.
local udp_port_table = DissectorTable.get("udp.port")
local registered_port = nil

local function register_port()
	if registered_port then
		udp_port_table:remove(registered_port, metaroce)
	end
	registered_port = metaroce.prefs.udp_port
	if registered_port ~= 0 then
		udp_port_table:add(registered_port, metaroce)
	end
end

metaroce.prefs_changed = register_port
register_port()
udp_port_table:add_for_decode_as(metaroce)
