"""The test mask the distance-transform benchmarks share: a deterministic n x n pattern of
lanes every 256 cells (24 wide, both ways), 300 discs of corridor and excluded specks;
1 = corridor, 0 = excluded (uint8)."""
import numpy as np


def mask(n):
    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:n, 0:n]
    m = np.zeros((n, n), dtype=np.uint8)
    m[(yy % 256) < 24] = 1
    m[:, (np.arange(n) % 256) < 24] = 1
    for cx, cy, r in rng.integers(0, n, size=(300, 3)):
        r = 20 + r % 100
        y0, y1, x0, x1 = max(cy - r, 0), min(cy + r, n), max(cx - r, 0), min(cx + r, n)
        sub = (yy[y0:y1, x0:x1] - cy) ** 2 + (xx[y0:y1, x0:x1] - cx) ** 2 <= r * r
        m[y0:y1, x0:x1][sub] = 1
    m[rng.random((n, n)) < 0.001] = 0
    return m
