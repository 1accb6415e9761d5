//! Rendering diagnostics: codespan-reporting for people, one JSON object per line for tools.

use crate::cli::{ColorMode, MessageFormat};
use crate::excerpt::{Excerpt, LineIndex};
use codespan_reporting::term::{self, termcolor};
use dyngc_compiler::render::{clamp, line_column, severity_word, spans, to_codespan};
use dyngc_syntax::Diagnostic;
use serde::Serialize;
use std::io::{IsTerminal, Write};
use termcolor::{Color, ColorChoice, ColorSpec, StandardStream, WriteColor};

/// Most diagnostics of one file rendered for people; the rest are counted.
const MAX_RENDERED: usize = 100;

/// Output settings shared by every command.
pub struct Ctx {
    pub format: MessageFormat,
    color: ColorChoice,
}

impl Ctx {
    pub fn new(color: ColorMode, format: MessageFormat) -> Self {
        let color = match color {
            ColorMode::Always => ColorChoice::Always,
            ColorMode::Never => ColorChoice::Never,
            // termcolor's Auto looks at TERM and NO_COLOR but not at whether stderr is a terminal.
            ColorMode::Auto if std::io::stderr().is_terminal() => ColorChoice::Auto,
            ColorMode::Auto => ColorChoice::Never,
        };
        Ctx { format, color }
    }

    fn stderr(&self) -> StandardStream {
        StandardStream::stderr(self.color)
    }

    fn headline(&self, level: &str, color: Color, message: &str) {
        let mut out = self.stderr();
        let mut lock = out.lock();
        let _ = lock.set_color(ColorSpec::new().set_fg(Some(color)).set_bold(true));
        let _ = write!(lock, "{level}");
        let _ = lock.set_color(ColorSpec::new().set_bold(true));
        let _ = write!(lock, ":");
        let _ = lock.reset();
        let _ = writeln!(lock, " {message}");
        drop(lock);
        let _ = out.flush();
    }

    /// `error: MESSAGE` on stderr.
    pub fn error(&self, message: &str) {
        self.headline("error", Color::Red, message);
    }

    /// `warning: MESSAGE` on stderr.
    pub fn warning(&self, message: &str) {
        self.headline("warning", Color::Yellow, message);
    }

    /// `note: MESSAGE` on stderr.
    pub fn note(&self, message: &str) {
        self.headline("note", Color::Cyan, message);
    }

    /// Prints `diagnostics` of the file `display` (text `source`) in the chosen format, then, if
    /// there were any, a summary line on stderr: `error: could not VERB `FILE` (2 errors, 1
    /// warning)`. Returns the number of errors.
    pub fn report(&self, display: &str, source: &str, diagnostics: &[Diagnostic], verb: &str) -> usize {
        match self.format {
            MessageFormat::Human => {
                let config = term::Config::default();
                let index = LineIndex::new(source);
                let out = self.stderr();
                let mut lock = out.lock();
                for d in diagnostics.iter().take(MAX_RENDERED) {
                    let (excerpt, mapped) = Excerpt::new(display, source, &index, &spans(d, source));
                    let cd = to_codespan(d, &mapped);
                    if term::emit_to_write_style(&mut lock, &config, &excerpt, &cd).is_err() {
                        let _ = writeln!(
                            lock,
                            "{}[{}]: {} ({display})",
                            severity_word(d.severity),
                            d.code,
                            d.message
                        );
                    }
                }
                drop(lock);
                if diagnostics.len() > MAX_RENDERED {
                    self.note(&format!(
                        "{} more diagnostics in `{display}` not shown (`--message-format json` lists them all)",
                        diagnostics.len() - MAX_RENDERED
                    ));
                }
            }
            MessageFormat::Json => {
                let stdout = std::io::stdout();
                let mut lock = stdout.lock();
                for d in diagnostics {
                    let _ = writeln!(lock, "{}", to_json(d, display, source));
                }
            }
        }
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        let warnings = diagnostics.len() - errors;
        if errors > 0 {
            self.error(&format!("could not {verb} `{display}` ({})", counts(errors, warnings)));
        } else if warnings > 0 {
            self.warning(&format!("`{display}` generated {}", counts(0, warnings)));
        }
        errors
    }
}

fn counts(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (e, 0) => plural(e, "error"),
        (0, w) => plural(w, "warning"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}

#[derive(Serialize)]
struct JsonLabel<'a> {
    start: usize,
    end: usize,
    line: usize,
    column: usize,
    message: &'a str,
    primary: bool,
}

