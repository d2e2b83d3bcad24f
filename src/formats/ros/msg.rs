//! ROS 2 message definitions (the `.msg` language), as MCAP bags carry them in each
//! channel's schema (encoding `ros2msg`: the message's own text, then each type it uses
//! after a line of `=` and `MSG: pkg/Type`). Parsed into field lists that
//! [`super::cdr`] walks to decode a message without ROS installed.
//!
//! What is read: the primitive types, `string` and `wstring` (also bounded, `string<=N`),
//! nested types (`pkg/Type`, `pkg/msg/Type`, or `Type` of the same package), arrays
//! `T[]`, `T[N]` and `T[<=N]`; constants (`TYPE NAME=VALUE`), default values and comments
//! are skipped. `builtin_interfaces/Time`, `builtin_interfaces/Duration` and
//! `std_msgs/Header` are known without a definition.
//!
//! ROS 1 definitions (a ROS 1 bag's connection headers) are the same language with two
//! more primitives, `time` (u32 seconds, u32 nanoseconds) and `duration` (i32, i32), read
//! here as messages with the fields `sec` and `nanosec` so that a stamp has one path in
//! both; `byte` is int8 in ROS 1 (uint8 in ROS 2), and ROS 1's `Header` has `seq`.

use rustc_hash::FxHashMap;

/// A primitive type of the `.msg` language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prim {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    Str,
}

impl Prim {
    fn of(name: &str) -> Option<Prim> {
        Some(match name {
            "bool" => Prim::Bool,
            "int8" => Prim::I8,
            "uint8" | "byte" | "char" => Prim::U8,
            "int16" => Prim::I16,
            "uint16" => Prim::U16,
            "int32" => Prim::I32,
            "uint32" => Prim::U32,
            "int64" => Prim::I64,
            "uint64" => Prim::U64,
            "float32" => Prim::F32,
            "float64" => Prim::F64,
            "string" | "wstring" => Prim::Str,
            n if n.starts_with("string<=") || n.starts_with("wstring<=") => Prim::Str,
            _ => return None,
        })
    }

    /// The size and alignment in CDR, bytes (a string's is its length's, 4).
    pub fn size(self) -> usize {
        match self {
            Prim::Bool | Prim::I8 | Prim::U8 => 1,
            Prim::I16 | Prim::U16 => 2,
            Prim::I32 | Prim::U32 | Prim::F32 | Prim::Str => 4,
            Prim::I64 | Prim::U64 | Prim::F64 => 8,
        }
    }
}

/// A field's type: a primitive or a nested message (its full name `pkg/Type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    Prim(Prim),
    Msg(String),
}

/// How many values a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    One,
    /// `T[N]`: exactly N, no length on the wire.
    Fixed(usize),
    /// `T[]` or `T[<=N]`: a u32 length first.
    Seq,
}

/// One field of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub ty: Type,
    pub count: Count,
    /// The index of a nested type's definition in its [`Defs`], where it has one (set as
    /// definitions are added, so that decoding looks no name up).
    pub target: Option<usize>,
    /// Whether decoding steps over this field without building its value (set by
    /// [`Defs::keep_only`]: the covariances and frame names the replay never reads).
    pub skip: bool,
}

/// Message definitions, by index and by full name (`pkg/Type`).
#[derive(Debug, Clone, Default)]
pub struct Defs {
    list: Vec<Vec<Field>>,
    /// Looked up for every message and field path: a fast hash (FxHash) over the few
    /// type names of a bag.
    names: FxHashMap<String, usize>,
    /// ROS 1 definitions (`byte` is int8).
    ros1: bool,
}

/// `pkg/msg/Type` → `pkg/Type`.
pub fn normalize(name: &str) -> String {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        [pkg, "msg", t] => format!("{pkg}/{t}"),
        _ => name.to_string(),
    }
}

impl Defs {
    /// The definitions of an MCAP `ros2msg` schema for the message `name`: its own text and
    /// the `MSG:` sections after it. An error names the line.
    pub fn from_schema(name: &str, text: &str) -> Result<Defs, String> {
        Defs::from_schema_over(Defs::builtin(), name, text)
    }

    /// [`Defs::from_schema`] over given definitions (a ROS 1 bag's, from
    /// [`Defs::builtin_ros1`]): the schema's own replace those of the same name.
    pub fn from_schema_over(base: Defs, name: &str, text: &str) -> Result<Defs, String> {
        let mut defs = base;
        let mut current = normalize(name);
        let mut body = String::new();
        for line in text.lines() {
            if line.starts_with("====") {
                defs.add(&current, &body)?;
                body.clear();
                continue;
            }
            if let Some(t) = line.strip_prefix("MSG:") {
                current = normalize(t.trim());
                continue;
            }
            body.push_str(line);
            body.push('\n');
        }
        defs.add(&current, &body)?;
        Ok(defs)
    }

    /// The three types every bag relies on.
    pub fn builtin() -> Defs {
        let mut d = Defs::default();
        for (n, t) in [
            ("builtin_interfaces/Time", "int32 sec\nuint32 nanosec\n"),
            ("builtin_interfaces/Duration", "int32 sec\nuint32 nanosec\n"),
            (
                "std_msgs/Header",
                "builtin_interfaces/Time stamp\nstring frame_id\n",
            ),
        ] {
            d.add(n, t).expect("the built-in definitions parse");
        }
        d
    }

