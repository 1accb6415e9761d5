#[test]
fn timing() {
    let p = std::env::var("SCRATCH_FILE").unwrap();
    let src = std::fs::read_to_string(p).unwrap();
    let t = std::time::Instant::now();
    let parsed = dyngc_syntax::parse(&src);
    eprintln!("parse {:?} {} diags", t.elapsed(), parsed.diagnostics.len());
    let t = std::time::Instant::now();
    if !parsed.has_errors() {
        let c = dyngc_ir::check(&parsed.file, &src, "x");
        eprintln!("check {:?} {} diags", t.elapsed(), c.diagnostics.len());
    }
}
