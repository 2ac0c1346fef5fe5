#!/usr/bin/env python3
"""Write a GPT partition table into an image file (sfdisk is not in the
guest image).  mkgpt.py IMAGE START:SIZE:TYPE-UUID ...  (sectors of 512 bytes)
"""
import os
import struct
import sys
import uuid
import zlib

SECTOR = 512
N_ENTRIES = 128
ENTRY_SIZE = 128


def header(my_lba, alt_lba, entries_lba, last_lba, disk_guid, entries_crc):
    def pack(crc):
        return struct.pack("<8sIIIIQQQQ16sQIII", b"EFI PART", 0x00010000, 92, crc, 0,
                           my_lba, alt_lba, 34, last_lba - 33, disk_guid, entries_lba,
                           N_ENTRIES, ENTRY_SIZE, entries_crc)
    h = pack(0)
    return pack(zlib.crc32(h)).ljust(SECTOR, b"\0")


def main():
    image, specs = sys.argv[1], sys.argv[2:]
    last_lba = os.path.getsize(image) // SECTOR - 1
    entries = b""
    for i, spec in enumerate(specs):
        start, size, typ = spec.split(":")
        start, size = int(start), int(size)
        name = f"part{i + 1}".encode("utf-16-le").ljust(72, b"\0")
        entries += struct.pack("<16s16sQQQ72s", uuid.UUID(typ).bytes_le, uuid.uuid4().bytes_le,
                               start, start + size - 1, 0, name)
    entries = entries.ljust(N_ENTRIES * ENTRY_SIZE, b"\0")
    crc = zlib.crc32(entries)
    disk_guid = uuid.uuid4().bytes_le
    # Protective MBR: one 0xEE partition covering the disk.
    mbr = bytearray(SECTOR)
    mbr[446:462] = struct.pack("<B3sB3sII", 0, b"\x00\x02\x00", 0xEE, b"\xff\xff\xff", 1,
                               min(last_lba, 0xFFFFFFFF))
    mbr[510:512] = b"\x55\xaa"
    with open(image, "r+b") as f:
        f.write(mbr)
        f.write(header(1, last_lba, 2, last_lba, disk_guid, crc))
        f.write(entries)
        f.seek((last_lba - 32) * SECTOR)
        f.write(entries)
        f.write(header(last_lba, 1, last_lba - 32, last_lba, disk_guid, crc))


if __name__ == "__main__":
    main()
