//! Name helpers: reserved names and "did you mean" suggestions.

/// Why `name` cannot be used for a user declaration, if it cannot.
pub(super) fn reserved(name: &str) -> Option<String> {
    if is_generated(name) {
        return Some(GENERATED.into());
    }
    if naga::keywords::wgsl::RESERVED.contains(&name) {
        return Some(format!("`{name}` is a WGSL keyword or reserved word"));
    }
    if is_builtin_type(name) {
        return Some(format!("`{name}` is a WGSL type name"));
    }
    None
}

/// Why every name in the generator's namespace is refused.
pub(super) const GENERATED: &str =
    "names starting with `dyn_` (in any case) or `Dyn` and a capital letter are reserved for the code dyngc generates";

/// The generator's namespace: every module-scope name dyngc emits is `dyn_…`, `DYN_…` or
/// `Dyn…` (`DynParams`), so no user name can be one of them.
pub(super) fn is_generated(name: &str) -> bool {
    let b = name.as_bytes();
    (b.len() >= 4 && b[..4].eq_ignore_ascii_case(b"dyn_"))
        || (name.starts_with("Dyn") && b.get(3).is_some_and(u8::is_ascii_uppercase))
}

/// Why `name` cannot be a module-scope WGSL declaration (a resource, parameter, struct or
/// helper), if it cannot: besides [`reserved`], WGSL's predeclared functions, types and
/// enumerants. A module-scope declaration would shadow one of them for the whole module, the
/// generated scheduler included (a helper `fn select` rewired its `select` calls).
pub(super) fn reserved_global(name: &str) -> Option<String> {
    reserved(name).or_else(|| {
        naga::keywords::wgsl::BUILTIN_IDENTIFIERS
            .contains(&name)
            .then(|| format!("`{name}` is predeclared in WGSL (a built-in function, type or enumerant); the generated scheduler uses it too"))
    })
}

/// WGSL's predeclared type names and type generators, shorthands included.
pub(super) fn is_builtin_type(name: &str) -> bool {
    const TYPES: &[&str] = &[
        "bool",
        "i32",
        "u32",
        "f32",
        "f16",
        "array",
        "atomic",
        "vec2",
        "vec3",
        "vec4",
        "ptr",
        "sampler",
        "sampler_comparison",
    ];
    if TYPES.contains(&name) || name.starts_with("texture_") {
        return true;
    }
    let b = name.as_bytes();
    // vec2i, vec3f, vec4h, vec2u
    if b.len() == 5 && name.starts_with("vec") && (b'2'..=b'4').contains(&b[3]) && b"iufh".contains(&b[4]) {
        return true;
    }
    // mat2x3, mat4x4f, mat3x2h
    if (b.len() == 6 || b.len() == 7)
        && name.starts_with("mat")
        && (b'2'..=b'4').contains(&b[3])
        && b[4] == b'x'
        && (b'2'..=b'4').contains(&b[5])
    {
        return b.len() == 6 || b"fh".contains(&b[6]);
    }
    false
}

/// `` a `u32` ``, `` an `i32` ``: a type or name in backticks with its indefinite article, as
/// it is read aloud (`u32` is "you-thirty-two", `f32` "eff-thirty-two").
pub(super) fn with_article(name: &str) -> String {
    let b = name.as_bytes();
    let spelled_letter = b.len() > 1 && b[1].is_ascii_digit();
    let an = match b.first() {
        Some(b'a' | b'e' | b'i' | b'o') => true,
        Some(b'f' | b'h' | b'l' | b'm' | b'n' | b'r' | b's' | b'x') => spelled_letter,
        _ => false,
    };
    format!("{} `{name}`", if an { "an" } else { "a" })
}

/// The candidate closest to `name`, if one is close enough to be a plausible typo.
pub(super) fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        // Optimal string alignment: an adjacent transposition is one edit (`chlid` is one from `child`).
        let d = strsim::osa_distance(name, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        // One transposition is one edit, within the limit of one for short names.
        assert_eq!(closest("chlid", ["child", "root"]), Some("child"));
        assert_eq!(closest("f23", ["f32", "u32"]), Some("f32"));
        assert_eq!(closest("cuont", ["count", "root"]), Some("count"));
        assert_eq!(with_article("u32"), "a `u32`");
        assert_eq!(with_article("i32"), "an `i32`");
        assert_eq!(with_article("f32"), "an `f32`");
        assert_eq!(with_article("array<u32>"), "an `array<u32>`");
        assert_eq!(with_article("vec3<f32>"), "a `vec3<f32>`");
        assert_eq!(with_article("bool"), "a `bool`");
        assert_eq!(closest("nod", ["node", "child", "root"]), Some("node"));
        assert_eq!(closest("xyz", ["node", "child"]), None);
        assert!(reserved("dyn_x").is_some());
        assert!(reserved("loop").is_some());
        assert!(reserved("vec3f").is_some());
        assert!(reserved("mat4x4").is_some());
        assert!(reserved("node").is_none());
        assert!(reserved("matrix").is_none());
        assert!(reserved("DYN_WG").is_some());
        assert!(reserved("Dyn_x").is_some());
        assert!(reserved("DynParams").is_some());
        assert!(reserved("Dynamic").is_none());
        assert!(reserved("dyn").is_none());
        assert!(reserved("select").is_none());
        assert!(reserved_global("select").is_some());
        assert!(reserved_global("atomicAdd").is_some());
        assert!(reserved_global("storage").is_some());
        assert!(reserved_global("selection").is_none());
    }
}
