"""Opens acres's GeoTIFF export with rasterio (GDAL) and checks its place against the
corridor file's header: python3 tests/peers/geotiff_rasterio.py CORRIDOR.acor OUT.tif

Needs rasterio (pip install rasterio) and an acres binary on the PATH or in
target/release. Not part of CI (GDAL is not a build dependency); see docs/formats.md.
"""
import json
import shutil
import subprocess
import sys

import rasterio

acor, tif = sys.argv[1], sys.argv[2]
acres = shutil.which("acres") or "target/release/acres"
subprocess.run([acres, "corridor", "export", acor, "--geotiff", tif, "-q"], check=True)
info = json.loads(subprocess.run([acres, "corridor", "info", acor, "--format", "json"],
                                 check=True, capture_output=True, text=True).stdout)
with rasterio.open(tif) as ds:
    res, (x0, y0) = info["resolution_m"], info["origin_m"]
    assert (ds.width, ds.height) == (info["width"], info["height"]), (ds.width, ds.height)
    assert ds.dtypes[0] == "float32" and ds.nodata == -9999.0
    want_crs = info["crs"]
    epsg = ds.crs.to_epsg() if ds.crs else None  # a map without a CRS: GDAL's LOCAL_CS
    got_crs = f"EPSG:{epsg}" if epsg else None
    assert got_crs == want_crs, (got_crs, want_crs)
    b = ds.bounds
    assert abs(b.left - x0) < 1e-9 and abs(b.bottom - y0) < 1e-9, b
    assert abs(b.right - (x0 + ds.width * res)) < 1e-6, b
    assert abs(ds.res[0] - res) < 1e-12 and abs(ds.res[1] - res) < 1e-12, ds.res
    band = ds.read(1)
    inside = (band != ds.nodata).sum()
    assert inside == info["corridor_cells"], (inside, info["corridor_cells"])
    print(f"rasterio {rasterio.__version__} (GDAL {rasterio.__gdal_version__}): "
          f"{ds.width} x {ds.height} at {b} in {got_crs}, {inside} corridor cells: "
          "as the corridor file says")
