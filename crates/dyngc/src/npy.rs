//! `.npy` files to and from binding bytes. A binding of scalars is a 1-D array `(N,)`, of `vecK`
//! a 2-D array `(N, K)`, of structs a 2-D array of its 32-bit words `(N, size / 4)`; a single
//! value drops the leading `N`. The dtype matches the scalar: `<u4`, `<i4`, `<f4` (struct words
//! are written as `<u4` and read from any of the three). A stream of structs is a structured
//! array with the struct's field names and types; stream outputs are written as they drain
//! ([`StreamFile`]).

use crate::frontend::io_reason;
use dyngc_artifact::{Binding, FieldInfo, ScalarKind};
use npyz::{DType, NpyFile, Order, TypeChar, WriterBuilder};
use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

fn dtype_of(s: ScalarKind) -> &'static str {
    match s {
        ScalarKind::U32 => "<u4",
        ScalarKind::I32 => "<i4",
        ScalarKind::F32 => "<f4",
    }
}

/// 32-bit words of data per element, and whether an element is a plain scalar.
fn row_words(b: &Binding) -> (usize, bool) {
    match b.element.scalar {
        Some(_) if b.element.components <= 1 => (1, true),
        Some(_) => (b.element.components as usize, false),
        None => ((b.element.size / 4) as usize, false),
    }
}

/// The shape the binding expects, `N` standing for any length.
fn expected_shape(b: &Binding) -> String {
    let (k, scalar) = row_words(b);
    match (b.array, scalar) {
        (true, true) => "(N,)".into(),
        (true, false) => format!("(N, {k})"),
        (false, true) => "() or (1,)".into(),
        (false, false) => format!("({k},)"),
    }
}

fn shape_text(shape: &[u64]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Reads the input `binding`'s data from `path`: its bytes, laid out as the storage buffer
/// expects (elements `element.size` bytes apart).
pub fn read_input(path: &Path, b: &Binding) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| format!("could not read `{shown}` (input `{}`): {}", b.name, io_reason(&e)))?;
    let npy = NpyFile::new(BufReader::new(file))
        .map_err(|e| format!("`{shown}` (input `{}`) is not a .npy file: {e}", b.name))?;
    let wanted = match b.element.scalar {
        Some(s) => format!("`{}`", dtype_of(s)),
        None => "`<u4`, `<i4` or `<f4` (the struct's 32-bit words)".to_string(),
    };
    let type_str = match npy.dtype() {
        DType::Plain(t) => t,
        _ => {
            return Err(format!(
                "input `{}` ({}) needs dtype {wanted}, but `{shown}` has a structured dtype",
                b.name, b.element.wgsl
            ))
        }
    };
    let char_ok = matches!(
        (b.element.scalar, type_str.type_char()),
        (Some(ScalarKind::U32), TypeChar::Uint)
            | (Some(ScalarKind::I32), TypeChar::Int)
            | (Some(ScalarKind::F32), TypeChar::Float)
            | (None, TypeChar::Uint | TypeChar::Int | TypeChar::Float)
    );
    if !char_ok || type_str.size_field() != 4 {
        return Err(format!(
            "input `{}` holds `{}` values and needs dtype {wanted}, but `{shown}` has dtype `{type_str}`",
            b.name, b.element.wgsl
        ));
    }
    let shape = npy.shape().to_vec();
    let (k, scalar) = row_words(b);
    let rows = match (b.array, scalar, shape.as_slice()) {
        (true, true, [n]) => Some(*n),
        (true, false, [n, kk]) if *kk == k as u64 => Some(*n),
        (false, true, [] | [1]) => Some(1),
        (false, false, [kk]) if *kk == k as u64 => Some(1),
        _ => None,
    };
    let Some(rows) = rows else {
        return Err(format!(
            "input `{}` ({}{}) needs an array of shape {}, but `{shown}` has shape {}",
            b.name,
            if b.array { "array of " } else { "" },
            b.element.wgsl,
            expected_shape(b),
            shape_text(&shape)
        ));
    };
    let fortran = npy.order() == Order::Fortran;
    let read_err = |e: std::io::Error| format!("could not read the data of `{shown}` (input `{}`): {e}", b.name);
    let words: Vec<u32> = match type_str.type_char() {
        TypeChar::Uint => npy.into_vec::<u32>().map_err(read_err)?,
        TypeChar::Int => npy
            .into_vec::<i32>()
            .map_err(read_err)?
            .into_iter()
            .map(|v| v as u32)
            .collect(),
        _ => npy
            .into_vec::<f32>()
            .map_err(read_err)?
            .into_iter()
            .map(f32::to_bits)
            .collect(),
    };
    let rows = rows as usize;
    if words.len() != rows * k {
        return Err(format!(
            "`{shown}` (input `{}`) holds {} values, its shape says {}",
            b.name,
            words.len(),
            rows * k
        ));
    }
    let size = b.element.size as usize;
    let mut bytes = vec![0u8; rows * size];
    for r in 0..rows {
        for c in 0..k {
            // Fortran order stores column by column.
            let w = if fortran && shape.len() == 2 {
                words[c * rows + r]
            } else {
                words[r * k + c]
            };
            let o = r * size + c * 4;
            bytes[o..o + 4].copy_from_slice(&w.to_le_bytes());
        }
    }
    Ok(bytes)
}

