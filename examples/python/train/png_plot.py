"""Two line charts side by side (loss, test accuracy per epoch) written as a PNG with
numpy and zlib alone, so the example needs no plotting package: a white canvas, grey
axes and grid, each curve drawn as 2-pixel segments with a square marker per point.
Axes carry no text labels; the printed lines and --curve hold the numbers."""

import struct
import zlib

import numpy as np

WIDTH, HEIGHT, MARGIN = 800, 320, 30
WHITE, GREY, LIGHT = (255, 255, 255), (90, 90, 90), (225, 225, 225)
BLUE, GREEN = (31, 119, 180), (44, 160, 44)


def _segment(img, x0, y0, x1, y1, color):
    steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
    for t in np.linspace(0.0, 1.0, steps):
        x, y = int(round(x0 + t * (x1 - x0))), int(round(y0 + t * (y1 - y0)))
        img[y:y + 2, x:x + 2] = color


def _panel(img, left, right, values, color):
    """One chart in columns [left, right): its frame, horizontal grid and the curve of
    `values` scaled to the panel's height (a flat curve sits in the middle)."""
    top, bottom = MARGIN, HEIGHT - MARGIN
    for k in range(1, 4):
        img[top + k * (bottom - top) // 4, left:right] = LIGHT
    img[top:bottom, left] = GREY
    img[bottom, left:right] = GREY
    lo, hi = min(values), max(values)
    span = hi - lo if hi > lo else 1.0
    n = len(values)
    points = []
    for i, v in enumerate(values):
        x = left + 10 + (right - left - 20) * (i / (n - 1) if n > 1 else 0.5)
        y = bottom - 10 - (bottom - top - 20) * ((v - lo) / span if hi > lo else 0.5)
        points.append((x, y))
        img[int(y) - 3:int(y) + 4, int(x) - 3:int(x) + 4] = color
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        _segment(img, x0, y0, x1, y1, color)


def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def write_png(path, img):
    """`img`: uint8 [height, width, 3] RGB."""
    height, width, _ = img.shape
    rows = b"".join(b"\x00" + img[y].tobytes() for y in range(height))  # filter 0 per row
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) +
                _chunk(b"IDAT", zlib.compress(rows, 9)) + _chunk(b"IEND", b""))


def plot_curves(path, losses, accuracies):
    """Loss (left, blue) and test accuracy (right, green) per epoch into `path`."""
    img = np.full((HEIGHT, WIDTH, 3), WHITE, dtype=np.uint8)
    half = WIDTH // 2
    _panel(img, MARGIN, half - MARGIN // 2, losses, BLUE)
    _panel(img, half + MARGIN // 2, WIDTH - MARGIN, accuracies, GREEN)
    write_png(path, img)
