"""Writes the GeoTIFF test maps with rasterio (GDAL's GeoTIFF writer and PROJ's
projection): python3 tests/data/geotiff/make.py

classes.tif: 80 x 60 cells of 0.5 m (40 m x 30 m) in UTM zone 15N (EPSG:32615), its
  upper-left corner at (500000, 4983000), uint8 with LZW: field (7) but for a gravel lane
  (3) from northing 4982980 to 4982984 and a barn (obstacle, 9) from easting 500030 to
  500034, northing 4982986 to 4982990.
elevation.tif: 16 x 12 cells of 2.5 m over the same ground, float32 with deflate, 250 m
  rising 0.1 m a metre to the east, nodata (-9999) in its north-west cell.
point.tif: classes.tif written as PixelIsPoint (AREA_OR_POINT=Point): GDAL moves its tie
  point to the upper-left pixel's centre; the place is the same.
lonlat.tif: a class raster in EPSG:4326 (degrees), which acres refuses.
map.json: a manifest naming classes.tif and elevation.tif with their legend.
classes_nodata.tif: classes.tif with nodata (255) over its western 10 m.
bands4.tif: four bands of uint16, refused as not one band.
route_lonlat.geojson: a route along the lane's centre line (northing 4982982) from easting
  500002 to 500038, as WGS84 longitude and latitude from PROJ; route_utm.txt the UTM
  points it came from, one "easting northing" a line.
"""
import json
from pathlib import Path

import numpy as np
import rasterio
from rasterio.transform import from_origin
from rasterio.warp import transform as warp

here = Path(__file__).parent
crs = "EPSG:32615"
x0, y0, res = 500000.0, 4983000.0, 0.5
w, h = 80, 60
cls = np.full((h, w), 7, np.uint8)
for j in range(h):
    for i in range(w):
        x, y = x0 + (i + 0.5) * res, y0 - (j + 0.5) * res
        if 4982980 <= y <= 4982984:
            cls[j, i] = 3
        if 500030 <= x <= 500034 and 4982986 <= y <= 4982990:
            cls[j, i] = 9
profile = dict(driver="GTiff", width=w, height=h, count=1, dtype="uint8", crs=crs,
               transform=from_origin(x0, y0, res, res), compress="lzw")
with rasterio.open(here / "classes.tif", "w", **profile) as ds:
    ds.write(cls, 1)
with rasterio.open(here / "point.tif", "w", **profile) as ds:
    ds.update_tags(AREA_OR_POINT="Point")
    ds.write(cls, 1)

ew, eh, eres = 16, 12, 2.5
elev = np.zeros((eh, ew), np.float32)
for j in range(eh):
    for i in range(ew):
        elev[j, i] = 250.0 + 0.1 * (i + 0.5) * eres
elev[0, 0] = -9999.0
with rasterio.open(here / "elevation.tif", "w", driver="GTiff", width=ew, height=eh, count=1,
                   dtype="float32", crs=crs, transform=from_origin(x0, y0, eres, eres),
                   nodata=-9999.0, compress="deflate") as ds:
    ds.write(elev, 1)

with rasterio.open(here / "lonlat.tif", "w", driver="GTiff", width=4, height=4, count=1,
                   dtype="uint8", crs="EPSG:4326",
                   transform=from_origin(-93.0, 45.0, 1e-5, 1e-5)) as ds:
    ds.write(np.full((4, 4), 3, np.uint8), 1)

legend = {"3": "gravel", "7": "field", "9": "obstacle"}
(here / "map.json").write_text(json.dumps(
    {"name": "utm-lane", "image": "classes.tif", "legend": legend,
     "elevation": {"image": "elevation.tif"}}, indent=1) + "\n")

xs = [500002.0 + 2.0 * k for k in range(19)]
ys = [4982982.0] * len(xs)
lons, lats = warp(crs, "EPSG:4326", xs, ys)
(here / "route_utm.txt").write_text("".join(f"{x!r} {y!r}\n" for x, y in zip(xs, ys)))
route = {"type": "Feature",
         "properties": {"name": "lane, lon/lat", "speed_mps": 3.0, "class": "gravel"},
         "geometry": {"type": "LineString",
                      "coordinates": [[lo, la] for lo, la in zip(lons, lats)]}}
