//! What codespan-reporting renders of a source file for one diagnostic: only the lines its labels
//! touch (with a little context), each cut to a window around the labels. A 10 MB one-line file
//! or labels a million lines apart then render in a few lines, with the original line and column
//! numbers.

use codespan_reporting::files::{Error, Files};
use std::ops::Range;

/// Lines up to this many characters are shown whole.
const MAX_COLS: usize = 160;
/// Characters shown around each group of label positions on a longer line.
const LEAD_COLS: usize = 40;
const TRAIL_COLS: usize = 60;
/// Label positions closer than this (in bytes) share one window.
const GROUP_BYTES: usize = 80;
const ELLIPSIS: &str = "…";

/// Line starts of a source, computed once per file.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(source: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    fn line_of(&self, byte: usize) -> usize {
        self.starts.partition_point(|&s| s <= byte) - 1
    }

    /// Bytes of line `l` without its line break.
    fn range(&self, l: usize, source: &str) -> Range<usize> {
        let start = self.starts[l];
        let mut end = self.starts.get(l + 1).map_or(source.len(), |&s| s - 1);
        if end > start && source.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        start..end
    }
}

/// One line of an excerpt.
struct Line {
    /// Original 1-based line number.
    number: usize,
    /// Stands for skipped lines (shown by codespan as a break).
    placeholder: bool,
    /// Start of the original line.
    orig_line_start: usize,
    /// The parts of the original line shown, each with where it starts in the excerpt text;
    /// `…` separates them (and stands for cut text before the first and after the last).
    segments: Vec<(Range<usize>, usize)>,
    /// Range of this line in the excerpt text.
    text: Range<usize>,
}

/// A [`Files`] view of part of one source.
pub struct Excerpt<'a> {
    name: &'a str,
    source: &'a str,
    text: String,
    lines: Vec<Line>,
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Moves `n` characters back from `i`, not before `limit`.
fn back_chars(s: &str, i: usize, n: usize, limit: usize) -> usize {
    s[limit..i]
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(limit, |(k, _)| limit + k)
        .max(limit)
}

/// Moves `n` characters forward from `i`, not past `limit`.
fn forward_chars(s: &str, i: usize, n: usize, limit: usize) -> usize {
    s[i..limit].char_indices().nth(n).map_or(limit, |(k, _)| i + k)
}

