//! ROS 2 messages in CDR (the OMG Common Data Representation of DDS, XCDR1 as ROS 2
//! writes it): a 4-byte encapsulation header (`00 01` little-endian, `00 00` big-endian,
//! two option bytes), then the fields in order, each primitive aligned to its own size
//! counted from the end of the header; a string is a u32 length (its NUL included) and its
//! bytes; a sequence a u32 count and its elements; a fixed array its elements alone.
//! Decoded by walking the definitions of [`super::msg`], so any message type a bag
//! describes can be read.
//!
//! ROS 1's serialization (`ros1` in [`decode_kept`]) is the same walk without the header or any
//! alignment, little-endian, its strings without a NUL.

use super::msg::{Count, Defs, Field, Prim, Type};

/// A decoded value: numbers (every numeric type, as f64), a numeric array, a string, a
/// list of messages, or a message (its fields in the order of its definition); a field
/// marked to be skipped ([`super::msg::Defs::keep_only`]) is `Skipped`.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Num(f64),
    Nums(Vec<f64>),
    Str(String),
    List(Vec<Value>),
    Msg(Vec<Value>),
    Skipped,
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
    little: bool,
    /// CDR aligns each primitive to its size; ROS 1 packs them.
    aligned: bool,
}

impl Cursor<'_> {
    fn align(&mut self, n: usize) {
        if !self.aligned {
            return;
        }
        let off = self.at - 4;
        self.at += (n - off % n) % n;
    }

    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len());
        let Some(end) = end else {
            return Err(format!(
                "truncated: {n} bytes wanted at byte {} of {}",
                self.at,
                self.b.len()
            ));
        };
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.align(4);
        let s = self.take(4)?;
        let a = [s[0], s[1], s[2], s[3]];
        Ok(if self.little {
            u32::from_le_bytes(a)
        } else {
            u32::from_be_bytes(a)
        })
    }

    fn prim(&mut self, p: Prim) -> Result<f64, String> {
        self.align(p.size());
        let little = self.little;
        let s = self.take(p.size())?;
        macro_rules! num {
            ($t:ty, $n:expr) => {{
                let mut a = [0u8; $n];
                a.copy_from_slice(s);
                (if little {
                    <$t>::from_le_bytes(a)
                } else {
                    <$t>::from_be_bytes(a)
                }) as f64
            }};
        }
        Ok(match p {
            Prim::Bool | Prim::U8 => s[0] as f64,
            Prim::I8 => s[0] as i8 as f64,
            Prim::I16 => num!(i16, 2),
            Prim::U16 => num!(u16, 2),
            Prim::I32 => num!(i32, 4),
            Prim::U32 => num!(u32, 4),
            Prim::I64 => num!(i64, 8),
            Prim::U64 => num!(u64, 8),
            Prim::F32 => num!(f32, 4),
            Prim::F64 => num!(f64, 8),
            Prim::Str => unreachable!("strings are read by string()"),
        })
    }

    /// `n` primitives in a row: aligned once, then read from one slice (an array's
    /// elements are packed, each of a size that keeps the next aligned).
    fn prims(&mut self, p: Prim, n: usize) -> Result<Vec<f64>, String> {
        if n == 0 {
            return Ok(Vec::new());
        }
        self.align(p.size());
        let little = self.little;
        // Checked: a definition may declare an array of 2^61 doubles, whose byte count
        // wraps to a small number.
        let size = n.checked_mul(p.size()).ok_or_else(|| {
            format!(
                "an array of {n} elements at byte {} is longer than the message",
                self.at
            )
        })?;
        let bytes = self.take(size)?;
        let mut out = Vec::with_capacity(n);
        macro_rules! all {
            ($t:ty, $k:expr) => {
                out.extend(bytes.chunks_exact($k).map(|b| {
                    let a: [u8; $k] = b.try_into().expect("a chunk of the size");
                    (if little {
                        <$t>::from_le_bytes(a)
                    } else {
                        <$t>::from_be_bytes(a)
                    }) as f64
                }))
            };
        }
        match p {
            Prim::Bool | Prim::U8 => out.extend(bytes.iter().map(|&b| b as f64)),
            Prim::I8 => out.extend(bytes.iter().map(|&b| b as i8 as f64)),
            Prim::I16 => all!(i16, 2),
            Prim::U16 => all!(u16, 2),
            Prim::I32 => all!(i32, 4),
            Prim::U32 => all!(u32, 4),
            Prim::I64 => all!(i64, 8),
            Prim::U64 => all!(u64, 8),
            Prim::F32 => all!(f32, 4),
            Prim::F64 => all!(f64, 8),
            Prim::Str => unreachable!("strings are read by string()"),
        }
        Ok(out)
    }

    fn string(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        let s = self.take(n)?;
        let s = s.strip_suffix(&[0]).unwrap_or(s);
        Ok(String::from_utf8_lossy(s).into_owned())
    }

    /// The count of a sequence, checked against the bytes left (each element takes at
    /// least one), so that a bad count cannot ask for gigabytes.
    fn count(&mut self) -> Result<usize, String> {
        let n = self.u32()? as usize;
        self.fits(n, "sequence")
    }

    /// `n` elements of an array or sequence that are not plain numbers (strings,
    /// messages), checked against the bytes left: each takes at least one byte as ROS 2
    /// writes it (an empty message holds a placeholder byte), so that a count cannot make
    /// work or memory without bytes to back it (10^11 elements of a message with no
    /// fields read no bytes at all).
    fn fits(&self, n: usize, what: &str) -> Result<usize, String> {
        if n > self.b.len().saturating_sub(self.at) {
            return Err(format!(
                "a {what} of {n} elements at byte {} is longer than the message",
                self.at
            ));
        }
        Ok(n)
    }
}

