//! Limits and robustness: nothing panics, hangs or overflows the stack, whatever the input.

mod common;

use common::*;
use dyngc_syntax::ast::*;
use dyngc_syntax::codes::*;
use dyngc_syntax::limits::*;
use dyngc_syntax::parse;
use std::time::{Duration, Instant};

/// Runs `f` on a thread with a deliberately small stack (512 KiB), so that unbounded recursion
/// anywhere (parsing, or dropping the tree) would show up as a crash.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// CPU time used by the current thread, from `/proc/thread-self/stat` (Linux); wall-clock time
/// elsewhere. Timing assertions use CPU time so that a loaded machine does not make them flaky.
struct CpuTimer {
    wall: Instant,
    cpu: Option<f64>,
}

fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 2..)?.split(' ').collect();
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

impl CpuTimer {
    fn start() -> Self {
        CpuTimer {
            wall: Instant::now(),
            cpu: thread_cpu_seconds(),
        }
    }

    /// Seconds of CPU time (or wall time) since `start`.
    fn seconds(&self) -> f64 {
        match (self.cpu, thread_cpu_seconds()) {
            (Some(a), Some(b)) => b - a,
            _ => self.wall.elapsed().as_secs_f64(),
        }
    }
}

fn examples() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dyn"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn file_size_limit() {
    let src = " ".repeat(MAX_FILE_BYTES + 1);
    let p = parse(&src);
    assert_eq!(codes(&p.diagnostics), [DYN0004]);
    assert!(p.diagnostics[0].message.contains("file too large"));
    assert!(p.file.items.is_empty());
    // Exactly at the limit is fine.
    let src = " ".repeat(MAX_FILE_BYTES);
    assert!(parse(&src).diagnostics.is_empty());
}

#[test]
fn deep_nesting_is_rejected_at_the_first_too_deep_delimiter() {
    for (open, close) in [("{", "}"), ("(", ")"), ("[", "]")] {
        // `stage s() { x = ` puts the nest inside a statement; the body `{` is level 1.
        let prefix = "stage s() { x = ";
        let src = format!("{prefix}{}{}; }}", open.repeat(10_000), close.repeat(10_000));
        let t = Instant::now();
        let p = small_stack(move || {
            let p = parse(&src);
            check_spans(&src, &p);
            (p.diagnostics, p.file.items.len())
        });
        assert!(t.elapsed() < Duration::from_secs(30));
        let (diags, items) = p;
        assert_eq!(codes(&diags), [DYN0004], "{diags:#?}");
        assert_eq!(items, 0);
        // Level 1 is the body; the MAX_NESTING-th delimiter of the nest is one level too deep.
        let first_too_deep = prefix.len() + (MAX_NESTING - 1);
        assert_eq!(diags[0].primary.span, first_too_deep..first_too_deep + 1, "{open}");
    }
    // Unclosed: 10,000 `{` and nothing else.
    let src = format!("stage s() {}", "{".repeat(10_000));
    let p = small_stack(move || parse(&src).diagnostics);
    assert_eq!(codes(&p), [DYN0004]);
}

#[test]
fn nesting_at_the_limit_is_accepted() {
    // The stage body is level 1: 255 more braces reach exactly the limit.
    let src = format!(
        "stage s() {{{}{}}}",
        "{".repeat(MAX_NESTING - 1),
        "}".repeat(MAX_NESTING - 1)
    );
    let file = small_stack(move || parse_ok(&src));
    assert_eq!(file.items.len(), 1);
    let src = format!(
        "entry s({}1{});",
        "(".repeat(MAX_NESTING - 1),
        ")".repeat(MAX_NESTING - 1)
    );
    small_stack(move || parse_ok(&src));
    // One more is too deep.
    let src = format!("stage s() {{{}{}}}", "{".repeat(MAX_NESTING), "}".repeat(MAX_NESTING));
    assert_eq!(codes(&small_stack(move || parse(&src).diagnostics)), [DYN0004]);
}

#[test]
fn else_if_chains_count_as_nesting() {
    let chain = |n: usize| format!("stage s() {{ if a {{ }} {} }}", "else if a { } ".repeat(n));
    // Body (1) + MAX_NESTING - 2 `else if` + the last block (1) = MAX_NESTING.
    let src = chain(MAX_NESTING - 2);
    let file = small_stack(move || parse_ok(&src));
    let Item::Stage(s) = &file.items[0] else { panic!() };
    let mut depth = 0;
    let mut stmt = &s.body.stmts[0];
    while let Stmt::If { else_: Some(e), .. } = stmt {
        depth += 1;
        stmt = e;
    }
    assert_eq!(depth, MAX_NESTING - 2);
    let src = chain(10_000);
    let d = small_stack(move || parse(&src).diagnostics);
    assert_eq!(codes(&d), [DYN0004]);
}

#[test]
fn deep_types_and_long_size_expressions() {
    let src = format!("input a: {}f32{};", "vec3<".repeat(10_000), ">".repeat(10_000));
    let p = small_stack(move || {
        let p = parse(&src);
        check_spans(&src, &p);
        (p.diagnostics, p.file.items.len())
    });
    assert_eq!(codes(&p.0), [DYN0004]);
    assert!(p.0[0].message.contains("type nesting"));
    assert_eq!(p.1, 1);

    let src = format!("entry s({}1);\nparam n: u32;", "1 + ".repeat(100_000));
    let p = small_stack(move || {
        let p = parse(&src);
        check_spans(&src, &p);
        (p.diagnostics, p.file.items.len())
    });
    assert_eq!(codes(&p.0), [DYN0004]);
    assert!(p.0[0].message.contains("operators"));
    assert_eq!(p.1, 2);

    // At the limit: fine.
    let src = format!("entry s({}1);", "1 * ".repeat(MAX_SIZE_OPERATORS));
    small_stack(move || parse_ok(&src));
}