/// Writes the output `binding`'s bytes (as read back from its buffer) to `path`.
pub fn write_output(path: &Path, b: &Binding, bytes: &[u8]) -> Result<(), String> {
    let size = b.element.size as usize;
    let rows = bytes.len() / size;
    let (k, scalar) = row_words(b);
    let mut words = Vec::with_capacity(rows * k);
    for r in 0..rows {
        for c in 0..k {
            let o = r * size + c * 4;
            words.push(u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]));
        }
    }
    let shape: Vec<u64> = match (b.array, scalar) {
        (true, true) => vec![rows as u64],
        (true, false) => vec![rows as u64, k as u64],
        (false, true) => vec![],
        (false, false) => vec![k as u64],
    };
    write_replacing(path, |partial| match b.element.scalar {
        Some(ScalarKind::I32) => write_typed(partial, &shape, words.into_iter().map(|w| w as i32)),
        Some(ScalarKind::F32) => write_typed(partial, &shape, words.into_iter().map(f32::from_bits)),
        _ => write_typed(partial, &shape, words.into_iter()),
    })
}

/// The hidden name a file is written under before it is renamed to `path`.
fn partial_path(path: &Path) -> PathBuf {
    path.with_file_name(format!(
        ".{}.partial",
        path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
    ))
}

/// Writes `path` through `write`, beside the final name and renamed over it, so an interrupted
/// write never leaves a truncated file under the name of a result.
fn write_replacing(path: &Path, write: impl FnOnce(&Path) -> std::io::Result<()>) -> Result<(), String> {
    let partial = partial_path(path);
    write(&partial)
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            format!("could not write `{}`: {}", path.display(), io_reason(&e))
        })
}

/// A stream output written while the run goes on: each drained chunk's rows are appended after
/// room kept for the header, which is written with the final row count when the run ends. The
/// host holds one drain at a time, never the whole stream, which may be larger than its memory.
///
/// Elements of scalars are a 1-D array `(N,)`, of `vecK` a 2-D array `(N, K)`, of structs a
/// structured array `(N,)`: one field per struct field, named as in the program, with its own
/// dtype (`vecK` fields as `(K,)` sub-arrays), packed in declaration order. npyz writes records
/// only for types known when dyngc is compiled, so the header is formatted here.
pub struct StreamFile {
    path: PathBuf,
    partial: PathBuf,
    /// `None` once finished: dropping an unfinished file removes it.
    file: Option<BufWriter<File>>,
    element_size: usize,
    /// Byte ranges of an element that make its row, in order (adjacent ones merged).
    row: Vec<(usize, usize)>,
    descr: String,
    /// `K` of a 2-D array `(N, K)`; `None` for `(N,)`.
    columns: Option<usize>,
    /// Bytes before the data: magic, version, header length and the header, padded to 64.
    header_room: usize,
    rows: u64,
    /// The first write that failed; the rest are skipped and [`StreamFile::finish`] reports it.
    failure: Option<std::io::Error>,
}