impl<'a> Excerpt<'a> {
    /// The excerpt for labels at `spans` (already inside `source`, on character boundaries), and
    /// the spans translated into it.
    pub fn new(
        name: &'a str,
        source: &'a str,
        index: &LineIndex,
        spans: &[Range<usize>],
    ) -> (Excerpt<'a>, Vec<Range<usize>>) {
        // Lines to show: each label's first and last line, up to three lines after its start and
        // one before its end (what codespan shows of a multi-line label).
        let mut keep = Vec::new();
        for s in spans {
            let (ls, le) = (index.line_of(s.start), index.line_of(s.end));
            keep.extend(ls..=le.min(ls + 3));
            keep.extend(le.saturating_sub(1).max(ls)..=le);
        }
        keep.sort_unstable();
        keep.dedup();
        // A single skipped line is shown (codespan would); longer gaps become two placeholders,
        // which codespan draws as a break.
        let mut order: Vec<(usize, bool)> = Vec::new();
        for (i, &l) in keep.iter().enumerate() {
            if i > 0 {
                let prev = keep[i - 1];
                match l - prev {
                    1 => {}
                    2 => order.push((l - 1, false)),
                    _ => order.extend([(prev + 1, true), (prev + 2, true)]),
                }
            }
            order.push((l, false));
        }

        let mut text = String::new();
        let mut lines = Vec::with_capacity(order.len());
        for (l, placeholder) in order {
            let start = text.len();
            if placeholder {
                let at = index.starts[l];
                lines.push(Line {
                    number: l + 1,
                    placeholder,
                    orig_line_start: at,
                    segments: Vec::new(),
                    text: start..start,
                });
                text.push('\n');
                continue;
            }
            let r = index.range(l, source);
            let windows = if r.len() <= MAX_COLS || source[r.clone()].chars().nth(MAX_COLS).is_none() {
                vec![r.clone()]
            } else {
                let mut points: Vec<usize> = spans
                    .iter()
                    .flat_map(|s| [s.start, s.end])
                    .filter(|p| r.contains(p) || *p == r.end)
                    .collect();
                points.sort_unstable();
                let mut groups: Vec<(usize, usize)> = Vec::new();
                for p in points {
                    match groups.last_mut() {
                        Some(g) if p - g.1 <= GROUP_BYTES => g.1 = p,
                        _ => groups.push((p, p)),
                    }
                }
                if groups.is_empty() {
                    groups.push((r.start, r.start));
                }
                let mut windows: Vec<Range<usize>> = Vec::new();
                for (lo, hi) in groups {
                    let ws = back_chars(source, lo, LEAD_COLS, r.start);
                    let we = forward_chars(source, hi, TRAIL_COLS, r.end);
                    match windows.last_mut() {
                        Some(w) if ws <= w.end => w.end = we.max(w.end),
                        _ => windows.push(ws..we),
                    }
                }
                windows
            };
            let mut segments = Vec::with_capacity(windows.len());
            for (i, w) in windows.iter().enumerate() {
                if i > 0 || w.start > r.start {
                    text.push_str(ELLIPSIS);
                }
                segments.push((w.clone(), text.len()));
                text.push_str(&source[w.clone()]);
            }
            if windows.last().is_some_and(|w| w.end < r.end) {
                text.push_str(ELLIPSIS);
            }
            let end = text.len();
            text.push('\n');
            lines.push(Line {
                number: l + 1,
                placeholder,
                orig_line_start: r.start,
                segments,
                text: start..end,
            });
        }

        let excerpt = Excerpt {
            name,
            source,
            text,
            lines,
        };
        let mapped = spans
            .iter()
            .map(|s| {
                let a = excerpt.map(index, s.start);
                a..excerpt.map(index, s.end).max(a)
            })
            .collect();
        (excerpt, mapped)
    }

    /// An original byte offset in the excerpt; an offset in cut text lands on its `…`.
    fn map(&self, index: &LineIndex, byte: usize) -> usize {
        let l = index.line_of(byte) + 1;
        let Some(line) = self.lines.iter().find(|x| x.number == l && !x.placeholder) else {
            return 0;
        };
        let mut at = line.text.start;
        for (orig, text_at) in &line.segments {
            if byte < orig.start {
                return at;
            }
            if byte <= orig.end {
                return text_at + (byte - orig.start);
            }
            at = text_at + orig.len();
        }
        line.text.end.min(at.max(line.text.start))
    }
}

