#!/usr/bin/env python3
"""Writes the test images the documents use. Deterministic; run from anywhere.

- pattern.png   160x100 RGB test pattern (plain Python: zlib + struct, no PIL)
- pattern.jpg   the same pattern as a baseline JPEG (needs Pillow; skipped without it)
- landscape.png 480x300 flat-shaded landscape for the showcase (plain Python)

The pattern makes each image fill mode obvious: four differently coloured corner
squares (red top-left, green top-right, blue bottom-left, yellow bottom-right) show
cropping (mode fill) and letterboxing (mode fit); the centre circle turns into an
ellipse when the image is stretched; the grid lines are every 20 px; the arrow on
the left half points right, so a mirrored image is obvious too.
"""
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def write_png(path, width, height, pixel):
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            rows.extend(pixel(x, y))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(rows), 9))
    png += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def lerp(a, b, t):
    return tuple(round(a[i] + (b[i] - a[i]) * t) for i in range(3))


PW, PH = 160, 100


def pattern(x, y):
    # corner squares
    s = 24
    if x < s and y < s:
        return (230, 40, 40)
    if x >= PW - s and y < s:
        return (40, 180, 70)
    if x < s and y >= PH - s:
        return (40, 80, 230)
    if x >= PW - s and y >= PH - s:
        return (250, 200, 30)
    # centre circle (radius 30) with a white ring
    d = math.hypot(x + 0.5 - PW / 2, y + 0.5 - PH / 2)
    if d <= 27:
        return (255, 255, 255) if d <= 6 else (120, 40, 200)
    if d <= 30:
        return (255, 255, 255)
    # arrow pointing right, in the left half
    ax, ay = x - 30, y - 50
    if (0 <= ax < 14 and abs(ay) <= 3) or (14 <= ax < 24 and abs(ay) <= 24 - ax - 0.5 and abs(ay) <= 10):
        return (20, 20, 20)
    # grid
    if x % 20 == 0 or y % 20 == 0:
        return (255, 255, 255)
    # diagonal rainbow-ish background: teal -> pink
    t = (x / PW + y / PH) / 2
    return lerp((60, 200, 200), (250, 120, 170), t)


LW, LH = 480, 300


def landscape(x, y):
    sky_top, sky_bottom = (88, 60, 190), (255, 170, 120)
    sun = (255, 236, 180)
    # sun
    if math.hypot(x - 330, y - 150) < 46:
        return sun
    base = lerp(sky_top, sky_bottom, min(1.0, y / 200))
    # three mountain ranges, far to near
    ranges = [
        (lambda x: 170 + 40 * math.sin(x / 70.0) + 18 * math.sin(x / 23.0 + 1.0), (150, 90, 170)),
        (lambda x: 205 + 30 * math.sin(x / 55.0 + 2.0) + 10 * math.sin(x / 17.0), (100, 60, 140)),
        (lambda x: 245 + 22 * math.sin(x / 90.0 + 4.0) + 6 * math.sin(x / 11.0), (48, 30, 84)),
    ]
    color = base
    for ridge, shade in ranges:
        if y >= ridge(x):
            color = shade
    return color


def supersampled(pixel, n=3):
    """Averages n x n samples per pixel, so edges are antialiased."""

    def sample(x, y):
        acc = [0, 0, 0]
        for j in range(n):
            for i in range(n):
                c = pixel(x + (i + 0.5) / n, y + (j + 0.5) / n)
                for k in range(3):
                    acc[k] += c[k]
        return tuple(round(v / (n * n)) for v in acc)

    return sample


def main():
    write_png(os.path.join(HERE, "pattern.png"), PW, PH, pattern)
    write_png(os.path.join(HERE, "landscape.png"), LW, LH, supersampled(landscape))
    try:
        from PIL import Image
    except ImportError:
        print("Pillow is not installed: pattern.jpg not written")
        return
    img = Image.new("RGB", (PW, PH))
    img.putdata([pattern(x, y) for y in range(PH) for x in range(PW)])
    img.save(os.path.join(HERE, "pattern.jpg"), "JPEG", quality=90)


if __name__ == "__main__":
    main()