impl StreamFile {
    /// Creates the file for stream binding `b` (`fields`: its struct's, empty for a scalar or
    /// vector element) beside `path`, renamed to it by [`StreamFile::finish`].
    pub fn create(path: &Path, b: &Binding, fields: &[FieldInfo]) -> Result<StreamFile, String> {
        let (descr, columns, ranges) = if fields.is_empty() {
            let (k, scalar) = row_words(b);
            let dtype = dtype_of(b.element.scalar.unwrap_or(ScalarKind::U32));
            (format!("'{dtype}'"), (!scalar).then_some(k), vec![(0, 4 * k)])
        } else {
            let descr: Vec<String> = fields
                .iter()
                .map(|f| match f.components {
                    1 => format!("('{}', '{}')", f.name, dtype_of(f.scalar)),
                    k => format!("('{}', '{}', ({k},))", f.name, dtype_of(f.scalar)),
                })
                .collect();
            let ranges = fields
                .iter()
                .map(|f| (f.offset as usize, 4 * f.components as usize))
                .collect();
            (format!("[{}]", descr.join(", ")), None, ranges)
        };
        let mut row: Vec<(usize, usize)> = Vec::new();
        for (at, len) in ranges {
            match row.last_mut() {
                Some(last) if last.0 + last.1 == at => last.1 += len,
                _ => row.push((at, len)),
            }
        }
        let mut stream = StreamFile {
            path: path.to_path_buf(),
            partial: partial_path(path),
            file: None,
            element_size: b.element.size as usize,
            row,
            descr,
            columns,
            header_room: 0,
            rows: 0,
            failure: None,
        };
        let (prefix, widest) = stream.header(u64::MAX);
        stream.header_room = (prefix.len() + widest.len() + 1).next_multiple_of(64);
        let mut file = File::create(&stream.partial)
            .map(BufWriter::new)
            .map_err(|e| stream.error(&e))?;
        file.write_all(&vec![b' '; stream.header_room])
            .map_err(|e| stream.error(&e))?;
        stream.file = Some(file);
        Ok(stream)
    }

    /// The magic, version and length bytes for a header of `rows`, and the header unpadded.
    fn header(&self, rows: u64) -> (Vec<u8>, String) {
        let shape = match self.columns {
            Some(k) => format!("({rows}, {k})"),
            None => format!("({rows},)"),
        };
        let header = format!(
            "{{'descr': {}, 'fortran_order': False, 'shape': {shape}, }}",
            self.descr
        );
        // Format 1.0 holds a latin-1 header; 3.0 the same in UTF-8 (Unicode field names).
        let mut prefix = b"\x93NUMPY".to_vec();
        if header.is_ascii() {
            prefix.extend([1, 0, 0, 0]);
        } else {
            prefix.extend([3, 0, 0, 0, 0, 0]);
        }
        (prefix, header)
    }

    /// Appends the rows of `bytes`, whole elements as laid out in the storage buffer.
    pub fn append(&mut self, bytes: &[u8]) {
        let Some(file) = self.file.as_mut().filter(|_| self.failure.is_none()) else {
            return;
        };
        let whole = self.row.as_slice() == [(0, self.element_size)];
        let result = if whole {
            file.write_all(bytes)
        } else {
            bytes
                .chunks_exact(self.element_size)
                .flat_map(|element| self.row.iter().map(move |&(at, len)| &element[at..at + len]))
                .try_for_each(|part| file.write_all(part))
        };
        self.rows += (bytes.len() / self.element_size.max(1)) as u64;
        if let Err(e) = result {
            self.failure = Some(e);
        }
    }

