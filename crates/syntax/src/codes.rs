//! The registry of diagnostic codes. Each code has a one-line title and a long explanation in
//! `docs/codes/CODE.md`, printed by `dyngc explain CODE`. Adding a code means adding a line here
//! and its file there. The files are included as `../codes/CODE.md`: `crates/syntax/codes` links
//! to `docs/codes` (one copy), and `cargo package` copies them through the link.

pub struct CodeInfo {
    pub code: &'static str,
    pub title: &'static str,
    pub explanation: &'static str,
}

pub const DYN0001: &str = "DYN0001";
pub const DYN0002: &str = "DYN0002";
pub const DYN0003: &str = "DYN0003";
pub const DYN0004: &str = "DYN0004";
pub const DYN0005: &str = "DYN0005";
pub const DYN0100: &str = "DYN0100";
pub const DYN0101: &str = "DYN0101";
pub const DYN0102: &str = "DYN0102";
pub const DYN0103: &str = "DYN0103";
pub const DYN0104: &str = "DYN0104";
pub const DYN0105: &str = "DYN0105";
pub const DYN0106: &str = "DYN0106";
pub const DYN0107: &str = "DYN0107";
pub const DYN0108: &str = "DYN0108";
pub const DYN0109: &str = "DYN0109";
pub const DYN0110: &str = "DYN0110";
pub const DYN0111: &str = "DYN0111";
pub const DYN0112: &str = "DYN0112";
pub const DYN0113: &str = "DYN0113";
pub const DYN0200: &str = "DYN0200";
pub const DYN0201: &str = "DYN0201";
pub const DYN0202: &str = "DYN0202";
pub const DYN0203: &str = "DYN0203";
pub const DYN0204: &str = "DYN0204";
pub const DYN0205: &str = "DYN0205";
pub const DYN0206: &str = "DYN0206";
pub const DYN0207: &str = "DYN0207";
pub const DYN0208: &str = "DYN0208";
pub const DYN0209: &str = "DYN0209";
pub const DYN0210: &str = "DYN0210";
pub const DYN0211: &str = "DYN0211";
pub const DYN0300: &str = "DYN0300";
pub const DYN0301: &str = "DYN0301";
pub const DYN0302: &str = "DYN0302";
pub const DYN0303: &str = "DYN0303";
pub const DYN0304: &str = "DYN0304";
pub const DYN0400: &str = "DYN0400";
pub const DYN0401: &str = "DYN0401";
pub const DYN0500: &str = "DYN0500";
pub const DYN0501: &str = "DYN0501";
pub const DYN0502: &str = "DYN0502";
pub const DYN0503: &str = "DYN0503";
pub const DYN0504: &str = "DYN0504";
pub const DYN0505: &str = "DYN0505";

