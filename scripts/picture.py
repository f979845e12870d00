#!/usr/bin/env python3
"""Turn the picture a guest wrote into a PNG.

The Mesa guest's "picture" step (tests/guest/mesa/init.sh) writes a
binary PPM (P6, 8 bits per channel) over the disk whose first bytes are
"AGX-PICTURE-OUT"; this reads that disk image and writes the PNG, with
the Python standard library only.

usage: picture.py DISK.img OUT.png     (exit 1: no picture on the disk)
       picture.py --self-test
"""
import struct
import sys
import zlib


def parse_ppm(data):
    """(width, height, RGB rows as bytes) of a P6 image, or None."""
    fields = []
    pos = 0
    if not data.startswith(b'P6'):
        return None
    pos = 2
    while len(fields) < 3:
        while pos < len(data) and data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while pos < len(data) and data[pos:pos + 1].isdigit():
            pos += 1
        if start == pos:
            return None
        fields.append(int(data[start:pos]))
    width, height, maxval = fields
    pos += 1                    # the one whitespace byte after maxval
    size = width * height * 3
    if maxval != 255 or width <= 0 or height <= 0 or \
       len(data) < pos + size:
        return None
    return width, height, data[pos:pos + size]


def png(width, height, rgb):
    """A PNG file (8-bit RGB, no filtering) of the rows in @rgb."""
    def chunk(kind, body):
        crc = zlib.crc32(kind + body) & 0xffffffff
        return struct.pack('>I', len(body)) + kind + body + \
            struct.pack('>I', crc)
    stride = width * 3
    raw = b''.join(b'\0' + rgb[y * stride:(y + 1) * stride]
                   for y in range(height))
    return (b'\x89PNG\r\n\x1a\n' +
            chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0,
                                       0, 0)) +
            chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


# Where the one IDAT chunk's data sits: after the signature (8 bytes), IHDR
# (25) and IDAT's length and type (8); before its CRC (4) and IEND (12)
IDAT_DATA = 8 + 25 + 8
IDAT_CRC_IEND = 4 + 12


def self_test():
    ppm = b'P6\n2 1\n255\n' + bytes([255, 0, 0, 0, 0, 255]) + b'junk'
    w, h, rgb = parse_ppm(ppm)
    out = png(w, h, rgb)
    ok = (w, h, rgb) == (2, 1, bytes([255, 0, 0, 0, 0, 255])) and \
        out.startswith(b'\x89PNG') and \
        zlib.decompress(out[IDAT_DATA:-IDAT_CRC_IEND]) == b'\0' + rgb and \
        parse_ppm(b'AGX-PICTURE-OUT') is None and \
        parse_ppm(b'P6\n2 1\n255\n\0') is None
    print('ok: picture.py' if ok else 'not ok: picture.py')
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 3:
        print(__doc__.split('usage: ')[1], end='')
        return 2
    with open(sys.argv[1], 'rb') as f:
        image = parse_ppm(f.read(1 << 24))
    if image is None:
        return 1
    with open(sys.argv[2], 'wb') as f:
        f.write(png(*image))
    print('%s: %dx%d' % (sys.argv[2], image[0], image[1]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