    /// Writes the header with the rows appended and gives the file its name.
    pub fn finish(mut self) -> Result<(), String> {
        if let Some(e) = self.failure.take() {
            return Err(self.error(&e));
        }
        let (mut bytes, mut header) = self.header(self.rows);
        let padded = self.header_room - bytes.len() - 1;
        header.extend(std::iter::repeat_n(' ', padded - header.len()));
        header.push('\n');
        let len = bytes.len();
        if bytes[6] == 1 {
            bytes[len - 2..].copy_from_slice(&(header.len() as u16).to_le_bytes());
        } else {
            bytes[len - 4..].copy_from_slice(&(header.len() as u32).to_le_bytes());
        }
        bytes.extend_from_slice(header.as_bytes());
        let mut file = self.file.take().expect("finished once");
        let written = file
            .flush()
            .and_then(|()| file.get_mut().seek(SeekFrom::Start(0)))
            .and_then(|_| file.get_mut().write_all(&bytes))
            .and_then(|()| std::fs::rename(&self.partial, &self.path));
        written.map_err(|e| {
            let _ = std::fs::remove_file(&self.partial);
            self.error(&e)
        })
    }

    fn error(&self, e: &std::io::Error) -> String {
        format!("could not write `{}`: {}", self.path.display(), io_reason(e))
    }
}

