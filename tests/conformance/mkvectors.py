#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Golden packets of the MetaRoCE conformance suite (vectors.txt).

An encoder written from the header diagrams and the opcode table of
Documentation/metaroce/spec.rst ("Headers (HDR)", "ICRC"), independent of
the reference codec (kernel/proto/wire.c): a vector is the spec's bytes for
the fields it lists.  `mr-conform --selftest` then decodes every vector
with the reference codec and re-encodes it, so the two encoders must agree
byte for byte.

  mkvectors.py           write tests/conformance/vectors.txt
  mkvectors.py --check   exit 1 if vectors.txt is not what this writes, or
                         if this encoder does not reproduce the spec's
                         example packet and CRC32C check value (MR-ICRC-1,
                         MR-ICRC-7)

vectors.txt, one vector per block (the format mr-conform reads):

  vector NAME                  a name
  ids MR-HDR-2, ...            the requirements the vector illustrates
  field NAME VALUE             a decoded field (names as mr-conform's
                               table); fields not listed decode as 0
  trimmed 1                    the ICRC is not valid (MR-ICRC-5)
  bytes HEX...                 the UDP payload, MBH to ICRC (several lines)
  end
"""
import os
import struct
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors.txt")

# MR-HDR-3 flag masks
ACKREQ, SE, FIRST, LAST, RETX, ECE, TRIM = 1, 2, 4, 8, 0x10, 0x20, 0x40

# MR-HDR-2: opcode -> headers after the MBH
OPCODES = {
    "SEND": (0x01, ["DXH"]),
    "SEND_IMM": (0x02, ["DXH", "IMM"]),
    "SEND_INV": (0x03, ["DXH", "IETH"]),
    "WRITE": (0x04, ["DXH", "RXH"]),
    "WRITE_IMM": (0x05, ["DXH", "RXH", "IMM"]),
    "READ_REQ": (0x06, ["DXH", "RXH"]),
    "ATOMIC_CS": (0x07, ["DXH", "AXH"]),
    "ATOMIC_FA": (0x08, ["DXH", "AXH"]),
    "UD_SEND": (0x09, ["DETH"]),
    "UD_SEND_IMM": (0x0A, ["DETH", "IMM"]),
    "ACK": (0x20, ["AKH"]),
    "NACK": (0x21, ["AKH", "NKH"]),
    "READ_RESP": (0x22, ["DXH"]),
    "ATOMIC_RESP": (0x23, ["DXH", "ATKH"]),
    "PROBE": (0x30, []),
    "PROBE_REPLY": (0x31, []),
    "HELLO": (0x32, ["HLH"]),
}


def crc32c(data):
    """MR-ICRC-1: reflected 0x82F63B78, init and final XOR 0xFFFFFFFF."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def be24(word_high_byte, v):
    """A 32-bit word whose low 24 bits are @v (MR-HDR-1)."""
    assert 0 <= v < 1 << 24 and 0 <= word_high_byte < 256
    return struct.pack(">I", word_high_byte << 24 | v)


def header(name, f):
    g = lambda k: f.get(k, 0)
    if name == "DXH":
        return struct.pack(">IIII", g("dxh.msn"), g("dxh.offset"),
                           g("dxh.msg_len"), g("dxh.ssn"))
    if name == "RXH":
        return struct.pack(">QII", g("rxh.va"), g("rxh.rkey"), 0)
    if name == "IMM":
        return struct.pack(">I", g("imm"))
    if name == "IETH":
        return struct.pack(">I", g("ieth.rkey"))
    if name == "AXH":
        return struct.pack(">QIQQ", g("axh.va"), g("axh.rkey"),
                           g("axh.swap_add"), g("axh.compare"))
    if name == "ATKH":
        return struct.pack(">Q", g("atkh.orig"))
    if name == "DETH":
        return struct.pack(">I", g("deth.qkey")) + be24(0, g("deth.src_qpn"))
    if name == "AKH":
        return (be24(0, g("akh.cum_psn")) +
                struct.pack(">IIHHI", g("akh.msn"), g("akh.ts_echo"),
                            g("akh.ce_count"), g("akh.pkt_count"),
                            g("akh.credit")) +
                b"".join(struct.pack(">Q", g("akh.sack%d" % i))
                         for i in range(4)))
    if name == "NKH":
        return (struct.pack(">BBH", g("nkh.reason"), g("nkh.rnr_timer"), 0) +
                be24(0, g("nkh.nack_psn")))
    if name == "HLH":
        return struct.pack(">BBHIII", g("hlh.rev_major"), g("hlh.rev_minor"),
                           g("hlh.hflags"), g("hlh.caps"),
                           g("hlh.max_read_range"), 0)
    raise ValueError(name)