(here / "route_lonlat.geojson").write_text(json.dumps(route, indent=1) + "\n")

# classes_nodata.tif: classes.tif with a declared nodata value (255) over its western
# 10 m, as rasterio writes a class raster with holes; acres reads nodata as unknown.
nodata_cls = cls.copy()
nodata_cls[:, :20] = 255
with rasterio.open(here / "classes_nodata.tif", "w", nodata=255, **profile) as ds:
    ds.write(nodata_cls, 1)

# bands4.tif: four bands of uint16 (an RGBA export), which acres refuses as not one band.
with rasterio.open(here / "bands4.tif", "w", driver="GTiff", width=8, height=8, count=4,
                   dtype="uint16", crs=crs, transform=from_origin(x0, y0, res, res)) as ds:
    ds.write(np.ones((4, 8, 8), np.uint16))

# CRSs that are no plain EPSG code (issue 64), each classes.tif's pixels at its place:
# utm_user.tif: UTM zone 15N written as user-defined GeoKeys (ProjectedCSType 32767 with
#   ProjectionGeoKey 16015, a datum on the WGS 84 ellipsoid with towgs84 0,0,0), what GDAL
#   writes for a proj string it does not match to an EPSG code; acres maps it to 32615.
# lcc_user.tif: a user-defined Lambert Conformal Conic on WGS 84 (no EPSG code), which
#   acres cannot convert: the map reads in its own metres, lon/lat routes are refused.
# nad27.tif: EPSG:26715 (NAD27 / UTM zone 15N), whose datum acres cannot shift.
# utm_esri.tif, lcc_esri.tif: the UTM zone and a Lambert conic named "Farm_Lambert", each
#   given to rasterio as ESRI WKT and written with GDAL's ESRI_PE key flavour (the ESRI
#   PE string in the citation): GDAL writes the UTM zone as EPSG:32615, the conic as
#   user-defined keys, which acres names by the PE string's name.
for name, c in [
    ("utm_user.tif", "+proj=tmerc +lat_0=0 +lon_0=-93 +k=0.9996 +x_0=500000 +y_0=0 "
                     "+ellps=WGS84 +towgs84=0,0,0 +units=m"),
    ("lcc_user.tif", "+proj=lcc +lat_1=33 +lat_2=45 +lat_0=39 +lon_0=-96 +x_0=0 +y_0=0 "
                     "+datum=WGS84 +units=m"),
    ("nad27.tif", "EPSG:26715"),
]:
    from rasterio.crs import CRS
    p = dict(profile, crs=CRS.from_string(c))
    with rasterio.open(here / name, "w", **p) as ds:
        ds.write(cls, 1)

esri_geog = ('GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,'
             '298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]')
for name, wkt in [
    ("utm_esri.tif", 'PROJCS["WGS_1984_UTM_Zone_15N",' + esri_geog + ',PROJECTION['
     '"Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing"'
     ',0.0],PARAMETER["Central_Meridian",-93.0],PARAMETER["Scale_Factor",0.9996],PARAMETER['
     '"Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]'),
    ("lcc_esri.tif", 'PROJCS["Farm_Lambert",' + esri_geog + ',PROJECTION['
     '"Lambert_Conformal_Conic"],PARAMETER["False_Easting",0.0],PARAMETER["False_Northing",'
     '0.0],PARAMETER["Central_Meridian",-96.0],PARAMETER["Standard_Parallel_1",33.0],'
     'PARAMETER["Standard_Parallel_2",45.0],PARAMETER["Latitude_Of_Origin",39.0],'
     'UNIT["Meter",1.0]]'),
]:
    from rasterio.crs import CRS
    p = dict(profile, crs=CRS.from_wkt(wkt))
    with rasterio.open(here / name, "w", GEOTIFF_KEYS_FLAVOR="ESRI_PE", **p) as ds:
        ds.write(cls, 1)