pub const ALL: &[CodeInfo] = &[
    CodeInfo {
        code: DYN0001,
        title: "syntax error",
        explanation: include_str!("../codes/DYN0001.md"),
    },
    CodeInfo {
        code: DYN0002,
        title: "unclosed delimiter or comment",
        explanation: include_str!("../codes/DYN0002.md"),
    },
    CodeInfo {
        code: DYN0003,
        title: "invalid character",
        explanation: include_str!("../codes/DYN0003.md"),
    },
    CodeInfo {
        code: DYN0004,
        title: "input exceeds a parser limit",
        explanation: include_str!("../codes/DYN0004.md"),
    },
    CodeInfo {
        code: DYN0005,
        title: "invalid literal",
        explanation: include_str!("../codes/DYN0005.md"),
    },
    CodeInfo {
        code: DYN0100,
        title: "unknown name",
        explanation: include_str!("../codes/DYN0100.md"),
    },
    CodeInfo {
        code: DYN0101,
        title: "duplicate definition",
        explanation: include_str!("../codes/DYN0101.md"),
    },
    CodeInfo {
        code: DYN0102,
        title: "reserved name",
        explanation: include_str!("../codes/DYN0102.md"),
    },
    CodeInfo {
        code: DYN0103,
        title: "missing or repeated entry",
        explanation: include_str!("../codes/DYN0103.md"),
    },
    CodeInfo {
        code: DYN0104,
        title: "unknown or malformed attribute",
        explanation: include_str!("../codes/DYN0104.md"),
    },
    CodeInfo {
        code: DYN0105,
        title: "unsupported resource type",
        explanation: include_str!("../codes/DYN0105.md"),
    },
    CodeInfo {
        code: DYN0106,
        title: "bad length rule",
        explanation: include_str!("../codes/DYN0106.md"),
    },
    CodeInfo {
        code: DYN0107,
        title: "bad parameter",
        explanation: include_str!("../codes/DYN0107.md"),
    },
    CodeInfo {
        code: DYN0108,
        title: "unsupported payload type",
        explanation: include_str!("../codes/DYN0108.md"),
    },
    CodeInfo {
        code: DYN0109,
        title: "binding conflict",
        explanation: include_str!("../codes/DYN0109.md"),
    },
    CodeInfo {
        code: DYN0110,
        title: "bad fill value",
        explanation: include_str!("../codes/DYN0110.md"),
    },
    CodeInfo {
        code: DYN0111,
        title: "bad stage width",
        explanation: include_str!("../codes/DYN0111.md"),
    },
    CodeInfo {
        code: DYN0112,
        title: "keyed stage marked @width",
        explanation: include_str!("../codes/DYN0112.md"),
    },
    CodeInfo {
        code: DYN0113,
        title: "misdeclared stream",
        explanation: include_str!("../codes/DYN0113.md"),
    },
    CodeInfo {
        code: DYN0200,
        title: "payload mismatch at a spawn site",
        explanation: include_str!("../codes/DYN0200.md"),
    },
    CodeInfo {
        code: DYN0201,
        title: "fan-out and @index disagree",
        explanation: include_str!("../codes/DYN0201.md"),
    },
    CodeInfo {
        code: DYN0202,
        title: "bad keyed stage",
        explanation: include_str!("../codes/DYN0202.md"),
    },
    CodeInfo {
        code: DYN0203,
        title: "spawn in a loop without a constant trip count",
        explanation: include_str!("../codes/DYN0203.md"),
    },
    CodeInfo {
        code: DYN0204,
        title: "spawn outside a stage body",
        explanation: include_str!("../codes/DYN0204.md"),
    },
    CodeInfo {
        code: DYN0205,
        title: "bad entry stage",
        explanation: include_str!("../codes/DYN0205.md"),
    },
    CodeInfo {
        code: DYN0206,
        title: "barrier in a stage body",
        explanation: include_str!("../codes/DYN0206.md"),
    },
    CodeInfo {
        code: DYN0207,
        title: "too many spawns in one stage",
        explanation: include_str!("../codes/DYN0207.md"),
    },
    CodeInfo {
        code: DYN0208,
        title: "become in a wide stage",
        explanation: include_str!("../codes/DYN0208.md"),
    },
    CodeInfo {
        code: DYN0209,
        title: "lane builtin outside a wide stage",
        explanation: include_str!("../codes/DYN0209.md"),
    },
    CodeInfo {
        code: DYN0210,
        title: "emit into something that is not a stream",
        explanation: include_str!("../codes/DYN0210.md"),
    },
    CodeInfo {
        code: DYN0211,
        title: "emit count without a bound",
        explanation: include_str!("../codes/DYN0211.md"),
    },
    CodeInfo {
        code: DYN0300,
        title: "undeclared cycle",
        explanation: include_str!("../codes/DYN0300.md"),
    },
    CodeInfo {
        code: DYN0301,
        title: "tail loop without an exit condition",
        explanation: include_str!("../codes/DYN0301.md"),
    },
    CodeInfo {
        code: DYN0302,
        title: "unreachable stage",
        explanation: include_str!("../codes/DYN0302.md"),
    },
    CodeInfo {
        code: DYN0303,
        title: "declared bound the graph cannot meet",
        explanation: include_str!("../codes/DYN0303.md"),
    },
    CodeInfo {
        code: DYN0304,
        title: "bad graph-level loop",
        explanation: include_str!("../codes/DYN0304.md"),
    },
    CodeInfo {
        code: DYN0400,
        title: "WGSL syntax error in a body",
        explanation: include_str!("../codes/DYN0400.md"),
    },
    CodeInfo {
        code: DYN0401,
        title: "WGSL validation error",
        explanation: include_str!("../codes/DYN0401.md"),
    },
    CodeInfo {
        code: DYN0500,
        title: "internal error in the code generator",
        explanation: include_str!("../codes/DYN0500.md"),
    },
    CodeInfo {
        code: DYN0501,
        title: "work item too large",
        explanation: include_str!("../codes/DYN0501.md"),
    },
    CodeInfo {
        code: DYN0502,
        title: "workgroup memory over 16 KiB",
        explanation: include_str!("../codes/DYN0502.md"),
    },
    CodeInfo {
        code: DYN0503,
        title: "needs more than WebGPU's default limits",
        explanation: include_str!("../codes/DYN0503.md"),
    },
    CodeInfo {
        code: DYN0504,
        title: "lanes per worker the program cannot have",
        explanation: include_str!("../codes/DYN0504.md"),
    },
    CodeInfo {
        code: DYN0505,
        title: "spawns nest deeper than the executor counts",
        explanation: include_str!("../codes/DYN0505.md"),
    },
];

/// Looks a code up case-insensitively; `DYN1` and `dyn0001` both find `DYN0001`.
pub fn lookup(code: &str) -> Option<&'static CodeInfo> {
    let digits = code.trim().to_ascii_uppercase();
    let digits = digits.strip_prefix("DYN").unwrap_or(&digits);
    let n: u32 = digits.parse().ok()?;
    ALL.iter().find(|info| info.code[3..].parse::<u32>().ok() == Some(n))
}
