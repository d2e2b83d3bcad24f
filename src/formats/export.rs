//! A corridor in the formats other tools read (docs/formats.md "Corridor exports"):
//! `d_c` as a float32 GeoTIFF with its georeference (excluded cells as nodata), and a nav2
//! keepout filter mask (map_server YAML and PGM).

use crate::ground::Corridor;
use tiff::encoder::{TiffEncoder, colortype};
use tiff::tags::Tag;

/// The nodata value of the GeoTIFF: excluded cells (`d_c ≤ 0`).
pub const NODATA: f32 = -9999.0;

/// An error of writing an export.
#[derive(Debug, thiserror::Error)]
#[error("writing the {what}: {message}")]
pub struct ExportError {
    what: &'static str,
    message: String,
}

/// The corridor's `d_c` as a float32 GeoTIFF: one band, row 0 the north edge, the
/// georeference as a pixel scale and a tie point at the upper-left corner (GeoTIFF 1.1,
/// raster type PixelIsArea), the map's projected CRS where it has one
/// (ProjectedCSTypeGeoKey), cells with `d_c ≤ 0` as nodata (GDAL's `GDAL_NODATA` tag).
/// GDAL, QGIS and rasterio open it at the corridor's place.
pub fn corridor_geotiff(c: &Corridor) -> Result<Vec<u8>, ExportError> {
    let e = |m: tiff::TiffError| ExportError {
        what: "GeoTIFF",
        message: m.to_string(),
    };
    let g = &c.grid;
    let data: Vec<f32> = g
        .cells
        .iter()
        .map(|&d| if d > 0.0 { d } else { NODATA })
        .collect();
    let mut out = std::io::Cursor::new(Vec::new());
    let mut tiff = TiffEncoder::new(&mut out).map_err(e)?;
    let mut img = tiff
        .new_image::<colortype::Gray32Float>(g.width as u32, g.height as u32)
        .map_err(e)?;
    let top = g.origin_m[1] + g.height as f64 * g.resolution_m;
    let enc = img.encoder();
    enc.write_tag(
        Tag::ModelPixelScaleTag,
        &[g.resolution_m, g.resolution_m, 0.0][..],
    )
    .map_err(e)?;
    enc.write_tag(
        Tag::ModelTiepointTag,
        &[0.0, 0.0, 0.0, g.origin_m[0], top, 0.0][..],
    )
    .map_err(e)?;
    enc.write_tag(Tag::GeoKeyDirectoryTag, &geo_keys(c)[..])
        .map_err(e)?;
    enc.write_tag(Tag::GdalNodata, &*format!("{NODATA}"))
        .map_err(e)?;
    img.write_data(&data).map_err(e)?;
    Ok(out.into_inner())
}

/// The GeoKey directory (version 1.1.0): GTRasterTypeGeoKey (1025) = PixelIsArea and,
/// where the corridor has a CRS, GTModelTypeGeoKey (1024) = projected and
/// ProjectedCSTypeGeoKey (3072) = its EPSG code, the keys sorted as the format asks.
fn geo_keys(c: &Corridor) -> Vec<u16> {
    let mut keys = Vec::new();
    if c.crs.is_some() {
        keys.push([1024, 0, 1, 1]);
    }
    keys.push([1025, 0, 1, 1]);
    if let Some(crs) = c.crs {
        keys.push([3072, 0, 1, crs.epsg()]);
    }
    let mut dir = vec![1, 1, 0, keys.len() as u16];
    dir.extend(keys.into_iter().flatten());
    dir
}

