#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# check-screenshot.py PNG [R,G,B]: prints how many distinct colours the
# picture has (8-bit RGB or RGBA PNG, as Chromium writes its screenshots; a
# blank page has one or two), or with R,G,B how many of the pixels looked
# at (every fourth of a row) have that colour.
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        sys.exit(f"unexpected PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    colours = set()
    want = bytes(int(v) for v in sys.argv[2].split(",")) if len(sys.argv) > 2 else None
    n_want = 0
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                row[i] = (row[i] + a) & 0xff
            elif kind == 2:
                row[i] = (row[i] + b) & 0xff
            elif kind == 3:
                row[i] = (row[i] + (a + b) // 2) & 0xff
            elif kind == 4:
                row[i] = (row[i] + paeth(a, b, c)) & 0xff
        for x in range(0, stride, bpp * 4):
            colours.add(bytes(row[x:x + 3]))
            n_want += row[x:x + 3] == want
        previous = row
    print(n_want if want is not None else len(colours))


if __name__ == "__main__":
    main()