impl<'a> Files<'a> for Excerpt<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, Error> {
        Ok(self
            .lines
            .partition_point(|l| l.text.start <= byte_index)
            .saturating_sub(1))
    }

    fn line_number(&'a self, (): (), line_index: usize) -> Result<usize, Error> {
        Ok(self.lines.get(line_index).map_or(0, |l| l.number))
    }

    fn column_number(&'a self, (): (), line_index: usize, byte_index: usize) -> Result<usize, Error> {
        let Some(line) = self.lines.get(line_index) else {
            return Ok(1);
        };
        // The original offset: inside a segment, or the start of the next one (after a `…`).
        let mut orig = line.segments.last().map_or(line.orig_line_start, |(o, _)| o.end);
        for (o, text_at) in &line.segments {
            if byte_index <= text_at + o.len() {
                orig = o.start + byte_index.saturating_sub(*text_at).min(o.len());
                break;
            }
        }
        let orig = floor_char(self.source, orig).max(line.orig_line_start);
        Ok(self.source[line.orig_line_start..orig].chars().count() + 1)
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        self.lines
            .get(line_index)
            .map(|l| l.text.clone())
            .ok_or(Error::LineTooLarge {
                given: line_index,
                max: self.lines.len().saturating_sub(1),
            })
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // one label's span, not a range of labels
mod tests {
    use super::*;
    use codespan_reporting::diagnostic::{Diagnostic, Label};
    use codespan_reporting::term::{self, termcolor::NoColor};

    fn render(source: &str, spans: &[Range<usize>]) -> String {
        let index = LineIndex::new(source);
        let (excerpt, mapped) = Excerpt::new("f.dyn", source, &index, spans);
        let labels = mapped
            .iter()
            .enumerate()
            .map(|(i, s)| {
                if i == 0 {
                    Label::primary((), s.clone())
                } else {
                    Label::secondary((), s.clone())
                }
                .with_message(format!("label {i}"))
            })
            .collect();
        let d = Diagnostic::error().with_message("m").with_labels(labels);
        let mut out = NoColor::new(Vec::new());
        term::emit_to_write_style(&mut out, &term::Config::default(), &excerpt, &d).unwrap();
        String::from_utf8(out.into_inner()).unwrap()
    }

    #[test]
    fn short_files_render_as_usual() {
        let src = "a\nbb x\ncc\n";
        let text = render(src, &[5..6]);
        assert!(text.contains("┌─ f.dyn:2:4"), "{text}");
        assert!(text.contains("2 │ bb x\n  │    ^ label 0"), "{text}");
    }

    #[test]
    fn long_lines_are_cut_around_the_label() {
        let src = format!("{}TARGET{}\n", "x".repeat(1_000_000), "y".repeat(1_000_000));
        let text = render(&src, &[1_000_000..1_000_006]);
        assert!(text.len() < 1000, "{}", text.len());
        assert!(text.contains("┌─ f.dyn:1:1000001"), "{text}");
        assert!(
            text.contains(&format!("1 │ …{}TARGET{}…", "x".repeat(40), "y".repeat(60))),
            "{text}"
        );
        assert!(text.contains("^^^^^^ label 0"), "{text}");
    }

    #[test]
    fn distant_lines_are_skipped() {
        let src: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
        let index = LineIndex::new(&src);
        let far = index.starts[99_990];
        let text = render(&src, &[far..far + 4, 0..4]);
        assert!(text.contains("┌─ f.dyn:99991:1"), "{text}");
        assert!(text.contains("    1 │ line 0"), "{text}");
        assert!(text.contains("    ·"), "{text}");
        assert!(text.contains("99991 │ line 99990"), "{text}");
        assert!(text.lines().count() < 12, "{text}");
    }

    #[test]
    fn multi_line_labels_and_unicode() {
        let src: String = (0..50).map(|i| format!("é{i} ✓\r\n")).collect();
        let index = LineIndex::new(&src);
        let (a, b) = (index.starts[2] + 2, index.starts[40] + 3);
        let text = render(&src, &[a..b]);
        assert!(text.contains("┌─ f.dyn:3:2"), "{text}");
        assert!(text.contains(" 3 │"), "{text}");
        assert!(text.contains("41 │"), "{text}");
        assert!(!text.contains(" 20 │"), "{text}");
        // Far apart on one long line: two windows.
        let line = format!("/*{}", "x".repeat(100_000));
        let text = render(&line, &[line.len()..line.len(), 0..2]);
        assert!(text.contains("┌─ f.dyn:1:100003"), "{text}");
        assert!(
            text.contains(&format!("1 │ /*{}…{}\n", "x".repeat(60), "x".repeat(40))),
            "{text}"
        );
        assert!(text.len() < 1000, "{text}");
        // Labels at the very end of the file.
        let end = src.len();
        let text = render(&src, &[end..end]);
        assert!(text.contains("f.dyn:51:1"), "{text}");
    }
}
