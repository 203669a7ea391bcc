#!/usr/bin/env python3
"""Damages a volume's metadata the way the end-to-end tests need
(docs/DURABILITY.md has the format), recomputing checksums where asked, so
a test can present tierlab with metadata whose checksum is right and whose
content is not.

  volume_meta.py journal DEV                  list the newest generation's journal blocks
  volume_meta.py flip-journal DEV SEQ [N]     flip N bytes (default 8) in the records of block SEQ
  volume_meta.py superblock DEV FIELD=VALUE.. [geometry]
                                              set superblock fields (geometry: offsets and
                                              sizes to match line_size and slots), fix the crc
  volume_meta.py checkpoint DEV COPY FIELD=VALUE..  the same for checkpoint copy A or B
  volume_meta.py truncate DEV BYTES           cut the file to BYTES
"""

import struct
import sys

SB_BYTES = 64 * 1024
BLOCK = 4096
SB_FIELDS = {  # name: (offset, struct format)
    "version": (8, "<I"), "line_size": (32, "<Q"), "slots": (40, "<Q"), "reserve": (48, "<Q"),
    "checkpoint_offset": (56, "<Q"), "checkpoint_bytes": (64, "<Q"), "journal_offset": (72, "<Q"),
    "journal_bytes": (80, "<Q"), "device_index": (88, "<I"), "device_count": (92, "<I"),
    "origin_bytes": (96, "<Q"), "sector_bytes": (116, "<I"),
}
CP_FIELDS = {"version": (12, "<I"), "generation": (32, "<Q"), "next_seq": (40, "<Q"),
             "slots": (48, "<Q"), "dirty_count": (56, "<Q"), "flags": (64, "<Q")}


def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


TABLE = _table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def crc_skipping(buf, off):
    return crc32c(bytes(buf[:off]) + bytes(4) + bytes(buf[off + 4:]))


def superblock(f):
    f.seek(0)
    return bytearray(f.read(SB_BYTES))


def sb_get(sb, name):
    off, fmt = SB_FIELDS[name]
    return struct.unpack_from(fmt, sb, off)[0]


def set_fields(buf, fields, assignments):
    for a in assignments:
        name, _, value = a.partition("=")
        if name not in fields:
            sys.exit("unknown field %s (%s)" % (name, ", ".join(fields)))
        off, fmt = fields[name]
        if value.startswith("2^"):
            base, _, minus = value[2:].partition("-")
            v = (1 << int(base)) - int(minus or 0)
        else:
            v = int(value, 0)
        struct.pack_into(fmt, buf, off, v)


def round_up(v, a):
    return (v + a - 1) // a * a


def set_geometry(sb):
    """The offsets and sizes tierlab derives from line_size and slots
    (MetadataGeometry::For), so that only those two are absurd."""
    line, slots = sb_get(sb, "line_size"), max(sb_get(sb, "slots"), 1)
    sector = min(max(line, 1), BLOCK)
    body = slots * 4 * (1 + line // sector)
    cp_bytes = BLOCK + round_up(body, BLOCK)
    journal = min(max(round_up(4 * body, BLOCK), 1 << 20), 64 << 20)
    j_off = SB_BYTES + 2 * cp_bytes
    for name, v in (("sector_bytes", sector), ("checkpoint_offset", SB_BYTES),
                    ("checkpoint_bytes", cp_bytes), ("journal_offset", j_off),
                    ("journal_bytes", journal), ("reserve", round_up(j_off + journal, 1 << 20))):
        off, fmt = SB_FIELDS[name]
        struct.pack_into(fmt, sb, off, v)


def journal_blocks(f, sb):
    joff, jbytes = sb_get(sb, "journal_offset"), sb_get(sb, "journal_bytes")
    f.seek(joff)
    ring = f.read(jbytes)
    out = []
    for pos in range(jbytes // BLOCK):
        b = ring[pos * BLOCK:(pos + 1) * BLOCK]
        if b[:8] != b"TLVOLJB1":
            continue
        count = struct.unpack_from("<I", b, 12)[0]
        seq, gen, first, nblocks = struct.unpack_from("<QQQQ", b, 32)
        ok = struct.unpack_from("<I", b, 8)[0] == crc_skipping(b, 8)
        out.append((seq, gen, count, pos, ok, first, nblocks, joff + pos * BLOCK))
    return out


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, dev = argv[1], argv[2]
    if cmd == "truncate":
        with open(dev, "r+b") as f:
            f.truncate(int(argv[3], 0))
        return
    with open(dev, "r+b") as f:
        sb = superblock(f)
        if cmd == "journal":
            blocks = journal_blocks(f, sb)
            newest = max((b[1] for b in blocks), default=0)
            older = sum(1 for b in blocks if b[1] != newest)
            if older:
                print("(%d blocks of older generations)" % older)
            for seq, gen, count, pos, ok, first, nblocks, _ in sorted(b for b in blocks if b[1] == newest):
                print("seq %d gen %d records %d position %d crc %s commit %d+%d"
                      % (seq, gen, count, pos, "ok" if ok else "BAD", first, nblocks))
        elif cmd == "flip-journal":
            seq, n = int(argv[3]), int(argv[4]) if len(argv) > 4 else 8
            gen = max(g for _, g, *_ in journal_blocks(f, sb))
            hits = [b for b in journal_blocks(f, sb) if b[0] == seq and b[1] == gen]
            if not hits:
                sys.exit("no journal block seq %d of generation %d" % (seq, gen))
            at = hits[0][7] + 64 + 16  # inside the second record
            f.seek(at)
            data = bytearray(f.read(n))
            for i in range(n):
                data[i] ^= 0xFF
            f.seek(at)
            f.write(data)
        elif cmd == "superblock":
            fields = [a for a in argv[3:] if a != "geometry"]
            set_fields(sb, SB_FIELDS, fields)
            if len(fields) != len(argv[3:]):
                set_geometry(sb)
            struct.pack_into("<I", sb, 12, crc_skipping(sb, 12))
            f.seek(0)
            f.write(sb)
        elif cmd == "checkpoint":
            copy = {"A": 0, "B": 1}[argv[3]]
            cp_off = sb_get(sb, "checkpoint_offset") + copy * sb_get(sb, "checkpoint_bytes")
            f.seek(cp_off)
            cp = bytearray(f.read(sb_get(sb, "checkpoint_bytes")))
            set_fields(cp, CP_FIELDS, argv[4:])
            struct.pack_into("<I", cp, 8, crc_skipping(cp, 8))
            f.seek(cp_off)
            f.write(cp)
        else:
            sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
