"""Writes the map_server test map with Pillow (a peer's PGM writer):
python3 tests/data/ros_map/make_map.py

lane.pgm: 200 x 120 pixels at 0.2 m (40 m x 24 m), origin (-5, -3): free (254) but for an
occupied box (0) from x 13 to 15 m and y 7 to 11 m in the world, and unknown (205) over
the top 2 m. lane.yaml reads it as map_server does; lane_turned.yaml turns it by 0.5 rad;
lane_ros2.yaml has the thresholds ROS 2's map_saver writes (free_thresh 0.25), under which
map_server reads the grey 205 as free.
"""
from pathlib import Path
from PIL import Image

here = Path(__file__).parent
w, h, res, ox, oy = 200, 120, 0.2, -5.0, -3.0
img = Image.new("L", (w, h), 254)
px = img.load()
for j in range(h):
    for i in range(w):
        x = ox + (i + 0.5) * res
        y = oy + (h - 1 - j + 0.5) * res
        if 13.0 <= x <= 15.0 and 7.0 <= y <= 11.0:
            px[i, j] = 0
        elif y > oy + h * res - 2.0:
            px[i, j] = 205
img.save(here / "lane.pgm")
common = "image: lane.pgm\nresolution: 0.2\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\nmode: trinary\n"
(here / "lane.yaml").write_text(common + "origin: [-5.0, -3.0, 0.0]\nacres_free_class: gravel\n")
(here / "lane_turned.yaml").write_text(common + "origin: [-5.0, -3.0, 0.5]\n")
ros2 = common.replace("free_thresh: 0.196", "free_thresh: 0.25")
(here / "lane_ros2.yaml").write_text(ros2 + "origin: [-5.0, -3.0, 0.0]\nacres_free_class: gravel\n")
