//! `dyngc graph FILE`: the stage graph as Graphviz DOT (or SVG/PNG through `dot`).

use crate::cli::{GraphArgs, GraphFormat};
use crate::diag::Ctx;
use crate::frontend::{io_reason, Source};
use crate::{CmdResult, Failure};
use dyngc_ir::{EdgeKind, Program, SizeExpr};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::process::{Command, Stdio};

pub fn run(ctx: &Ctx, args: GraphArgs) -> CmdResult {
    let format = args.format.unwrap_or_else(|| {
        match args
            .output
            .as_ref()
            .and_then(|o| o.extension())
            .and_then(|e| e.to_str())
        {
            Some(e) if e.eq_ignore_ascii_case("svg") => GraphFormat::Svg,
            Some(e) if e.eq_ignore_ascii_case("png") => GraphFormat::Png,
            _ => GraphFormat::Dot,
        }
    });
    if format == GraphFormat::Png && args.output.is_none() && std::io::stdout().is_terminal() {
        return Err(Failure::usage(
            "refusing to write PNG data to a terminal; use -o FILE or redirect stdout",
        ));
    }
    let src = Source::read(&args.file)?;
    let program = src.compile(ctx, "graph")?;
    let text = dot(&program);
    let bytes = match format {
        GraphFormat::Dot => text.into_bytes(),
        GraphFormat::Svg => render(&text, "svg")?,
        GraphFormat::Png => render(&text, "png")?,
    };
    match &args.output {
        Some(path) => std::fs::write(path, &bytes)
            .map_err(|e| Failure::usage(format!("could not write `{}`: {}", path.display(), io_reason(&e)))),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&bytes)
                .and_then(|_| out.flush())
                .map_err(|e| Failure::usage(format!("could not write to stdout: {}", io_reason(&e))))
        }
    }
}

/// Runs Graphviz `dot -T{format}` over the DOT text.
fn render(dot_text: &str, format: &str) -> Result<Vec<u8>, Failure> {
    let child = Command::new("dot")
        .arg(format!("-T{format}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Failure::usage(
                "Graphviz `dot` not found; install graphviz or use --format dot",
            ));
        }
        Err(e) => {
            return Err(Failure::usage(format!(
                "could not run Graphviz `dot`: {}",
                io_reason(&e)
            )))
        }
    };
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = dot_text.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child
        .wait_with_output()
        .map_err(|e| Failure::usage(format!("could not run Graphviz `dot`: {}", io_reason(&e))))?;
    let _ = writer.join();
    if !output.status.success() {
        return Err(Failure::failed(format!(
            "Graphviz `dot -T{format}` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(output.stdout)
}

/// A DOT string literal's contents: each line escaped, lines joined with `\n`.
fn quote(lines: &[String]) -> String {
    let esc: Vec<String> = lines
        .iter()
        .map(|l| l.replace('\\', "\\\\").replace('"', "\\\""))
        .collect();
    format!("\"{}\"", esc.join("\\n"))
}

/// Source text with runs of whitespace collapsed to one space.
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A size expression as written: `len(row_ptr) - 1`.
pub fn size_expr(program: &Program, e: &SizeExpr) -> String {
    fn go(p: &Program, e: &SizeExpr, nested: bool) -> String {
        match e {
            SizeExpr::Int(v) => v.to_string(),
            SizeExpr::Len(i) => format!("len({})", p.resources.get(*i).map_or("?", |r| r.name.as_str())),
            SizeExpr::Param(i) => p.params.get(*i).map_or("?", |q| q.name.as_str()).to_string(),
            SizeExpr::Binary(op, a, b) => {
                let s = format!("{} {} {}", go(p, a, true), op.symbol(), go(p, b, true));
                if nested {
                    format!("({s})")
                } else {
                    s
                }
            }
        }
    }
    go(program, e, false)
}

/// The stage graph in DOT: deterministic (stages and edges in program order).
pub fn dot(program: &Program) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(std::slice::from_ref(&program.name)));
    out.push_str("    graph [rankdir=TB, fontname=\"monospace\"];\n");
    out.push_str("    node [shape=box, style=rounded, fontname=\"monospace\"];\n");
    out.push_str("    edge [fontname=\"monospace\"];\n");

    let entry = &program.entry;
    let mut entry_label = vec![if entry.until.is_some() {
        "entry loop".to_string()
    } else {
        "entry".to_string()
    }];
    if let Some(r) = entry.max_rounds {
        entry_label.push(format!("@max_rounds({r})"));
    }
    let _ = writeln!(
        out,
        "    entry [shape=ellipse, style=filled, fillcolor=\"#eeeeee\", label={}];",
        quote(&entry_label)
    );

    for (i, s) in program.stages.iter() {
        let mut lines = Vec::new();
        if let Some(k) = &s.keyed {
            lines.push(format!("@keyed({})", size_expr(program, k)));
        }
        if let Some(d) = s.max_depth {
            lines.push(format!("@max_depth({d})"));
        }
        if s.width > 1 {
            lines.push(format!("@width({})", s.width));
        }
        let mut params = Vec::new();
        if let Some((name, ty)) = &s.payload {
            params.push(format!("{name}: {}", ty.wgsl(&program.structs)));
        }
        if let Some(idx) = &s.index {
            params.push(format!("@index {idx}: u32"));
        }
        lines.push(format!("{}({})", s.name, params.join(", ")));
        let _ = writeln!(out, "    s{i} [label={}];", quote(&lines));
    }

    let count = size_expr(program, &entry.count);
    let _ = writeln!(
        out,
        "    entry -> s{} [style=bold, label={}];",
        entry.stage,
        quote(&[format!("[{count}]")])
    );
    if let Some(until) = &entry.until {
        let text = program.source.get(until.span.clone()).map(squash).unwrap_or_default();
        let text = if text.chars().count() > 40 {
            format!("{}…", text.chars().take(39).collect::<String>())
        } else {
            text
        };
        let _ = writeln!(
            out,
            "    entry -> entry [style=dashed, label={}];",
            quote(&["repeat until".to_string(), text])
        );
    }

    for e in program.edges.values() {
        let attrs = match e.kind {
            EdgeKind::Spawn => String::new(),
            EdgeKind::FanOut => {
                let n = e
                    .count
                    .as_ref()
                    .and_then(|c| program.source.get(c.clone()))
                    .map(squash)
                    .unwrap_or_else(|| "n".to_string());
                format!(" [style=bold, label={}]", quote(&[format!("[{n}]")]))
            }
            EdgeKind::Keyed => " [style=dashed, label=\"keyed\"]".to_string(),
            EdgeKind::Become => " [style=dotted, label=\"become\"]".to_string(),
        };
        let _ = writeln!(out, "    s{} -> s{}{attrs};", e.from, e.to);
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote(&["a\"b".into(), "c\\d".into()]), "\"a\\\"b\\nc\\\\d\"");
        assert_eq!(squash(" end -\n   begin "), "end - begin");
    }
}