/// Decodes a CDR message of type `ty` (a full name, `pkg/Type`) whole, as a tree: the
/// tests' reference for [`decode_kept`], which the readers use.
#[cfg(test)]
pub fn decode(defs: &Defs, ty: &str, bytes: &[u8]) -> Result<Value, String> {
    if bytes.len() < 4 {
        return Err("shorter than the CDR header".into());
    }
    let little = match bytes[1] {
        1 | 3 => true,
        0 | 2 => false,
        k => return Err(format!("encapsulation kind {k} is not plain CDR")),
    };
    let mut c = Cursor {
        b: bytes,
        at: 4,
        little,
        aligned: true,
    };
    message(defs, defs.index(ty)?, &mut c, 0).map_err(|m| format!("{ty}: {m}"))
}

/// Decodes a ROS 1 message of type `ty` whole (the tests' reference for [`decode_kept`]) (its fields packed little-endian from the first
/// byte; definitions from [`Defs::builtin_ros1`] and the bag's connection header).
#[cfg(test)]
pub fn decode_ros1(defs: &Defs, ty: &str, bytes: &[u8]) -> Result<Value, String> {
    let mut c = Cursor {
        b: bytes,
        at: 0,
        little: true,
        aligned: false,
    };
    message(defs, defs.index(ty)?, &mut c, 0).map_err(|m| format!("{ty}: {m}"))
}

fn message(defs: &Defs, ty: usize, c: &mut Cursor, depth: usize) -> Result<Value, String> {
    if depth > 32 {
        return Err("nested more than 32 deep".into());
    }
    let fields = defs.at(ty);
    let mut out = Vec::with_capacity(fields.len());
    for f in fields {
        let v = if f.skip {
            skip_field(defs, f, c, depth).map(|_| Value::Skipped)
        } else {
            field(defs, f, c, depth)
        };
        out.push(v.map_err(|m| format!("{}: {m}", f.name))?);
    }
    Ok(Value::Msg(out))
}

/// Decodes the fields a [`Defs::keep_only`] kept, flat, into `out` (cleared first): in
/// definition order, depth first, each kept number, array, string or list of messages is
/// one value, and a kept message's own kept fields follow in its place. No tree is built:
/// [`kept_index`] says where a path's value lands. `ros1` picks ROS 1's encoding.
pub fn decode_kept(
    defs: &Defs,
    ty: &str,
    bytes: &[u8],
    ros1: bool,
    out: &mut Vec<Value>,
) -> Result<(), String> {
    out.clear();
    let mut c = if ros1 {
        Cursor {
            b: bytes,
            at: 0,
            little: true,
            aligned: false,
        }
    } else {
        if bytes.len() < 4 {
            return Err("shorter than the CDR header".into());
        }
        let little = match bytes[1] {
            1 | 3 => true,
            0 | 2 => false,
            k => return Err(format!("encapsulation kind {k} is not plain CDR")),
        };
        Cursor {
            b: bytes,
            at: 4,
            little,
            aligned: true,
        }
    };
    flat(defs, defs.index(ty)?, &mut c, 0, out).map_err(|m| format!("{ty}: {m}"))
}

