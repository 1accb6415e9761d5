//! `.npy` files to and from binding bytes. A binding of scalars is a 1-D array `(N,)`, of `vecK`
//! a 2-D array `(N, K)`, of structs a 2-D array of its 32-bit words `(N, size / 4)`; a single
//! value drops the leading `N`. The dtype matches the scalar: `<u4`, `<i4`, `<f4` (struct words
//! are written as `<u4` and read from any of the three). A stream of structs is a structured
//! array with the struct's field names and types ([`write_records`]).

use crate::frontend::io_reason;
use dyngc_artifact::{Binding, FieldInfo, ScalarKind};
use npyz::{DType, NpyFile, Order, TypeChar, WriterBuilder};
use std::io::{BufReader, BufWriter};
use std::path::Path;

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

/// Writes `path` through `write`, beside the final name and renamed over it, so an interrupted
/// write never leaves a truncated file under the name of a result.
fn write_replacing(path: &Path, write: impl FnOnce(&Path) -> std::io::Result<()>) -> Result<(), String> {
    let partial = path.with_file_name(format!(
        ".{}.partial",
        path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
    ));
    write(&partial)
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            format!("could not write `{}`: {}", path.display(), io_reason(&e))
        })
}

/// Elements of a struct stream (`element_size` bytes each, laid out as in the storage buffer)
/// as a structured array `(N,)`: one field per struct field, named as in the program, with its
/// own dtype (`vecK` fields as `(K,)` sub-arrays), packed in declaration order. npyz writes
/// records only for types known when dyngc is compiled, so the header is formatted here.
pub fn write_records(path: &Path, fields: &[FieldInfo], element_size: usize, bytes: &[u8]) -> Result<(), String> {
    let rows = bytes.len() / element_size.max(1);
    let descr: Vec<String> = fields
        .iter()
        .map(|f| match f.components {
            1 => format!("('{}', '{}')", f.name, dtype_of(f.scalar)),
            k => format!("('{}', '{}', ({k},))", f.name, dtype_of(f.scalar)),
        })
        .collect();
    let mut header = format!(
        "{{'descr': [{}], 'fortran_order': False, 'shape': ({rows},), }}",
        descr.join(", ")
    );
    // Format 1.0 holds a latin-1 header; 3.0 the same in UTF-8 (Unicode field names).
    let (version, len_bytes) = if header.is_ascii() { (1u8, 2) } else { (3u8, 4) };
    let before = 8 + len_bytes;
    while (before + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(before + header.len() + bytes.len());
    out.extend_from_slice(b"\x93NUMPY");
    out.extend_from_slice(&[version, 0]);
    if len_bytes == 2 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    for row in bytes.chunks_exact(element_size) {
        for f in fields {
            let o = f.offset as usize;
            out.extend_from_slice(&row[o..o + 4 * f.components as usize]);
        }
    }
    write_replacing(path, |partial| std::fs::write(partial, &out))
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
    use dyngc_artifact::{Access, Element, Role};

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
