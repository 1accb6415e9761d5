#[test]
fn cases() {
    let dir = std::env::var("DYN_CASES").unwrap_or_default();
    if dir.is_empty() {
        return;
    }
    let text = std::fs::read_to_string(&dir).unwrap();
    for case in text.split("\n=====\n") {
        let p = dyngc_syntax::parse(case);
        eprintln!("----------------\n{}\n  items: {}", case.trim(), p.file.items.len());
        if std::env::var("DYN_TREE").is_ok() {
            eprintln!("{:#?}", p.file);
        }
        for d in &p.diagnostics {
            let s = &case[d.primary.span.clone()];
            eprintln!(
                "  {} {:?} `{}` {} | {} | hint {:?} | sec {:?} | notes {:?}",
                d.code,
                d.primary.span,
                s,
                d.message,
                d.primary.message,
                d.hint,
                d.secondary
                    .iter()
                    .map(|l| (l.span.clone(), l.message.clone()))
                    .collect::<Vec<_>>(),
                d.notes
            );
        }
    }
}