impl Drop for StreamFile {
    /// An unfinished stream file (the run failed) leaves nothing behind.
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

fn write_typed<T: npyz::AutoSerialize>(
    path: &Path,
    shape: &[u64],
    data: impl Iterator<Item = T>,
) -> std::io::Result<()> {
    let file = BufWriter::new(std::fs::File::create(path)?);
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(file)
        .begin_nd()?;
    writer.extend(data)?;
    writer.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dyngc_artifact::{Access, Element, FieldInfo, Role};

    fn binding(scalar: Option<ScalarKind>, components: u32, size: u32, array: bool) -> Binding {
        Binding {
            name: "x".into(),
            group: 0,
            binding: 0,
            role: Role::Input,
            access: Access::Read,
            element: Element {
                scalar,
                components,
                atomic: false,
                wgsl: "T".into(),
                size,
            },
            array,
            length: None,
            fill: None,
        }
    }

    fn dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("dyngc-npy-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn round_trips() {
        let d = dir();
        let cases = [
            binding(Some(ScalarKind::U32), 1, 4, true),
            binding(Some(ScalarKind::I32), 1, 4, true),
            binding(Some(ScalarKind::F32), 2, 8, true),
            binding(Some(ScalarKind::F32), 3, 16, true),
            binding(None, 3, 12, true),
            binding(Some(ScalarKind::U32), 1, 4, false),
            binding(Some(ScalarKind::F32), 4, 16, false),
        ];
        for (i, b) in cases.iter().enumerate() {
            let rows = if b.array { 5 } else { 1 };
            let (k, _) = row_words(b);
            let mut bytes = vec![0u8; rows * b.element.size as usize];
            for r in 0..rows {
                for c in 0..k {
                    let o = r * b.element.size as usize + c * 4;
                    bytes[o..o + 4].copy_from_slice(&((r * 10 + c) as f32).to_bits().to_le_bytes());
                }
            }
            let p = d.join(format!("case{i}.npy"));
            write_output(&p, b, &bytes).unwrap();
            assert_eq!(read_input(&p, b).unwrap(), bytes, "case {i}");
        }
        // Empty arrays too.
        let b = binding(Some(ScalarKind::U32), 1, 4, true);
        let p = d.join("empty.npy");
        write_output(&p, &b, &[]).unwrap();
        assert_eq!(read_input(&p, &b).unwrap(), Vec::<u8>::new());
    }

    /// Stream files written in chunks read back as the same array (npyz parses the header we
    /// wrote), struct streams become records of their fields only, and an unfinished file
    /// leaves nothing behind.
    #[test]
    fn stream_files() {
        let d = dir();
        let vec3 = binding(Some(ScalarKind::F32), 3, 16, true);
        let p = d.join("v.npy");
        let mut f = StreamFile::create(&p, &vec3, &[]).unwrap();
        let element = |r: u32| -> Vec<u8> { (0..4).flat_map(|c| ((r * 10 + c) as f32).to_le_bytes()).collect() };
        let rows: Vec<u8> = (0..7).flat_map(element).collect();
        f.append(&rows[..3 * 16]);
        f.append(&[]);
        f.append(&rows[3 * 16..]);
        f.finish().unwrap();
        let mut expected = rows.clone();
        for r in 0..7 {
            // The fourth word is padding: read_input leaves it zero.
            expected[r * 16 + 12..r * 16 + 16].fill(0);
        }
        assert_eq!(read_input(&p, &vec3).unwrap(), expected);

        let field = |name: &str, scalar, components, offset| FieldInfo {
            name: name.into(),
            scalar,
            components,
            offset,
        };
        // A hole between `id` and `pos`, as vec2's alignment leaves one.
        let fields = [field("id", ScalarKind::U32, 1, 0), field("pos", ScalarKind::F32, 2, 8)];
        let record = binding(None, 0, 16, true);
        let p = d.join("r.npy");
        let mut f = StreamFile::create(&p, &record, &fields).unwrap();
        let element = |r: u32| -> Vec<u8> {
            [r, 99, (r as f32).to_bits(), 0]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect()
        };
        f.append(&(0..5).flat_map(element).collect::<Vec<u8>>());
        f.finish().unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let npy = NpyFile::new(&bytes[..]).unwrap();
        assert_eq!(npy.shape(), &[5]);
        let text = format!("{:?}", npy.dtype());
        assert!(text.contains("\"id\"") && text.contains("\"pos\""), "{text}");
        let data = &bytes[bytes.len() - 5 * 12..];
        assert_eq!(
            &data[12..24],
            [1u32, 1f32.to_bits(), 0]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>()
        );

        let p = d.join("dropped.npy");
        let mut f = StreamFile::create(&p, &vec3, &[]).unwrap();
        f.append(&rows);
        drop(f);
        assert!(!p.exists() && !d.join(".dropped.npy.partial").exists());
    }

    #[test]
    fn wrong_dtype_and_shape() {
        let d = dir();
        let u = binding(Some(ScalarKind::U32), 1, 4, true);
        let f = binding(Some(ScalarKind::F32), 1, 4, true);
        let v2 = binding(Some(ScalarKind::F32), 2, 8, true);
        let p = d.join("f.npy");
        write_output(&p, &f, &[0; 12]).unwrap();
        let e = read_input(&p, &u).unwrap_err();
        assert!(
            e.contains("input `x` holds `T` values and needs dtype `<u4`") && e.contains("has dtype `<f4`"),
            "{e}"
        );
        let e = read_input(&p, &v2).unwrap_err();
        assert!(
            e.contains("needs an array of shape (N, 2)") && e.contains("has shape (3,)"),
            "{e}"
        );
        let p64 = d.join("f8.npy");
        npyz::to_file_1d(&p64, vec![1.0f64, 2.0]).unwrap();
        assert!(read_input(&p64, &f).unwrap_err().contains("has dtype `<f8`"));
        let junk = d.join("junk.npy");
        std::fs::write(&junk, b"not numpy").unwrap();
        assert!(read_input(&junk, &u).unwrap_err().contains("is not a .npy file"));
        assert!(read_input(&d.join("missing.npy"), &u)
            .unwrap_err()
            .contains("no such file"));
    }
}
