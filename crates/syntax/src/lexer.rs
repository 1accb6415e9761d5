//! The lexer: source text to a flat token list with byte spans.
//!
//! Besides splitting the text into tokens, the lexer
//!
//! - reports invalid characters (`DYN0003`), malformed number literals (`DYN0005`) and unterminated
//!   block comments (`DYN0002`);
//! - matches `(`/`)`, `[`/`]` and `{`/`}` with an explicit stack (no recursion), reports unclosed
//!   (`DYN0002`) and stray (`DYN0001`) delimiters and repairs the token list so that the parser
//!   always sees balanced delimiters: unclosed delimiters get a zero-width closing token, stray
//!   closing delimiters are dropped;
//! - enforces the nesting limit ([`crate::limits::MAX_NESTING`], `DYN0004`) before any recursive
//!   parser runs. Every open delimiter and every `else if` link counts as one level, because each
//!   becomes one level of the syntax tree.
//!
//! The lexer never fails and never panics; every character of the input is either part of a token,
//! whitespace, a comment, or reported.

use crate::ast::Span;
use crate::codes;
use crate::diagnostic::Diagnostic;
use crate::limits::{MAX_DIAGNOSTICS, MAX_NESTING};

/// Most diagnostics the lexer reports before it stops (the file is then not parsed): a file of
/// nothing but errors (10 MB of stray `}`) would otherwise take gigabytes, only for all but the
/// first `MAX_DIAGNOSTICS` to be dropped.
const MAX_LEX_DIAGNOSTICS: usize = 10 * MAX_DIAGNOSTICS;

/// Token kinds. Tokens carry no text: the parser slices the source with the token's span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum Tok {
    Ident,
    Int,
    Float,
    // Keywords of the .dyn layer.
    Input,
    Output,
    Buffer,
    Param,
    Stage,
    Entry,
    Until,
    Spawn,
    Become,
    Emit,
    // WGSL keywords the parser needs.
    Struct,
    Fn,
    Const,
    Alias,
    If,
    Else,
    For,
    While,
    Loop,
    Continuing,
    Switch,
    Case,
    Default,
    True,
    False,
    // Punctuation.
    At,
    Colon,
    Semi,
    Comma,
    Dot,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Lt,
    Gt,
    Le,
    Eq,
    Plus,
    Minus,
    Star,
    Slash,
    Arrow,
    PlusPlus,
    PlusEq,
    /// Any other WGSL operator (`%`, `&&`, `!=`, `<<`, `-=`, ...); only ever part of WGSL text.
    Op,
}

impl Tok {
    pub(crate) fn is_open(self) -> bool {
        matches!(self, Tok::LParen | Tok::LBracket | Tok::LBrace)
    }

    pub(crate) fn is_close(self) -> bool {
        matches!(self, Tok::RParen | Tok::RBracket | Tok::RBrace)
    }

    fn closer(self) -> Tok {
        match self {
            Tok::LParen => Tok::RParen,
            Tok::LBracket => Tok::RBracket,
            _ => Tok::RBrace,
        }
    }

    pub(crate) fn is_keyword(self) -> bool {
        (self as u8) >= (Tok::Input as u8) && (self as u8) <= (Tok::False as u8)
    }

    /// Tokens that start a file-scope item (attributes aside).
    pub(crate) fn starts_item(self) -> bool {
        matches!(
            self,
            Tok::Input
                | Tok::Output
                | Tok::Buffer
                | Tok::Param
                | Tok::Struct
                | Tok::Fn
                | Tok::Const
                | Tok::Alias
                | Tok::Stage
                | Tok::Entry
        )
    }

