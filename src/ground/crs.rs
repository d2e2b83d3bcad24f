//! A map's coordinate reference system: a projected CRS in metres, named by its EPSG code
//! (docs/formats.md "Coordinate reference systems"). It comes from a GeoTIFF's GeoKeys or a
//! manifest's `crs` key, travels into the corridor file and out into its exports, and lets a
//! route in WGS84 longitude and latitude (RFC 7946 GeoJSON) be projected onto the map.
//! The projection itself is proj4rs's, with the EPSG definitions of crs-definitions.

use proj4rs::Proj;
use std::fmt;

/// A projected coordinate reference system in metres, by EPSG code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Crs {
    epsg: u16,
}

/// WGS84 longitude and latitude (EPSG:4326 with GeoJSON's longitude-first order).
const WGS84: &str = "+proj=longlat +datum=WGS84 +no_defs";

/// Why an EPSG code is refused, with what to do: the projections acres knows are those of
/// proj4rs's table; a datum that needs a grid shift from WGS 84 (NAD27 above all) is not
/// among them and would put the map metres off.
fn unknown_crs(code: u32) -> String {
    let nad27 = (26701..=26799).contains(&code) || (32001..=32099).contains(&code);
    let why = if nad27 {
        "a NAD27 CRS, whose datum needs a grid shift to WGS 84 (tens of metres) that acres \
         does not make"
    } else {
        "not a projected CRS acres can convert"
    };
    format!(
        "EPSG:{code} is {why}; reproject the map to a WGS 84 CRS in metres, such as its UTM \
         zone: `gdalwarp -t_srs EPSG:326NN IN.tif OUT.tif` (327NN south of the equator)"
    )
}

/// What a map says of its CRS, as a route is placed on it: nothing, a CRS acres converts,
/// or one it cannot use, with the reason (a route on the Earth is then refused with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapCrs<'a> {
    None,
    Known(Crs),
    Unusable(&'a str),
}

impl From<Option<Crs>> for MapCrs<'_> {
    fn from(c: Option<Crs>) -> Self {
        c.map_or(MapCrs::None, MapCrs::Known)
    }
}

impl Crs {
    /// The CRS of an EPSG code, where it is known and projected in metres: a geographic CRS
    /// (degrees) or one in feet is refused, as acres maps are metric.
    pub fn from_epsg(code: u32) -> Result<Crs, String> {
        let unknown = || unknown_crs(code);
        let epsg = u16::try_from(code).map_err(|_| unknown())?;
        let proj = Proj::from_epsg_code(epsg).map_err(|_| unknown())?;
        if proj.is_latlong() || proj.is_geocent() {
            return Err(format!(
                "EPSG:{code} is a geographic CRS (degrees); an acres map needs a projected CRS in \
                 metres (reproject it, e.g. to its UTM zone)"
            ));
        }
        if (proj.to_meter() - 1.0).abs() > 1e-12 {
            return Err(format!(
                "EPSG:{code} is in {} m units, not metres; reproject the map to a metric CRS",
                proj.to_meter()
            ));
        }
        Ok(Crs { epsg })
    }

    /// Parses `EPSG:32615`, `epsg:32615`, `urn:ogc:def:crs:EPSG::32615` or `32615`.
    pub fn parse(text: &str) -> Result<Crs, String> {
        let t = text.trim();
        let lower = t.to_ascii_lowercase();
        let code = lower
            .strip_prefix("epsg:")
            .or_else(|| lower.strip_prefix("urn:ogc:def:crs:epsg::"))
            .or_else(|| lower.strip_prefix("urn:ogc:def:crs:epsg:"))
            .unwrap_or(&lower);
        let code: u32 = code
            .parse()
            .map_err(|_| format!("`{t}` is not an EPSG code (say EPSG:32615)"))?;
        Crs::from_epsg(code)
    }

    /// The EPSG code.
    pub fn epsg(self) -> u16 {
        self.epsg
    }

    fn proj(self) -> Proj {
        Proj::from_epsg_code(self.epsg).expect("checked when the Crs was made")
    }

    /// Projects WGS84 longitude and latitude (degrees) to this CRS's easting and northing;
    /// a point outside the projection's domain, or not finite, is an error.
    pub fn from_lon_lat(self, points: &[(f64, f64)]) -> Result<Vec<(f64, f64)>, String> {
        let src = Proj::from_proj_string(WGS84).expect("a valid proj string");
        self.between(&src, &self.proj(), points, true)
    }

    /// Moves points from another projected CRS onto this one.
    pub fn from_crs(self, other: Crs, points: &[(f64, f64)]) -> Result<Vec<(f64, f64)>, String> {
        if other == self {
            return Ok(points.to_vec());
        }
        self.between(&other.proj(), &self.proj(), points, false)
    }