/// A nav2 keepout filter mask of the corridor: a map_server YAML (trinary, the
/// corridor's origin and resolution, and `acres_crs` where it has a CRS) naming `pgm_name`,
/// and the PGM: 254 (free) inside the corridor (`d_c > 0`), 0 (occupied: keep out)
/// elsewhere.
pub fn nav2_mask(c: &Corridor, pgm_name: &str) -> Result<(String, Vec<u8>), ExportError> {
    let g = &c.grid;
    let pixels: Vec<u8> = g
        .cells
        .iter()
        .map(|&d| if d > 0.0 { 254 } else { 0 })
        .collect();
    let img =
        image::GrayImage::from_raw(g.width as u32, g.height as u32, pixels).ok_or(ExportError {
            what: "nav2 mask",
            message: "the raster's size does not match its cells".into(),
        })?;
    let mut pgm = Vec::new();
    image::codecs::pnm::PnmEncoder::new(&mut pgm)
        .with_subtype(image::codecs::pnm::PnmSubtype::Graymap(
            image::codecs::pnm::SampleEncoding::Binary,
        ))
        .encode(
            img.as_raw().as_slice(),
            img.width(),
            img.height(),
            image::ExtendedColorType::L8,
        )
        .map_err(|m| ExportError {
            what: "nav2 mask",
            message: m.to_string(),
        })?;
    let mut yaml = format!(
        "image: {pgm_name}\nmode: trinary\nresolution: {}\norigin: [{}, {}, 0.0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n",
        g.resolution_m, g.origin_m[0], g.origin_m[1]
    );
    if let Some(crs) = c.crs {
        yaml.push_str(&format!("acres_crs: {crs}\n"));
    }
    Ok((yaml, pgm))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corridor() -> Corridor {
        // 6 × 4 cells of 0.5 m from (100, 200): the west column excluded.
        Corridor::from_fn(6, 4, 0.5, [100.0, 200.0], |x, _| x < 100.5)
    }

    /// The GeoTIFF decodes (the tiff crate) to the corridor's cells with nodata where
    /// excluded, and carries the scale, the tie point at the upper-left corner and the
    /// nodata tag.
    #[test]
    fn the_geotiff_holds_the_cells_and_their_place() {
        let c = corridor();
        let bytes = corridor_geotiff(&c).unwrap();
        let mut dec = tiff::decoder::Decoder::new(std::io::Cursor::new(bytes)).unwrap();
        assert_eq!(dec.dimensions().unwrap(), (6, 4));
        let scale = dec.get_tag_f64_vec(Tag::ModelPixelScaleTag).unwrap();
        assert_eq!(scale, vec![0.5, 0.5, 0.0]);
        let tie = dec.get_tag_f64_vec(Tag::ModelTiepointTag).unwrap();
        assert_eq!(tie, vec![0.0, 0.0, 0.0, 100.0, 202.0, 0.0]);
        assert_eq!(dec.get_tag_ascii_string(Tag::GdalNodata).unwrap(), "-9999");
        let tiff::decoder::DecodingResult::F32(cells) = dec.read_image().unwrap() else {
            panic!("float cells")
        };
        for (k, (&a, &b)) in cells.iter().zip(&c.grid.cells).enumerate() {
            let want = if b > 0.0 { b } else { NODATA };
            assert_eq!(a, want, "cell {k}");
        }
        assert_eq!(cells[0], NODATA);
    }

    /// With a CRS, the GeoTIFF names it, and reads back as a map band in the same place
    /// and CRS; the nav2 mask's YAML carries it too.
    #[test]
    fn the_crs_goes_out_with_the_exports() {
        let mut c = corridor();
        c.crs = Some(crate::ground::Crs::parse("EPSG:32633").unwrap());
        let band = crate::formats::geotiff::read_band(
            std::path::Path::new("c.tif"),
            corridor_geotiff(&c).unwrap().into(),
        )
        .unwrap();
        assert_eq!(band.crs, c.crs);
        assert_eq!(band.origin_m, c.grid.origin_m);
        assert_eq!(band.nodata, Some(NODATA as f64));
        let (yaml, pgm) = nav2_mask(&c, "mask.pgm").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("mask.yaml"), &yaml).unwrap();
        std::fs::write(dir.path().join("mask.pgm"), &pgm).unwrap();
        let m = crate::ground::Map::load(&dir.path().join("mask.yaml")).unwrap();
        assert_eq!(m.crs, c.crs);
    }

    /// The corridor image's world file places the raster part on its cells: the 6 × 4
    /// cells of 0.5 m are drawn as squares of a whole number of pixels, the pixel where
    /// the raster part starts has its upper-left corner at the raster's (100, 202), and
    /// the pixel past its last cell at (103, 200); rows run south.
    #[test]
    fn the_world_file_places_the_image() {
        let c = corridor();
        let w = crate::plot::corridor_world_file(&c);
        let v: Vec<f64> = w.lines().map(|l| l.parse().unwrap()).collect();
        let px = v[0];
        assert_eq!(v[1..4], [0.0, 0.0, -px]);
        let zoom = (0.5 / px).round() as usize;
        assert!(zoom >= 1 && (0.5 / px - zoom as f64).abs() < 1e-9, "{px}");
        let (col, row) = crate::plot::CORRIDOR_RASTER_AT;
        let corner = |p: usize, q: usize| {
            (
                v[4] - px / 2.0 + p as f64 * px,
                v[5] + px / 2.0 - q as f64 * px,
            )
        };
        let near =
            |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9;
        assert!(
            near(corner(col, row), (100.0, 202.0)),
            "{:?}",
            corner(col, row)
        );
        let end = corner(col + 6 * zoom, row + 4 * zoom);
        assert!(near(end, (103.0, 200.0)), "{end:?}");
    }

    #[test]
    fn the_nav2_mask_reads_back_as_the_corridor() {
        let c = corridor();
        let (yaml, pgm) = nav2_mask(&c, "mask.pgm").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("mask.yaml"), &yaml).unwrap();
        std::fs::write(dir.path().join("mask.pgm"), &pgm).unwrap();
        let m = crate::ground::Map::load(&dir.path().join("mask.yaml")).unwrap();
        let g = &m.classes;
        assert_eq!((g.width, g.height, g.origin_m), (6, 4, [100.0, 200.0]));
        use crate::ground::MapClass;
        assert_eq!(g.at(100.25, 201.0), Some(MapClass::Obstacle));
        assert_eq!(g.at(101.25, 201.0), Some(MapClass::GrassLane));
    }
}