fn flat(
    defs: &Defs,
    ty: usize,
    c: &mut Cursor,
    depth: usize,
    out: &mut Vec<Value>,
) -> Result<(), String> {
    if depth > 32 {
        return Err("nested more than 32 deep".into());
    }
    for f in defs.at(ty) {
        let r = if f.skip {
            skip_field(defs, f, c, depth)
        } else {
            match (&f.ty, f.count, f.target) {
                (Type::Msg(_), Count::One, Some(k)) => flat(defs, k, c, depth + 1, out),
                _ => field(defs, f, c, depth).map(|v| out.push(v)),
            }
        };
        r.map_err(|m| format!("{}: {m}", f.name))?;
    }
    Ok(())
}

/// Where [`decode_kept`] puts the value at field indices `path` from type `ty` (a path
/// that [`Defs::keep_only`] kept, ending at a number, array or string).
pub fn kept_index(defs: &Defs, ty: &str, path: &[usize]) -> Option<usize> {
    fn leaves(defs: &Defs, f: &Field, depth: usize) -> usize {
        match (&f.ty, f.count, f.target) {
            _ if f.skip || depth > 32 => 0,
            (Type::Msg(_), Count::One, Some(k)) => {
                defs.at(k).iter().map(|g| leaves(defs, g, depth + 1)).sum()
            }
            _ => 1,
        }
    }
    let mut k = defs.index(ty).ok()?;
    let mut n = 0;
    for (j, &i) in path.iter().enumerate() {
        let fields = defs.at(k);
        n += fields
            .get(..i)?
            .iter()
            .map(|f| leaves(defs, f, 0))
            .sum::<usize>();
        let f = fields.get(i)?;
        if f.skip {
            return None;
        }
        match (&f.ty, f.count, f.target) {
            (Type::Msg(_), Count::One, Some(t)) if j + 1 < path.len() => k = t,
            (Type::Msg(_), Count::One, _) => return None,
            _ if j + 1 == path.len() => return Some(n),
            _ => return None,
        }
    }
    None
}

/// Steps over a field as [`field`] would read it, checking the same lengths, building
/// nothing.
fn skip_field(defs: &Defs, f: &Field, c: &mut Cursor, depth: usize) -> Result<(), String> {
    let n = match f.count {
        Count::One => return skip_one(defs, f, c, depth),
        Count::Fixed(n) => n,
        Count::Seq => c.count()?,
    };
    match &f.ty {
        Type::Prim(p) if *p != Prim::Str => {
            if n > 0 {
                c.align(p.size());
                let size = n.checked_mul(p.size()).ok_or_else(|| {
                    format!(
                        "an array of {n} elements at byte {} is longer than the message",
                        c.at
                    )
                })?;
                c.take(size)?;
            }
            Ok(())
        }
        _ => (0..c.fits(n, "array")?).try_for_each(|_| skip_one(defs, f, c, depth)),
    }
}

fn skip_one(defs: &Defs, f: &Field, c: &mut Cursor, depth: usize) -> Result<(), String> {
    match &f.ty {
        Type::Prim(Prim::Str) => {
            let n = c.u32()? as usize;
            c.take(n).map(|_| ())
        }
        Type::Prim(p) => {
            c.align(p.size());
            c.take(p.size()).map(|_| ())
        }
        Type::Msg(name) => {
            let k = f
                .target
                .ok_or_else(|| format!("no definition of the message type {name}"))?;
            if depth > 32 {
                return Err("nested more than 32 deep".into());
            }
            defs.at(k)
                .iter()
                .try_for_each(|g| skip_field(defs, g, c, depth + 1))
        }
    }
}

fn field(defs: &Defs, f: &Field, c: &mut Cursor, depth: usize) -> Result<Value, String> {
    let n = match f.count {
        Count::One => return one(defs, f, c, depth),
        Count::Fixed(n) => n,
        Count::Seq => c.count()?,
    };
    match &f.ty {
        Type::Prim(p) if *p != Prim::Str => c.prims(*p, n).map(Value::Nums),
        _ => (0..c.fits(n, "array")?)
            .map(|_| one(defs, f, c, depth))
            .collect::<Result<_, _>>()
            .map(Value::List),
    }
}