#[test]
fn deeply_nested_comments() {
    let src = format!("{}{}input a: u32;", "/*".repeat(10_000), "*/".repeat(10_000));
    let file = small_stack(move || parse_ok(&src));
    assert_eq!(file.items.len(), 1);
    let src = "/*".repeat(10_000);
    let d = small_stack(move || parse(&src).diagnostics);
    assert_eq!(codes(&d), [DYN0002]);
}

#[test]
fn binary_garbage() {
    // A deterministic pseudo-random byte soup (xorshift), lossily decoded.
    let mut x: u64 = 0x2545F4914F6CDD1D;
    let bytes: Vec<u8> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let src = String::from_utf8_lossy(&bytes).into_owned();
    let t = CpuTimer::start();
    let p = parse_checked(&src);
    assert!(t.seconds() < 5.0);
    assert!(!p.diagnostics.is_empty());
    assert!(p.diagnostics.len() <= MAX_DIAGNOSTICS + 1);

    // The same without NUL bytes: every run of junk is reported, up to the cap.
    let src: String = src.chars().filter(|&c| c != '\0').collect();
    let t = CpuTimer::start();
    let p = parse_checked(&src);
    assert!(t.seconds() < 5.0);
    assert_eq!(p.diagnostics.len(), MAX_DIAGNOSTICS + 1);
    assert_eq!(p.diagnostics.last().unwrap().code, DYN0004);
    assert!(p.diagnostics.last().unwrap().message.contains("too many syntax errors"));

    // Printable junk.
    let junk: String = (0..200_000u32)
        .map(|i| char::from(b"{}()[];:<>@,.=+-*/ab1"[(i * 7 % 21) as usize]))
        .collect();
    let t = Instant::now();
    let p = small_stack(move || {
        let p = parse(&junk);
        check_spans(&junk, &p);
        p.diagnostics.len()
    });
    assert!(t.elapsed() < Duration::from_secs(60));
    assert!(p > 0);
}

#[test]
fn nul_bytes_stop_the_parse() {
    let d = parse_err("input a: u32;\0\0\0 stage s() {}");
    assert_eq!(codes(&d), [DYN0003]);
    assert!(d[0].notes[0].contains("binary"));
}

#[test]
fn every_prefix_of_every_example() {
    for (name, src) in examples() {
        for end in (0..=src.len()).filter(|&i| src.is_char_boundary(i)) {
            let prefix = &src[..end];
            let p = parse(prefix);
            check_spans(prefix, &p);
            let _ = name.as_str();
        }
    }
}

#[test]
fn every_example_with_one_byte_removed() {
    for (_, src) in examples() {
        for i in (0..src.len()).filter(|&i| src.is_char_boundary(i) && src.is_char_boundary(i + 1)) {
            let mut s = src.clone();
            s.remove(i);
            let p = parse(&s);
            check_spans(&s, &p);
        }
    }
}

#[test]
fn ten_megabytes_of_valid_items_parse_quickly() {
    let (_, unit) = examples().into_iter().find(|(n, _)| n.ends_with("bfs.dyn")).unwrap();
    let unit = unit.replace("entry seed(1);", "");
    let mut src = String::with_capacity(11 << 20);
    let mut k = 0;
    while src.len() < 10 << 20 {
        src.push_str(
            &unit
                .replace("row_ptr", &format!("row_ptr{k}"))
                .replace("stage seed", &format!("stage seed{k}"))
                .replace("stage visit", &format!("stage visit{k}"))
                .replace("stage relax", &format!("stage relax{k}")),
        );
        k += 1;
    }
    src.push_str("entry seed0(1);\n");
    let t = CpuTimer::start();
    let p = parse(&src);
    let seconds = t.seconds();
    assert!(
        p.diagnostics.is_empty(),
        "{:#?}",
        &p.diagnostics[..p.diagnostics.len().min(5)]
    );
    // Per copy: 2 inputs, 1 param, 1 output, 3 stages.
    assert_eq!(p.file.items.len(), 7 * k + 1);
    eprintln!(
        "parsed {} bytes, {} items in {seconds:.2} s of CPU time",
        src.len(),
        p.file.items.len()
    );
    // About 1.5 s in a debug build, a fraction of that in release.
    assert!(seconds < 8.0, "took {seconds:.2} s");
}

#[test]
fn ten_megabytes_of_dense_statements_parse_quickly() {
    let mut src = String::from("stage s() {\n");
    while src.len() < 10 << 20 {
        src.push_str("x = a+b*c-d/e+f[g](h); spawn t(x);\n");
    }
    src.push_str("}\n");
    let t = CpuTimer::start();
    let p = parse(&src);
    let seconds = t.seconds();
    assert!(p.diagnostics.is_empty());
    eprintln!("parsed {} bytes in {seconds:.2} s of CPU time", src.len());
    assert!(seconds < 8.0, "took {seconds:.2} s");
}

#[test]
fn many_errors_are_capped() {
    let src = "input a b;\n".repeat(1000);
    let t = CpuTimer::start();
    let p = parse_checked(&src);
    assert!(t.seconds() < 5.0);
    assert_eq!(p.diagnostics.len(), MAX_DIAGNOSTICS + 1);
    assert!(p.diagnostics[..MAX_DIAGNOSTICS].iter().all(|d| d.code == DYN0001));
    assert_eq!(p.diagnostics[MAX_DIAGNOSTICS].code, DYN0004);
}