    /// The types every ROS 1 bag relies on: `time` and `duration` (as messages of `sec`
    /// and `nanosec`, u32 and i32 as ROS 1 writes them) and the Header with its `seq`.
    pub fn builtin_ros1() -> Defs {
        let mut d = Defs {
            ros1: true,
            ..Defs::default()
        };
        for (n, t) in [
            ("builtin_interfaces/Time", "uint32 sec\nuint32 nanosec\n"),
            ("builtin_interfaces/Duration", "int32 sec\nint32 nanosec\n"),
            (
                "std_msgs/Header",
                "uint32 seq\ntime stamp\nstring frame_id\n",
            ),
        ] {
            d.add(n, t).expect("the built-in definitions parse");
        }
        d
    }

    /// Whether these are ROS 1 definitions (their messages are in ROS 1's encoding).
    pub fn is_ros1(&self) -> bool {
        self.ros1
    }

    /// Adds the definition of `name` from its `.msg` text.
    pub fn add(&mut self, name: &str, text: &str) -> Result<(), String> {
        let pkg = name.split('/').next().unwrap_or("");
        let mut fields = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut words = line.split_whitespace();
            let (Some(ty), Some(fname)) = (words.next(), words.next()) else {
                return Err(format!(
                    "{name} line {}: `{line}` is not `TYPE NAME`",
                    i + 1
                ));
            };
            if fname.contains('=') || words.next().is_some_and(|w| w.starts_with('=')) {
                continue; // a constant
            }
            fields.push(
                parse_field(pkg, ty, fname, self.ros1)
                    .map_err(|m| format!("{name} line {}: {m}", i + 1))?,
            );
        }
        let name = normalize(name);
        match self.names.get(&name) {
            Some(&k) => self.list[k] = fields,
            None => {
                self.names.insert(name, self.list.len());
                self.list.push(fields);
            }
        }
        self.link();
        Ok(())
    }

    /// Points each nested field at its type's definition, where there is one.
    fn link(&mut self) {
        let names = &self.names;
        for fields in &mut self.list {
            for f in fields {
                if let Type::Msg(t) = &f.ty {
                    f.target = names.get(t).copied();
                }
            }
        }
    }

    /// The index of a type, or an error naming the type no definition was given for.
    pub fn index(&self, name: &str) -> Result<usize, String> {
        self.names
            .get(name)
            .copied()
            .ok_or_else(|| format!("no definition of the message type {name}"))
    }

    /// The fields of the type at an index.
    pub fn at(&self, index: usize) -> &[Field] {
        &self.list[index]
    }

    /// The field indices of a dotted path (`pose.pose.position.x`) in type `ty`, where the
    /// type has every name on it.
    pub fn resolve(&self, ty: &str, path: &str) -> Option<Vec<usize>> {
        let mut k = self.index(ty).ok()?;
        let mut out = Vec::new();
        let mut names = path.split('.').peekable();
        while let Some(name) = names.next() {
            let i = self.list[k].iter().position(|f| f.name == name)?;
            out.push(i);
            if names.peek().is_some() {
                k = self.list[k][i].target?;
            }
        }
        Some(out)
    }

    /// Marks every field that lies on none of `paths` (field indices from type `ty`, as
    /// [`Defs::resolve`] gives them) to be stepped over when decoding; a path that ends at
    /// a message keeps all of it. A type used in several places keeps the union.
    pub fn keep_only(&mut self, ty: &str, paths: &[&[usize]]) {
        let Ok(top) = self.index(ty) else { return };
        for f in self.list.iter_mut().flatten() {
            f.skip = true;
        }
        for path in paths {
            let mut k = top;
            for (j, &i) in path.iter().enumerate() {
                let f = &mut self.list[k][i];
                f.skip = false;
                match f.target {
                    Some(t) if j + 1 < path.len() => k = t,
                    Some(t) => self.keep_all(t, 0),
                    None => break,
                }
            }
        }
    }

    /// Keeps every field of type `k` and of the types inside it.
    fn keep_all(&mut self, k: usize, depth: usize) {
        if depth > 32 {
            return;
        }
        for i in 0..self.list[k].len() {
            self.list[k][i].skip = false;
            if let Some(t) = self.list[k][i].target {
                self.keep_all(t, depth + 1);
            }
        }
    }

    /// The fields of a type, or an error naming the type no definition was given for.
    pub fn fields(&self, name: &str) -> Result<&[Field], String> {
        self.index(name).map(|k| self.at(k))
    }
}

fn parse_field(pkg: &str, ty: &str, name: &str, ros1: bool) -> Result<Field, String> {
    let (base, count) = match ty.find('[') {
        None => (ty, Count::One),
        Some(k) => {
            let inner = ty[k + 1..]
                .strip_suffix(']')
                .ok_or_else(|| format!("`{ty}`: an array type without its `]`"))?;
            let count = if inner.is_empty() || inner.starts_with("<=") {
                Count::Seq
            } else {
                Count::Fixed(
                    inner
                        .parse()
                        .map_err(|_| format!("`{ty}`: `{inner}` is not an array size"))?,
                )
            };
            (&ty[..k], count)
        }
    };
    let ty = match Prim::of(base) {
        Some(Prim::U8) if ros1 && base == "byte" => Type::Prim(Prim::I8),
        Some(p) => Type::Prim(p),
        None if base == "time" => Type::Msg("builtin_interfaces/Time".into()),
        None if base == "duration" => Type::Msg("builtin_interfaces/Duration".into()),
        None if base == "Header" => Type::Msg("std_msgs/Header".into()),
        None if base.contains('/') => Type::Msg(normalize(base)),
        None => Type::Msg(format!("{pkg}/{base}")),
    };
    Ok(Field {
        name: name.to_string(),
        ty,
        count,
        target: None,
        skip: false,
    })
}
