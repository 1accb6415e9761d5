//! Errors to diagnostics.

use super::*;

pub(super) fn describe_tok(t: Tok) -> String {
    match t {
        Tok::Ident => "identifier".into(),
        Tok::Int => "integer literal".into(),
        Tok::Float => "float literal".into(),
        Tok::Op => "operator".into(),
        _ => format!("`{}`", t.fixed_text().unwrap_or("?")),
    }
}

pub(super) fn describe_found(c: Ctx<'_>, i: usize) -> String {
    match c.tok(i) {
        None => "end of file".into(),
        Some(t) => {
            let text = c.text(i);
            match t {
                Tok::Ident => format!("identifier `{text}`"),
                Tok::Int => format!("integer literal `{text}`"),
                Tok::Float => format!("float literal `{text}`"),
                Tok::Op => format!("`{text}`"),
                _ if t.is_keyword() => format!("keyword `{text}`"),
                _ => format!("`{}`", t.fixed_text().unwrap_or("?")),
            }
        }
    }
}

pub(super) fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [a, b] => format!("{a} or {b}"),
        _ => {
            let shown = &items[..items.len().min(8)];
            let (last, init) = shown.split_last().expect("non-empty");
            if items.len() > shown.len() {
                format!("one of {}, {}, ...", init.join(", "), last)
            } else {
                format!("one of {} or {}", init.join(", "), last)
            }
        }
    }
}

pub(super) fn to_diagnostic(c: Ctx<'_>, err: PErr<'_>) -> Diagnostic {
    let i = err.span().start;
    let (expected, found) = match err.into_reason() {
        RichReason::Custom(Custom(d)) => return *d,
        RichReason::ExpectedFound { expected, found } => (expected, found.map(|f| *f)),
    };
    let n = c.toks.len();
    let i = if found.is_some() { i.min(n) } else { n };
    let mut exp: Vec<String> = Vec::new();
    for p in &expected {
        let s = match p {
            RichPattern::Token(t) => describe_tok(**t),
            RichPattern::Label(l) => l.to_string(),
            RichPattern::EndOfInput => "end of file".into(),
            RichPattern::Identifier(s) => format!("`{s}`"),
            RichPattern::Any => "any token".into(),
            _ => continue,
        };
        if !exp.contains(&s) {
            exp.push(s);
        }
    }
    let found_desc = describe_found(c, i);
    let span = if i < n {
        c.range(i, i + 1)
    } else {
        c.src.len()..c.src.len()
    };
    let message = if exp.is_empty() {
        format!("unexpected {found_desc}")
    } else {
        format!("expected {}, found {found_desc}", join_or(&exp))
    };
    let label = if i < n {
        format!("unexpected {}", describe_found(c, i))
    } else {
        "the file ends here".into()
    };
    let mut d = Diagnostic::error(codes::DYN0001, message, span, label);

    let expects = |s: &str| exp.iter().any(|e| e == s);
    let found_tok = c.tok(i);
    if expects("`;`")
        && i > 0
        && (found_tok.is_none()
            || found_tok == Some(Tok::RBrace)
            || found_tok.is_some_and(Tok::starts_item)
            || c.newline_between(i - 1, i))
    {
        let p = c.end(i - 1);
        d = d
            .with_label(p..p, "`;` expected here")
            .with_hint("did you forget a `;`?");
    } else if let Some(t) = found_tok {
        if t.is_keyword() && (expects("identifier") || expects("stage name") || expects("type")) {
            d = d.with_hint(format!(
                "`{}` is a reserved word and cannot be used as a name",
                c.text(i)
            ));
        } else if t == Tok::Semi && expects("`,`") && expects("`)`") {
            d = d.with_hint("list elements are separated by `,`");
        } else if expects("block") && exp.len() <= 2 {
            d = d.with_hint("write the body in braces: `{ ... }`");
        } else if t == Tok::Until {
            d = d.with_hint("a graph-level loop is written `entry loop stage(count) until { ... }`");
        } else if (expects("item") && t == Tok::Ident && matches!(c.text(i), "var" | "let" | "override"))
            || (i > 0 && c.text(i - 1) == "var" && expects("`<`"))
        {
            d = d.with_note(
                "the only module-scope variables of .dyn are `var<workgroup> name: T;`: declare storage with \
                 `input`, `output` or `buffer`, run-time values with `param`, and constants with `const`",
            );
        } else if expects("item") && matches!(t, Tok::Spawn | Tok::Become | Tok::Emit) {
            d = d.with_hint(format!("`{}` is a statement: it belongs in a stage body", c.text(i)));
        } else if expects("item") && t == Tok::Semi {
            d = d.with_hint("remove this `;`: only `struct` and `entry loop` declarations may end with one");
        } else if expects("item") && !expects("`(`") {
            d = d.with_note(
                "a .dyn file contains only `input`, `output`, `buffer`, `param`, `struct`, `fn`, `const`, \
                 `alias`, `var<workgroup>`, `stage` and `entry` declarations",
            );
        }
    }
    d
}