def encode(op, f, payload=b"", trimmed_tail=None):
    code, hdrs = OPCODES[op]
    g = lambda k: f.get(k, 0)
    b = struct.pack(">BBH", 1 << 4, code, g("flags"))     # MR-HDR-5
    b += be24(g("path"), g("dqpn"))                          # MR-HDR-6, -7
    b += be24(0, g("psn")) + be24(0, g("sqpn"))              # MR-HDR-8
    b += struct.pack(">I", g("ts"))                          # MR-HDR-9
    for h in hdrs:
        b += header(h, f)
    if trimmed_tail is not None:         # MR-ICRC-5: any 4 bytes
        return b + trimmed_tail
    b += payload
    return b + struct.pack("<I", crc32c(b))                  # MR-ICRC-3


def sack_words(bits):
    """MR-HDR-18: bitmap bit i is bit i % 64 of word i // 64."""
    w = [0, 0, 0, 0]
    for i in bits:
        w[i // 64] |= 1 << (i % 64)
    return {"akh.sack%d" % i: w[i] for i in range(4) if w[i]}


def vectors():
    v = []

    def add(name, ids, op, f, payload=b"", trimmed_tail=None):
        f = dict(f)
        f["opcode"] = OPCODES[op][0]
        if payload:
            f["payload"] = payload
        v.append((name, ids, f, encode(op, f, payload, trimmed_tail),
                  trimmed_tail is not None))

    mbh = {"path": 3, "dqpn": 0x000123, "sqpn": 0x000456, "ts": 0x00012345}
    add("send_example", "MR-HDR-1, MR-HDR-5..9, MR-HDR-10, MR-ICRC-1..3, "
        "MR-ICRC-7", "SEND",
        dict(mbh, psn=0xABCDEF, flags=FIRST | LAST | ACKREQ,
             **{"dxh.msn": 7, "dxh.msg_len": 8, "dxh.ssn": 2}), b"MetaRoCE")
    add("send_imm_first", "MR-HDR-2, MR-HDR-10, MR-HDR-12", "SEND_IMM",
        dict(mbh, psn=0xFFFFFF, flags=FIRST | SE,
             **{"dxh.msn": 0x80000000, "dxh.msg_len": 2048, "dxh.ssn": 9,
                "imm": 0xDEADBEEF}), bytes(range(16)))
    add("send_inv_only", "MR-HDR-2, MR-HDR-13", "SEND_INV",
        dict(mbh, psn=5, flags=FIRST | LAST,
             **{"dxh.msn": 1, "dxh.msg_len": 4, "dxh.ssn": 1,
                "ieth.rkey": 0x00001A2B}), b"\x01\x02\x03\x04")
    add("write_middle_retx", "MR-HDR-2, MR-HDR-10, MR-HDR-11, MR-PLACE-9",
        "WRITE",
        dict(mbh, path=63, psn=0x000010, flags=RETX,
             **{"dxh.msn": 3, "dxh.offset": 1024, "dxh.msg_len": 4096,
                "rxh.va": 0x00007F0012345000, "rxh.rkey": 0x00BEEF01}),
        bytes((i * 7) & 0xFF for i in range(24)))
    add("write_imm_last", "MR-HDR-2, MR-HDR-11, MR-HDR-12", "WRITE_IMM",
        dict(mbh, psn=0x000011, flags=LAST | ACKREQ,
             **{"dxh.msn": 3, "dxh.offset": 2048, "dxh.msg_len": 2056,
                "dxh.ssn": 4, "rxh.va": 0x1000, "rxh.rkey": 0x0000A001,
                "imm": 0x01020304}), b"lastpart")
    add("read_req", "MR-HDR-2, MR-HDR-10, MR-HDR-11", "READ_REQ",
        dict(mbh, psn=0x123456, flags=FIRST | LAST,
             **{"dxh.msn": 10, "dxh.msg_len": 65536,
                "rxh.va": 0xFFFF800000000000, "rxh.rkey": 0x12345678}))
    add("atomic_cs", "MR-HDR-2, MR-HDR-14, MR-HDR-25, MR-HDR-26",
        "ATOMIC_CS",
        dict(mbh, psn=0x000100, flags=FIRST | LAST,
             **{"dxh.msn": 11, "dxh.msg_len": 8, "axh.va": 0x0000000000002008,
                "axh.rkey": 0x00000301, "axh.swap_add": 0x1122334455667788,
                "axh.compare": 0x8877665544332211}))
    add("atomic_fa", "MR-HDR-2, MR-HDR-14, MR-HDR-25", "ATOMIC_FA",
        dict(mbh, psn=0x000101, flags=FIRST | LAST | ACKREQ,
             **{"dxh.msn": 12, "dxh.msg_len": 8, "axh.va": 0x10,
                "axh.rkey": 0x00000301, "axh.swap_add": 1}))
    add("ud_send_imm", "MR-HDR-2, MR-HDR-12, MR-HDR-16, MR-UD-4", "UD_SEND_IMM",
        dict(mbh, path=0, psn=42, dqpn=1, flags=FIRST | LAST | SE,
             **{"deth.qkey": 0x80010000, "deth.src_qpn": 0x000456,
                "imm": 0xCAFEF00D}), b"datagram")
    add("ack_sack", "MR-HDR-17, MR-HDR-18, MR-REL-11, MR-REL-12", "ACK",
        dict(mbh, path=9, flags=ECE,
             **dict({"akh.cum_psn": 0xFFFFF0, "akh.msn": 77,
                     "akh.ts_echo": 0x89ABCDEF, "akh.ce_count": 2,
                     "akh.pkt_count": 5, "akh.credit": 0xFFFFFFFF},
                    **sack_words([1, 64, 255]))))
    add("nack_rnr", "MR-HDR-19, MR-REL-5, MR-RETRY-7", "NACK",
        dict(mbh, **{"akh.cum_psn": 0x000200, "akh.msn": 4,
                     "akh.ts_echo": 7, "akh.pkt_count": 1,
                     "akh.credit": 0xFFFFFFFF, "nkh.reason": 3,
                     "nkh.rnr_timer": 14, "nkh.nack_psn": 0x000200}))
    add("nack_seq_err_sack", "MR-HDR-18, MR-HDR-19, MR-REL-5", "NACK",
        dict(mbh, **dict({"akh.cum_psn": 0x000300, "akh.msn": 5,
                          "akh.ts_echo": 8, "akh.pkt_count": 1,
                          "akh.credit": 0xFFFFFFFF, "nkh.reason": 2,
                          "nkh.nack_psn": 0x000300},
                         **sack_words([2, 3]))))
    add("read_resp_first", "MR-HDR-2, MR-HDR-8, MR-HDR-10, MR-MP-15",
        "READ_RESP",
        dict(mbh, path=17, psn=0x123456, flags=FIRST,
             **{"dxh.msn": 10, "dxh.msg_len": 65536}), bytes(32))
    add("atomic_resp", "MR-HDR-2, MR-HDR-15, MR-HDR-25", "ATOMIC_RESP",
        dict(mbh, psn=0x000100, flags=FIRST | LAST,
             **{"dxh.msn": 11, "dxh.msg_len": 8,
                "atkh.orig": 0x8877665544332211}))
    add("probe", "MR-HDR-2, MR-HDR-8, MR-MP-9", "PROBE",
        dict(mbh, path=12, psn=0x00C0DE))
    add("probe_reply", "MR-HDR-2, MR-HDR-8, MR-MP-10", "PROBE_REPLY",
        dict(mbh, path=12, psn=0x00C0DE, dqpn=0x000456, sqpn=0x000123))
    add("hello_seen", "MR-HDR-27, MR-VER-9, MR-VER-11", "HELLO",
        dict(mbh, path=0, **{"hlh.rev_major": 1, "hlh.rev_minor": 1,
                             "hlh.hflags": 1, "hlh.caps": 7,
                             "hlh.max_read_range": 65536}))
    add("write_trimmed", "MR-HDR-3, MR-ICRC-5, MR-TRIM-1", "WRITE",
        dict(mbh, psn=0x000012, flags=FIRST | TRIM,
             **{"dxh.msn": 4, "dxh.msg_len": 4096, "rxh.va": 0x2000,
                "rxh.rkey": 0x0000A001}),
        trimmed_tail=b"\xde\xad\xbe\xef")
    return v


def render():
    out = ["# Golden MetaRoCE packets (UDP payload: MBH to ICRC), written by",
           "# tests/conformance/mkvectors.py from the spec's header diagrams;",
           "# do not edit.  Read by mr-conform --selftest and --vectors.", ""]
    for name, ids, f, b, trimmed in vectors():
        out.append("vector " + name)
        out.append("ids " + ids)
        for k in sorted(f, key=lambda k: (k != "opcode", k)):
            val = f[k]
            if k == "payload":
                out.append("field payload " + val.hex())
            else:
                out.append("field %s 0x%x" % (k, val))
        if trimmed:
            out.append("trimmed 1")
        for i in range(0, len(b), 16):
            out.append("bytes " + " ".join("%02x" % x for x in b[i:i + 16]))
        out.append("end")
        out.append("")
    return "\n".join(out)


def selfcheck():
    ok = crc32c(b"123456789") == 0xE3069283
    example = bytes.fromhex(
        "1001000d03000123 00abcdef00000456"
        "0001234500000007 0000000000000008"
        "000000024d657461 526f4345efd7ced5".replace(" ", ""))
    ok = ok and vectors()[0][3] == example
    if not ok:
        print("mkvectors: the encoder does not reproduce MR-ICRC-1's check "
              "value or the spec's example packet (MR-ICRC-7)")
    return ok


def main():
    if not selfcheck():
        return 1
    text = render()
    if "--check" in sys.argv[1:]:
        try:
            cur = open(OUT).read()
        except OSError:
            cur = ""
        if cur != text:
            print("mkvectors: %s is stale: run tests/conformance/mkvectors.py"
                  % OUT)
            return 1
        return 0
    with open(OUT, "w") as fh:
        fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