    /// How the token is written, for messages (`None` for tokens with variable text).
    pub(crate) fn fixed_text(self) -> Option<&'static str> {
        Some(match self {
            Tok::Ident | Tok::Int | Tok::Float | Tok::Op => return None,
            Tok::Input => "input",
            Tok::Output => "output",
            Tok::Buffer => "buffer",
            Tok::Param => "param",
            Tok::Stage => "stage",
            Tok::Entry => "entry",
            Tok::Until => "until",
            Tok::Spawn => "spawn",
            Tok::Become => "become",
            Tok::Emit => "emit",
            Tok::Struct => "struct",
            Tok::Fn => "fn",
            Tok::Const => "const",
            Tok::Alias => "alias",
            Tok::If => "if",
            Tok::Else => "else",
            Tok::For => "for",
            Tok::While => "while",
            Tok::Loop => "loop",
            Tok::Continuing => "continuing",
            Tok::Switch => "switch",
            Tok::Case => "case",
            Tok::Default => "default",
            Tok::True => "true",
            Tok::False => "false",
            Tok::At => "@",
            Tok::Colon => ":",
            Tok::Semi => ";",
            Tok::Comma => ",",
            Tok::Dot => ".",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Lt => "<",
            Tok::Gt => ">",
            Tok::Le => "<=",
            Tok::Eq => "=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Arrow => "->",
            Tok::PlusPlus => "++",
            Tok::PlusEq => "+=",
        })
    }
}

fn keyword(word: &str) -> Option<Tok> {
    Some(match word {
        "input" => Tok::Input,
        "output" => Tok::Output,
        "buffer" => Tok::Buffer,
        "param" => Tok::Param,
        "stage" => Tok::Stage,
        "entry" => Tok::Entry,
        "until" => Tok::Until,
        "spawn" => Tok::Spawn,
        "become" => Tok::Become,
        "emit" => Tok::Emit,
        "struct" => Tok::Struct,
        "fn" => Tok::Fn,
        "const" => Tok::Const,
        "alias" => Tok::Alias,
        "if" => Tok::If,
        "else" => Tok::Else,
        "for" => Tok::For,
        "while" => Tok::While,
        "loop" => Tok::Loop,
        "continuing" => Tok::Continuing,
        "switch" => Tok::Switch,
        "case" => Tok::Case,
        "default" => Tok::Default,
        "true" => Tok::True,
        "false" => Tok::False,
        _ => return None,
    })
}

/// The lexer's result.
pub(crate) struct Lexed {
    pub toks: Vec<Tok>,
    /// Byte span of every token (`start`, `end`); synthetic closing delimiters are zero-width.
    pub spans: Vec<(u32, u32)>,
    pub diagnostics: Vec<Diagnostic>,
    /// A limit was exceeded: the token list is incomplete and must not be parsed.
    pub fatal: bool,
    /// Byte ranges damaged by delimiter repair; parser errors starting inside them are dropped
    /// because they are consequences of the delimiter error already reported.
    pub quiet: Vec<Span>,
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    out: Lexed,
    /// Open delimiters: kind and byte span.
    stack: Vec<(Tok, u32, u32)>,
    /// `else if` links per nesting level (index = stack depth), and their sum.
    chains: Vec<u32>,
    chain_total: usize,
    /// The previous token was a `}` that brought us back to the current level.
    after_close: bool,
    /// Pending run of invalid characters.
    invalid: Option<(usize, usize)>,
}

pub(crate) fn lex(src: &str) -> Lexed {
    let mut lx = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        out: Lexed {
            toks: Vec::with_capacity(src.len() / 3 + 16),
            spans: Vec::with_capacity(src.len() / 3 + 16),
            diagnostics: Vec::new(),
            fatal: false,
            quiet: Vec::new(),
        },
        stack: Vec::new(),
        chains: vec![0],
        chain_total: 0,
        after_close: false,
        invalid: None,
    };
    lx.run();
    lx.out
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

pub(crate) fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// WGSL blankspace outside ASCII.
fn is_unicode_blank(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{200E}' | '\u{200F}' | '\u{2028}' | '\u{2029}')
}

