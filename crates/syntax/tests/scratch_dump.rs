fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    let rest = &s[s.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}
#[test]
fn dump() {
    let path = std::env::var("DYN_DUMP").unwrap_or_default();
    if path.is_empty() {
        return;
    }
    let src = std::fs::read_to_string(&path).unwrap();
    let t = std::time::Instant::now();
    let c0 = cpu();
    let p = dyngc_syntax::parse(&src);
    eprintln!("time {:?} cpu {:.2}", t.elapsed(), cpu() - c0);
    if std::env::var("DYN_QUIET").is_err() {
        eprintln!("{:#?}", p.file);
    }
    for d in p.diagnostics.iter().take(20) {
        eprintln!(
            "{} {:?} {} | {} | hint {:?} | {:?} {:?}",
            d.code, d.primary.span, d.message, d.primary.message, d.hint, d.secondary, d.notes
        );
    }
    eprintln!("items {} diags {}", p.file.items.len(), p.diagnostics.len());
}