/// One diagnostic as `--message-format json` prints it (fields in this order).
#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    file: &'a str,
    code: &'a str,
    severity: &'a str,
    message: &'a str,
    line: usize,
    column: usize,
    labels: Vec<JsonLabel<'a>>,
    notes: &'a [String],
    hint: Option<&'a str>,
}

fn json_label<'a>(l: &'a dyngc_syntax::Label, primary: bool, source: &str) -> JsonLabel<'a> {
    let span = clamp(&l.span, source);
    let (line, column) = line_column(source, span.start);
    JsonLabel {
        start: span.start,
        end: span.end,
        line,
        column,
        message: &l.message,
        primary,
    }
}

fn to_json(d: &Diagnostic, display: &str, source: &str) -> String {
    let label = |l, primary| json_label(l, primary, source);
    let mut labels = vec![label(&d.primary, true)];
    labels.extend(d.secondary.iter().map(|l| label(l, false)));
    let (line, column) = line_column(source, d.primary.span.start);
    let json = JsonDiagnostic {
        file: display,
        code: d.code,
        severity: severity_word(d.severity),
        message: &d.message,
        line,
        column,
        labels,
        notes: &d.notes,
        hint: d.hint.as_deref(),
    };
    serde_json::to_string(&json).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape() {
        let src = "input x: array<u32>;\nstage é(y) { spawn nope(1); }\n";
        let start = src.find("nope").unwrap();
        let d = Diagnostic::error("DYN0100", "unknown stage `nope`", start..start + 4, "not a stage")
            .with_label(0..5, "inputs are declared here")
            .with_note("stages are declared with `stage`")
            .with_hint("did you mean `node`?");
        let text = to_json(&d, "x.dyn", src);
        assert!(
            text.starts_with(r#"{"file":"x.dyn","code":"DYN0100","severity":"error","message":"#),
            "{text}"
        );
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["file"], "x.dyn");
        assert_eq!(v["code"], "DYN0100");
        assert_eq!(v["severity"], "error");
        assert_eq!((v["line"].as_u64(), v["column"].as_u64()), (Some(2), Some(20)));
        assert_eq!(v["labels"][0]["primary"], true);
        assert_eq!(v["labels"][0]["start"], start);
        assert_eq!(v["labels"][1]["line"], 1);
        assert_eq!(v["notes"][0], "stages are declared with `stage`");
        assert_eq!(v["hint"], "did you mean `node`?");
    }

    #[test]
    fn spans_outside_the_source_do_not_fail_in_excerpts() {
        let src = "héllo";
        let d = Diagnostic::warning("DYN0302", "w", 50..60, "here");
        let mut out = termcolor::NoColor::new(Vec::new());
        let (excerpt, mapped) = Excerpt::new("x.dyn", src, &LineIndex::new(src), &spans(&d, src));
        term::emit_to_write_style(&mut out, &term::Config::default(), &excerpt, &to_codespan(&d, &mapped)).unwrap();
        let text = String::from_utf8(out.into_inner()).unwrap();
        assert!(text.contains("warning[DYN0302]: w"), "{text}");
    }

    /// For ordinary files the excerpt renders exactly what the whole file would.
    #[test]
    fn excerpts_render_like_the_whole_file() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "dyn") {
                    out.push(p);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        walk(&root.join("tests/ui"), &mut files);
        walk(&root.join("examples"), &mut files);
        files.sort();
        let mut compared = 0;
        for path in files {
            let src = crate::frontend::Source::read(&path).unwrap_or_else(|_| panic!("{}", path.display()));
            let diagnostics = src.check().diagnostics;
            let index = LineIndex::new(&src.text);
            for d in &diagnostics {
                let whole = dyngc_compiler::render::render(&src.display, &src.text, std::slice::from_ref(d));
                let (excerpt, mapped) = Excerpt::new(&src.display, &src.text, &index, &spans(d, &src.text));
                let mut b = termcolor::NoColor::new(Vec::new());
                term::emit_to_write_style(&mut b, &term::Config::default(), &excerpt, &to_codespan(d, &mapped))
                    .unwrap();
                assert_eq!(String::from_utf8_lossy(&b.into_inner()), whole);
                compared += 1;
            }
        }
        assert!(compared > 50, "{compared}");
    }

    #[test]
    fn summary_counts() {
        assert_eq!(counts(2, 1), "2 errors, 1 warning");
        assert_eq!(counts(1, 0), "1 error");
        assert_eq!(counts(0, 3), "3 warnings");
    }
}