    fn between(
        self,
        src: &Proj,
        dst: &Proj,
        points: &[(f64, f64)],
        degrees: bool,
    ) -> Result<Vec<(f64, f64)>, String> {
        points
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| {
                let bad = || format!("point {i} ({a}, {b}) cannot be placed in {self}");
                if degrees && !(a.abs() <= 180.0 && b.abs() <= 90.0) {
                    return Err(format!(
                        "point {i} ({a}, {b}) is not a longitude and latitude in degrees"
                    ));
                }
                let mut p = if degrees {
                    (a.to_radians(), b.to_radians(), 0.0)
                } else {
                    (a, b, 0.0)
                };
                proj4rs::transform::transform(src, dst, &mut p).map_err(|_| bad())?;
                if p.0.is_finite() && p.1.is_finite() {
                    Ok((p.0, p.1))
                } else {
                    Err(bad())
                }
            })
            .collect()
    }
}

impl fmt::Display for Crs {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "EPSG:{}", self.epsg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known UTM points (zone 15N, EPSG:32615): the zone's central meridian, 93° W, on the
    /// equator is easting 500 000 m, northing 0; at 45° N it is northing 4 982 950.4 m (the
    /// UTM scale 0.9996 times the meridian arc of 4 984 944.4 m).
    #[test]
    fn lon_lat_projects_to_utm_as_the_textbooks_say() {
        let utm = Crs::parse("EPSG:32615").unwrap();
        let p = utm.from_lon_lat(&[(-93.0, 0.0), (-93.0, 45.0)]).unwrap();
        assert!(
            (p[0].0 - 500_000.0).abs() < 1e-6 && p[0].1.abs() < 1e-6,
            "{p:?}"
        );
        assert!((p[1].0 - 500_000.0).abs() < 1e-6, "{p:?}");
        assert!((p[1].1 - 4_982_950.4).abs() < 0.5, "{p:?}");
        // One degree of longitude east at 45° N is about 78.8 km on the ground.
        let q = utm.from_lon_lat(&[(-92.0, 45.0)]).unwrap();
        assert!(((q[0].0 - 500_000.0) - 78_800.0).abs() < 300.0, "{q:?}");
    }

    #[test]
    fn codes_parse_in_every_usual_spelling_and_bad_ones_are_refused() {
        for s in [
            "EPSG:32615",
            "epsg:32615",
            "urn:ogc:def:crs:EPSG::32615",
            "32615",
        ] {
            assert_eq!(Crs::parse(s).unwrap().epsg(), 32615, "{s}");
        }
        let geo = Crs::parse("EPSG:4326").unwrap_err();
        assert!(geo.contains("geographic"), "{geo}");
        for code in ["EPSG:1", "EPSG:99999999"] {
            let e = Crs::parse(code).unwrap_err();
            assert!(
                e.contains("not a projected CRS acres can convert")
                    && e.contains("gdalwarp -t_srs"),
                "{e}"
            );
        }
        // NAD27 / UTM zone 11N (issue 64: "EPSG:26711 is not known", no advice).
        let nad27 = Crs::parse("EPSG:26711").unwrap_err();
        assert!(
            nad27.contains("NAD27") && nad27.contains("gdalwarp -t_srs EPSG:326NN"),
            "{nad27}"
        );
        assert!(
            Crs::parse("UTM 15")
                .unwrap_err()
                .contains("not an EPSG code")
        );
        // US survey feet (NAD83 / Texas Central ftUS) is not metric.
        let feet = Crs::parse("EPSG:2277").unwrap_err();
        assert!(feet.contains("not metres"), "{feet}");
    }

    #[test]
    fn points_outside_degrees_or_not_finite_are_refused() {
        let utm = Crs::parse("EPSG:32615").unwrap();
        let e = utm
            .from_lon_lat(&[(-93.0, 45.0), (300.0, 0.0)])
            .unwrap_err();
        assert!(
            e.contains("point 1") && e.contains("not a longitude"),
            "{e}"
        );
        assert!(utm.from_lon_lat(&[(f64::NAN, 0.0)]).is_err());
        // Between two projected CRSs: UTM 15N to 16N moves a point by a zone's width.
        let z16 = Crs::parse("EPSG:32616").unwrap();
        let a = utm.from_lon_lat(&[(-90.0, 45.0)]).unwrap()[0];
        let b = z16.from_crs(utm, &[a]).unwrap()[0];
        let direct = z16.from_lon_lat(&[(-90.0, 45.0)]).unwrap()[0];
        assert!((b.0 - direct.0).abs() < 1e-3 && (b.1 - direct.1).abs() < 1e-3);
    }
}
