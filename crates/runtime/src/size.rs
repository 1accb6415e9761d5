//! Byte sizes as people write them (`64KiB`, `16MiB`, `2MB`, `1000000`) and back.

/// Parses a byte count: a number (digits, optional `_` separators and an optional fraction) and
/// an optional unit, case-insensitive: `B`; decimal `KB`, `MB`, `GB`, `TB` (powers of 1000);
/// binary `KiB`, `MiB`, `GiB`, `TiB` and the short forms `K`, `M`, `G`, `T` (powers of 1024).
/// A fractional result is rounded down to a whole byte.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty size (expected e.g. `64MiB`, `2GB` or `1048576`)".into());
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (number, unit) = (&t[..split], t[split..].trim());
    let number: String = number.chars().filter(|&c| c != '_').collect();
    if number.is_empty() || !number.chars().any(|c| c.is_ascii_digit()) {
        return Err(format!(
            "`{text}` is not a size (expected a number with an optional unit, e.g. `64MiB`)"
        ));
    }
    if number.matches('.').count() > 1 {
        return Err(format!("`{text}` is not a size: more than one decimal point"));
    }
    let multiplier: u128 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "unknown size unit `{unit}` in `{text}` (use B, KB, MB, GB, KiB, MiB or GiB)"
            ))
        }
    };
    let (int, frac) = number.split_once('.').unwrap_or((&number, ""));
    let digits = format!("{int}{frac}");
    if digits.len() > 30 {
        return Err(format!("size `{text}` is too large"));
    }
    let mantissa: u128 = digits.parse().map_err(|_| format!("`{text}` is not a size"))?;
    let scale = 10u128.pow(frac.len() as u32);
    let bytes = mantissa
        .checked_mul(multiplier)
        .map(|b| b / scale)
        .filter(|&b| b <= u64::MAX as u128)
        .ok_or_else(|| format!("size `{text}` is too large"))?;
    Ok(bytes as u64)
}

/// Formats a byte count for people: `512 bytes`, `40 KiB`, `1.5 MiB`, `2.25 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return if bytes == 1 {
            "1 byte".into()
        } else {
            format!("{bytes} bytes")
        };
    }
    let mut unit = 0;
    let mut scale = 1024u64;
    while unit + 1 < UNITS.len() && bytes / scale >= 1024 {
        unit += 1;
        scale *= 1024;
    }
    // Two decimals, rounded down so a limit is never overstated, trailing zeros dropped.
    let hundredths = (bytes as u128 * 100 / scale as u128) as u64;
    let (whole, frac) = (hundredths / 100, hundredths % 100);
    let number = if frac == 0 {
        whole.to_string()
    } else if frac % 10 == 0 {
        format!("{whole}.{}", frac / 10)
    } else {
        format!("{whole}.{frac:02}")
    };
    format!("{number} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_size("1000000"), Ok(1_000_000));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("64kib"), Ok(65536));
        assert_eq!(parse_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("2MB"), Ok(2_000_000));
        assert_eq!(parse_size("2 MB"), Ok(2_000_000));
        assert_eq!(parse_size("512B"), Ok(512));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("1.5MiB"), Ok(1_572_864));
        assert_eq!(parse_size("1_000_000"), Ok(1_000_000));
        assert_eq!(parse_size(" 8M "), Ok(8 << 20));
        assert_eq!(parse_size("0"), Ok(0));
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_size("").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("-5").is_err());
        assert!(parse_size("12XB").unwrap_err().contains("unknown size unit `XB`"));
        assert!(parse_size("1.2.3").is_err());
        assert!(parse_size("99999999999999999999999GiB").is_err());
        assert!(parse_size("18446744073709551616").is_err());
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn formats() {
        assert_eq!(format_bytes(0), "0 bytes");
        assert_eq!(format_bytes(1), "1 byte");
        assert_eq!(format_bytes(1023), "1023 bytes");
        assert_eq!(format_bytes(1024), "1 KiB");
        assert_eq!(format_bytes(40960), "40 KiB");
        assert_eq!(format_bytes(1_572_864), "1.5 MiB");
        assert_eq!(format_bytes(1 << 30), "1 GiB");
        assert_eq!(format_bytes((1 << 30) + (1 << 28)), "1.25 GiB");
        assert_eq!(format_bytes(u64::MAX), "16383.99 PiB");
    }
}