fn one(defs: &Defs, f: &Field, c: &mut Cursor, depth: usize) -> Result<Value, String> {
    match &f.ty {
        Type::Prim(Prim::Str) => c.string().map(Value::Str),
        Type::Prim(p) => c.prim(*p).map(Value::Num),
        Type::Msg(name) => {
            let k = f
                .target
                .ok_or_else(|| format!("no definition of the message type {name}"))?;
            message(defs, k, c, depth + 1)
        }
    }
}

/// Lookups in a tree from [`decode`], for the tests.
#[cfg(test)]
impl Value {
    /// The value at a dotted path of field names (`pose.pose.position.x`) in a message
    /// of type `ty`.
    pub fn get<'v>(&'v self, defs: &Defs, ty: &str, path: &str) -> Option<&'v Value> {
        let mut v = self;
        let mut fields = defs.fields(ty).ok()?;
        for name in path.split('.') {
            let k = fields.iter().position(|f| f.name == name)?;
            let Value::Msg(vals) = v else { return None };
            v = vals.get(k)?;
            if let Some(t) = fields[k].target {
                fields = defs.at(t);
            }
        }
        Some(v)
    }

    /// The value at field indices (from [`Defs::resolve`]).
    pub fn at(&self, path: &[usize]) -> Option<&Value> {
        let mut v = self;
        for &k in path {
            let Value::Msg(vals) = v else { return None };
            v = vals.get(k)?;
        }
        Some(v)
    }

    /// The number at a path, where it is one.
    pub fn num(&self, defs: &Defs, ty: &str, path: &str) -> Option<f64> {
        match self.get(defs, ty, path)? {
            Value::Num(x) => Some(*x),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-assembled little-endian message: alignment after a byte and a string, a
    /// sequence of f32, a fixed array, a nested header.
    #[test]
    fn fields_are_aligned_from_the_end_of_the_header() {
        let mut defs = Defs::builtin();
        defs.add(
            "t/M",
            "std_msgs/Header header\nuint8 flag\nfloat64 x\nfloat32[] r\nint16[2] pair\nint32 K=3\n",
        )
        .unwrap();
        let mut b = vec![0, 1, 0, 0];
        b.extend(7i32.to_le_bytes()); // stamp.sec
        b.extend(5u32.to_le_bytes()); // stamp.nanosec
        b.extend(3u32.to_le_bytes()); // frame_id "ab\0"
        b.extend(b"ab\0");
        b.push(9); // flag at offset 15
        b.extend([0; 0]);
        while (b.len() - 4) % 8 != 0 {
            b.push(0);
        }
        b.extend(2.5f64.to_le_bytes());
        b.extend(2u32.to_le_bytes());
        b.extend(1.5f32.to_le_bytes());
        b.extend(f32::INFINITY.to_le_bytes());
        b.extend((-4i16).to_le_bytes());
        b.extend(6i16.to_le_bytes());
        let v = decode(&defs, "t/M", &b).unwrap();
        assert_eq!(v.num(&defs, "t/M", "header.stamp.sec"), Some(7.0));
        assert_eq!(v.num(&defs, "t/M", "flag"), Some(9.0));
        assert_eq!(v.num(&defs, "t/M", "x"), Some(2.5));
        assert_eq!(
            v.get(&defs, "t/M", "r"),
            Some(&Value::Nums(vec![1.5, f64::INFINITY]))
        );
        assert_eq!(
            v.get(&defs, "t/M", "pair"),
            Some(&Value::Nums(vec![-4.0, 6.0]))
        );
        assert_eq!(
            v.get(&defs, "t/M", "header.frame_id"),
            Some(&Value::Str("ab".into()))
        );
        // Cut anywhere: an error, never a panic.
        for n in 0..b.len() {
            assert!(decode(&defs, "t/M", &b[..n]).is_err(), "{n}");
        }
        // A sequence claiming 4 billion elements is refused before any allocation.
        let mut huge = b[..28].to_vec();
        huge.extend(u32::MAX.to_le_bytes());
        let e = decode(&defs, "t/M", &huge).unwrap_err();
        assert!(e.contains("longer than the message"), "{e}");
    }

    /// A hand-assembled ROS 1 message, from the ROS 1 serialization rules: no header, no
    /// padding after a byte or a string, `time` as u32 seconds and nanoseconds, a string
    /// as its length and bytes without a NUL, `byte` signed.
    #[test]
    fn ros1_fields_are_packed_and_time_is_two_words() {
        let mut defs = Defs::builtin_ros1();
        defs.add(
            "t/M",
            "Header header\nbyte b\nfloat64 x\nduration d\nfloat32[] r\nstring s\n",
        )
        .unwrap();
        let mut b = Vec::new();
        b.extend(41u32.to_le_bytes()); // header.seq
        b.extend(3_000_000_000u32.to_le_bytes()); // stamp.sec, past i32
        b.extend(5u32.to_le_bytes()); // stamp.nanosec
        b.extend(2u32.to_le_bytes()); // frame_id "ab"
        b.extend(b"ab");
        b.push(0xff); // b = -1, and x right after it, unaligned
        b.extend(2.5f64.to_le_bytes());
        b.extend((-2i32).to_le_bytes()); // d.sec
        b.extend((-7i32).to_le_bytes()); // d.nanosec
        b.extend(1u32.to_le_bytes());
        b.extend(1.5f32.to_le_bytes());
        b.extend(0u32.to_le_bytes()); // s ""
        let v = decode_ros1(&defs, "t/M", &b).unwrap();
        let n = |p: &str| v.num(&defs, "t/M", p);
        assert_eq!(n("header.seq"), Some(41.0));
        assert_eq!(n("header.stamp.sec"), Some(3e9));
        assert_eq!(n("header.stamp.nanosec"), Some(5.0));
        assert_eq!(n("b"), Some(-1.0));
        assert_eq!(n("x"), Some(2.5));
        assert_eq!(n("d.sec"), Some(-2.0));
        assert_eq!(n("d.nanosec"), Some(-7.0));
        assert_eq!(v.get(&defs, "t/M", "r"), Some(&Value::Nums(vec![1.5])));
        assert_eq!(
            v.get(&defs, "t/M", "header.frame_id"),
            Some(&Value::Str("ab".into()))
        );
        for k in 0..b.len() {
            assert!(decode_ros1(&defs, "t/M", &b[..k]).is_err(), "{k}");
        }
        // The same bytes read as CDR give other numbers: the two are told apart.
        assert_ne!(decode(&defs, "t/M", &b).ok(), Some(v));
    }

    /// Fields kept by `keep_only` decode as before and the others are stepped over
    /// (`Skipped`): the values on the kept paths are the full decode's, in CDR and in
    /// ROS 1, and a message cut anywhere is still an error.
    #[test]
    fn skipped_fields_leave_the_kept_ones_as_they_were() {
        let text = "std_msgs/Header header\nuint8 flag\nfloat64[3] cov\nt/In[] ins\nfloat64 x\n";
        for ros1 in [false, true] {
            let mut defs = if ros1 {
                Defs::builtin_ros1()
            } else {
                Defs::builtin()
            };
            defs.add("t/In", "string name\nfloat32[] r\n").unwrap();
            defs.add("t/M", text).unwrap();
            let mut b: Vec<u8> = if ros1 { vec![] } else { vec![0, 1, 0, 0] };
            let pad = |b: &mut Vec<u8>, n: usize| {
                while !ros1 && (b.len() - 4) % n != 0 {
                    b.push(0);
                }
            };
            if ros1 {
                b.extend(9u32.to_le_bytes()); // seq
            }
            b.extend(7u32.to_le_bytes());
            b.extend(5u32.to_le_bytes());
            b.extend(2u32.to_le_bytes());
            b.extend(b"ab");
            b.push(3); // flag
            pad(&mut b, 8);
            for c in [1.0f64, 2.0, 3.0] {
                b.extend(c.to_le_bytes());
            }
            pad(&mut b, 4);
            b.extend(1u32.to_le_bytes()); // one In
            b.extend(1u32.to_le_bytes());
            b.push(b'q'); // name "q"
            pad(&mut b, 4);
            b.extend(2u32.to_le_bytes());
            b.extend(0.5f32.to_le_bytes());
            b.extend(0.25f32.to_le_bytes());
            pad(&mut b, 8);
            b.extend(4.5f64.to_le_bytes());
            let dec = |d: &Defs, b: &[u8]| {
                if ros1 {
                    decode_ros1(d, "t/M", b)
                } else {
                    decode(d, "t/M", b)
                }
            };
            let full = dec(&defs, &b).unwrap();
            let x = defs.resolve("t/M", "x").unwrap();
            let sec = defs.resolve("t/M", "header.stamp.sec").unwrap();
            assert_eq!(defs.resolve("t/M", "header.nope"), None);
            let mut kept = defs.clone();
            kept.keep_only("t/M", &[&x, &sec]);
            let part = dec(&kept, &b).unwrap();
            assert_eq!(part.at(&x), Some(&Value::Num(4.5)), "ros1 {ros1}");
            assert_eq!(part.at(&x), full.at(&x));
            assert_eq!(part.at(&sec), Some(&Value::Num(7.0)));
            for skipped in ["flag", "cov", "ins", "header.frame_id"] {
                let p = defs.resolve("t/M", skipped).unwrap();
                assert_eq!(part.at(&p), Some(&Value::Skipped), "{skipped}");
                assert_ne!(full.at(&p), Some(&Value::Skipped), "{skipped}");
            }
            for k in 0..b.len() {
                assert!(dec(&kept, &b[..k]).is_err(), "ros1 {ros1} cut at {k}");
            }
            // Flat, the kept values land where kept_index says.
            let mut out = Vec::new();
            decode_kept(&kept, "t/M", &b, ros1, &mut out).unwrap();
            assert_eq!(out.len(), 2);
            assert_eq!(out[kept_index(&kept, "t/M", &x).unwrap()], Value::Num(4.5));
            assert_eq!(
                out[kept_index(&kept, "t/M", &sec).unwrap()],
                Value::Num(7.0)
            );
            let flag = defs.resolve("t/M", "flag").unwrap();
            assert_eq!(kept_index(&kept, "t/M", &flag), None);
            let mut all = defs.clone();
            let ins = defs.resolve("t/M", "ins").unwrap();
            let header = defs.resolve("t/M", "header").unwrap();
            all.keep_only("t/M", &[&x, &ins, &header, &flag]);
            decode_kept(&all, "t/M", &b, ros1, &mut out).unwrap();
            assert_eq!(
                out[kept_index(&all, "t/M", &flag).unwrap()],
                Value::Num(3.0)
            );
            assert_eq!(out[kept_index(&all, "t/M", &x).unwrap()], Value::Num(4.5));
            let frame = defs.resolve("t/M", "header.frame_id").unwrap();
            let frame = &out[kept_index(&all, "t/M", &frame).unwrap()];
            assert_eq!(frame, &Value::Str("ab".into()));
            assert!(
                matches!(&out[kept_index(&all, "t/M", &ins).unwrap()], Value::List(l) if l.len() == 1)
            );
            for k in 0..b.len() {
                assert!(decode_kept(&all, "t/M", &b[..k], ros1, &mut out).is_err());
            }
        }
    }

    /// Hostile definitions (issue 63): a fixed array of 2^61 + 1 doubles, whose byte
    /// count wraps, and 10^11 elements of a message type with no fields, which read no
    /// bytes, are refused with the field named, before any allocation.
    #[test]
    fn absurd_fixed_arrays_are_refused_not_allocated() {
        let mut defs = Defs::builtin();
        defs.add("t/Wrap", "float64[2305843009213693953] covariance\n")
            .unwrap();
        defs.add("t/Empty", "").unwrap();
        defs.add("t/Many", "t/Empty[100000000000] e\n").unwrap();
        let b = [0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
        for (ty, field) in [("t/Wrap", "covariance"), ("t/Many", "e")] {
            let e = decode(&defs, ty, &b).unwrap_err();
            assert!(
                e.contains(field) && e.contains("longer than the message"),
                "{ty}: {e}"
            );
        }
        // A fixed array of messages that fits is read as before.
        defs.add("t/P", "uint8 v\n").unwrap();
        defs.add("t/Few", "t/P[3] p\n").unwrap();
        let v = decode(&defs, "t/Few", &[0, 1, 0, 0, 7, 8, 9]).unwrap();
        let Some(Value::List(items)) = v.get(&defs, "t/Few", "p") else {
            panic!("{v:?}")
        };
        assert_eq!(items.len(), 3);
    }
}