fn describe_char(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("{:?}", c).trim_matches('\'').to_string()
    } else {
        c.to_string()
    }
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> u8 {
        self.bytes.get(self.pos + k).copied().unwrap_or(0)
    }

    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn run(&mut self) {
        // A byte order mark is not part of the text.
        if self.src.starts_with('\u{FEFF}') {
            self.pos = 3;
        }
        while !self.at_end() && !self.out.fatal {
            if self.out.diagnostics.len() > MAX_LEX_DIAGNOSTICS {
                self.out.fatal = true;
                break;
            }
            let start = self.pos;
            let b = self.bytes[start];
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => {
                    self.pos += 1;
                    continue;
                }
                b'/' if self.peek(1) == b'/' => {
                    while !self.at_end() && self.bytes[self.pos] != b'\n' && self.bytes[self.pos] != b'\r' {
                        self.pos += 1;
                    }
                    continue;
                }
                b'/' if self.peek(1) == b'*' => {
                    self.block_comment();
                    continue;
                }
                _ if is_ident_start(b) => self.word(),
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                0x80.. => {
                    let c = self.src[start..].chars().next().unwrap_or('\u{FFFD}');
                    if is_unicode_blank(c) {
                        self.pos += c.len_utf8();
                        continue;
                    } else if c.is_alphabetic() {
                        self.word();
                    } else {
                        self.pos += c.len_utf8();
                        self.invalid_char(start, self.pos);
                        continue;
                    }
                }
                0 => {
                    self.flush_invalid();
                    self.out.fatal = true;
                    self.out.diagnostics.push(
                        Diagnostic::error(
                            codes::DYN0003,
                            "invalid character: NUL byte",
                            start..start + 1,
                            "NUL byte",
                        )
                        .with_note("this looks like a binary file, not .dyn source; it is not parsed further"),
                    );
                }
                _ => {
                    if !self.punct() {
                        self.pos += 1;
                        self.invalid_char(start, self.pos);
                        continue;
                    }
                }
            }
        }
        self.flush_invalid();
        if !self.out.fatal {
            self.close_all_at_eof();
        }
    }

    fn push(&mut self, tok: Tok, start: usize, end: usize) {
        self.flush_invalid();
        let level = self.stack.len();
        if self.after_close {
            self.after_close = false;
            if tok != Tok::Else {
                self.chain_total -= self.chains[level] as usize;
                self.chains[level] = 0;
            }
        }
        match tok {
            Tok::If if self.out.toks.last() == Some(&Tok::Else) => {
                self.chains[level] += 1;
                self.chain_total += 1;
                if level + self.chain_total > MAX_NESTING {
                    self.too_deep(start, end, "this `else if` is nested too deeply");
                    return;
                }
            }
            Tok::LParen | Tok::LBracket | Tok::LBrace => {
                if level + 1 + self.chain_total > MAX_NESTING {
                    self.too_deep(start, end, "this delimiter is nested too deeply");
                    return;
                }
                self.stack.push((tok, start as u32, end as u32));
                self.chains.push(0);
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                let kept = self.close(tok, start, end);
                // A stray closing delimiter is dropped.
                if !kept {
                    return;
                }
            }
            _ => {}
        }
        self.out.toks.push(tok);
        self.out.spans.push((start as u32, end as u32));
    }

    fn too_deep(&mut self, start: usize, end: usize, label: &str) {
        self.out.fatal = true;
        self.out.diagnostics.push(
            Diagnostic::error(
                codes::DYN0004,
                format!("nesting exceeds the limit of {MAX_NESTING} levels"),
                start..end,
                label,
            )
            .with_note(
                "every open `(`, `[` or `{` and every `else if` counts as one level; \
                 the file is not parsed further",
            )
            .with_hint("move deeply nested code into helper functions"),
        );
    }

    fn pop_level(&mut self) {
        self.stack.pop();
        if let Some(c) = self.chains.pop() {
            self.chain_total -= c as usize;
        }
    }

    /// Handles a closing delimiter; returns whether the token is kept.
    fn close(&mut self, tok: Tok, start: usize, end: usize) -> bool {
        let text = tok.fixed_text().unwrap_or("");
        match self.stack.iter().rposition(|&(open, _, _)| open.closer() == tok) {
            Some(pos) => {
                // Everything opened after the matching delimiter is unclosed.
                while self.stack.len() > pos + 1 {
                    let (open, os, oe) = *self.stack.last().expect("non-empty");
                    let closer = open.closer();
                    let open_text = open.fixed_text().unwrap_or("");
                    let close_text = closer.fixed_text().unwrap_or("");
                    self.out.diagnostics.push(
                        Diagnostic::error(
                            codes::DYN0002,
                            format!("unclosed delimiter `{open_text}`"),
                            start..end,
                            format!("expected `{close_text}` before this `{text}`"),
                        )
                        .with_label(os as usize..oe as usize, format!("this `{open_text}` is never closed")),
                    );
                    self.out.quiet.push(os as usize..end);
                    self.out.toks.push(closer);
                    self.out.spans.push((start as u32, start as u32));
                    self.pop_level();
                }
                self.pop_level();
                if tok == Tok::RBrace {
                    self.after_close = true;
                }
                true
            }
            None => {
                let mut d = Diagnostic::error(
                    codes::DYN0001,
                    format!("unexpected closing delimiter `{text}`"),
                    start..end,
                    "no matching opening delimiter",
                );
                if let Some(&(open, os, oe)) = self.stack.last() {
                    let open_text = open.fixed_text().unwrap_or("");
                    let close_text = open.closer().fixed_text().unwrap_or("");
                    d = d
                        .with_label(
                            os as usize..oe as usize,
                            format!("the innermost open delimiter is this `{open_text}`"),
                        )
                        .with_hint(format!("did you mean `{close_text}`?"));
                }
                self.out.diagnostics.push(d);
                false
            }
        }
    }

    fn close_all_at_eof(&mut self) {
        if self.stack.is_empty() {
            return;
        }
        let eof = self.src.len();
        let (first_open, _, _) = self.stack[self.stack.len() - 1];
        let open_text = first_open.fixed_text().unwrap_or("");
        let mut d = Diagnostic::error(
            codes::DYN0002,
            format!("unclosed delimiter `{open_text}`"),
            eof..eof,
            "the file ends here",
        );
        let n = self.stack.len();
        for (k, &(open, os, oe)) in self.stack.iter().rev().enumerate() {
            if k < 8 {
                let t = open.fixed_text().unwrap_or("");
                d = d.with_label(os as usize..oe as usize, format!("this `{t}` is never closed"));
            }
            self.out.quiet.push(os as usize..eof);
        }
        if n > 1 {
            d = d.with_note(format!("{n} delimiters are still open at the end of the file"));
        }
        self.out.diagnostics.push(d);
        while let Some((open, _, _)) = self.stack.last().copied() {
            self.out.toks.push(open.closer());
            self.out.spans.push((eof as u32, eof as u32));
            self.pop_level();
        }
    }

    fn invalid_char(&mut self, start: usize, end: usize) {
        match &mut self.invalid {
            Some((_, e)) if *e == start => *e = end,
            _ => {
                self.flush_invalid();
                self.invalid = Some((start, end));
            }
        }
    }

    fn flush_invalid(&mut self) {
        let Some((start, end)) = self.invalid.take() else {
            return;
        };
        let text = &self.src[start..end];
        let n = text.chars().count();
        let shown: String = text.chars().take(8).map(describe_char).collect();
        let shown = if n > 8 { format!("{shown}...") } else { shown };
        let first = text.chars().next().unwrap_or(' ');
        let mut d = Diagnostic::error(
            codes::DYN0003,
            if n == 1 {
                format!("invalid character `{shown}`")
            } else {
                format!("{n} invalid characters `{shown}`")
            },
            start..end,
            "not valid in .dyn source",
        );
        match first {
            '"' | '\'' => d = d.with_hint("WGSL has no string or character literals"),
            '#' => d = d.with_hint("comments start with `//` or `/*`"),
            '\u{1}'..='\u{8}' | '\u{E}'..='\u{1F}' | '\u{7F}' | '\u{FFFD}' => d = d.with_note("is this a binary file?"),
            _ => {}
        }
        self.out.diagnostics.push(d);
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        self.pos += 2;
        let mut depth = 1usize;
        // Openers of the comments still open, for the error (outermost first).
        let mut innermost_open = start;
        let mut nested = false;
        while !self.at_end() {
            let b = self.bytes[self.pos];
            if b == b'*' && self.peek(1) == b'/' {
                self.pos += 2;
                depth -= 1;
                if depth == 0 {
                    return;
                }
            } else if b == b'/' && self.peek(1) == b'*' {
                innermost_open = self.pos;
                nested = true;
                self.pos += 2;
                depth += 1;
            } else {
                self.pos += 1;
            }
        }
        let eof = self.src.len();
        self.flush_invalid();
        let mut d = Diagnostic::error(
            codes::DYN0002,
            "unterminated block comment",
            eof..eof,
            "the file ends inside the comment",
        )
        .with_label(start..start + 2, "the comment starts here");
        if depth > 1 {
            d = d
                .with_label(innermost_open..innermost_open + 2, "a nested comment starts here")
                .with_note(format!(
                    "block comments nest: {depth} `/*` are still open and each needs its own `*/`"
                ));
        } else if nested {
            d = d
                .with_note("block comments nest: the `*/` closed a nested `/*`, and each `/*` needs its own `*/`")
                .with_hint("add another `*/`");
        } else {
            d = d.with_hint("close the comment with `*/`");
        }
        self.out.diagnostics.push(d);
    }

    fn word(&mut self) {
        let start = self.pos;
        while !self.at_end() {
            let b = self.bytes[self.pos];
            if is_ident_continue(b) {
                self.pos += 1;
            } else if b >= 0x80 {
                let c = self.src[self.pos..].chars().next().unwrap_or(' ');
                if c.is_alphanumeric() {
                    self.pos += c.len_utf8();
                } else {
                    break;
                }
            } else {
                break;
            }
        }
        let tok = keyword(&self.src[start..self.pos]).unwrap_or(Tok::Ident);
        self.push(tok, start, self.pos);
    }

    fn number(&mut self) {
        let start = self.pos;
        let scan = crate::number::scan(self.src, start);
        self.pos = scan.end;
        if let Some((message, hint)) = scan.problem {
            let mut d = Diagnostic::error(codes::DYN0005, message, start..self.pos, "invalid literal");
            if let Some(h) = hint {
                d = d.with_hint(h);
            }
            self.flush_invalid();
            self.out.diagnostics.push(d);
        }
        self.push(if scan.is_int { Tok::Int } else { Tok::Float }, start, self.pos);
    }

    /// Lexes punctuation; returns false for a character that is not valid.
    fn punct(&mut self) -> bool {
        let start = self.pos;
        let b = self.bytes[start];
        let n1 = self.peek(1);
        let n2 = self.peek(2);
        let (tok, len) = match b {
            b'@' => (Tok::At, 1),
            b':' => (Tok::Colon, 1),
            b';' => (Tok::Semi, 1),
            b',' => (Tok::Comma, 1),
            b'.' => (Tok::Dot, 1),
            b'(' => (Tok::LParen, 1),
            b')' => (Tok::RParen, 1),
            b'[' => (Tok::LBracket, 1),
            b']' => (Tok::RBracket, 1),
            b'{' => (Tok::LBrace, 1),
            b'}' => (Tok::RBrace, 1),
            // `>` is never combined so that `array<atomic<u32>>` and `u32>=` lex as types.
            b'>' => (Tok::Gt, 1),
            b'<' => match (n1, n2) {
                (b'<', b'=') => (Tok::Op, 3),
                (b'<', _) => (Tok::Op, 2),
                (b'=', _) => (Tok::Le, 2),
                _ => (Tok::Lt, 1),
            },
            b'=' => match n1 {
                b'=' => (Tok::Op, 2),
                _ => (Tok::Eq, 1),
            },
            b'+' => match n1 {
                b'+' => (Tok::PlusPlus, 2),
                b'=' => (Tok::PlusEq, 2),
                _ => (Tok::Plus, 1),
            },
            b'-' => match n1 {
                b'>' => (Tok::Arrow, 2),
                b'-' | b'=' => (Tok::Op, 2),
                _ => (Tok::Minus, 1),
            },
            b'*' => match n1 {
                b'=' => (Tok::Op, 2),
                _ => (Tok::Star, 1),
            },
            b'/' => match n1 {
                b'=' => (Tok::Op, 2),
                _ => (Tok::Slash, 1),
            },
            b'&' | b'|' => {
                if n1 == b || n1 == b'=' {
                    (Tok::Op, 2)
                } else {
                    (Tok::Op, 1)
                }
            }
            b'%' | b'^' | b'!' => {
                if n1 == b'=' {
                    (Tok::Op, 2)
                } else {
                    (Tok::Op, 1)
                }
            }
            b'~' => (Tok::Op, 1),
            _ => return false,
        };
        self.pos += len;
        self.push(tok, start, self.pos);
        true
    }
}
