#!/usr/bin/env python3
"""Counts the pixels of given colours in a PNG (8-bit RGB or RGBA, not
interlaced: what headless Chromium writes), with the standard library only.

Usage: png_colours.py FILE.png RRGGBB...   prints `WIDTHxHEIGHT` then, per
colour, `RRGGBB COUNT`, and the share of pixels that are not white.
"""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit(f"{path}: depth {depth}, colour type {colour}, interlace {interlace}: unsupported")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    path, wanted = sys.argv[1], [w.lower() for w in sys.argv[2:]]
    width, height, bpp, rows = pixels(path)
    counts = {w: 0 for w in wanted}
    targets = {bytes.fromhex(w): w for w in wanted}
    not_white = 0
    for row in rows:
        for x in range(0, len(row), bpp):
            rgb = row[x:x + 3]
            if rgb != b"\xff\xff\xff":
                not_white += 1
            name = targets.get(rgb)
            if name:
                counts[name] += 1
    print(f"{width}x{height}")
    for w in wanted:
        print(w, counts[w])
    print("not-white", f"{not_white / (width * height):.3f}")


if __name__ == "__main__":
    main()
