//! Type expressions and struct declarations.

use super::*;

impl<'a> Checker<'a> {
    pub(in crate::check) fn resolve_ty(&mut self, te: &ast::TypeExpr) -> Result<Ty, TyError> {
        use Scalar::*;
        fn scalar(name: &str) -> Option<Scalar> {
            match name {
                "u32" => Some(U32),
                "i32" => Some(I32),
                "f32" => Some(F32),
                _ => None,
            }
        }
        let name = te.name.name.as_str();
        let unsupported = |s: String| Err(TyError::Unsupported(s));
        if let Some(s) = scalar(name) {
            return if te.args.is_empty() {
                Ok(Ty::Scalar(s))
            } else {
                unsupported(format!("`{name}` takes no type arguments"))
            };
        }
        let b = name.as_bytes();
        match name {
            "vec2" | "vec3" | "vec4" => {
                let n = b[3] - b'0';
                if te.args.len() != 1 {
                    return unsupported(format!("`{name}` takes one element type, as in `{name}<f32>`"));
                }
                let arg = &te.args[0];
                match scalar(&arg.name.name) {
                    Some(s) if arg.args.is_empty() => Ok(Ty::Vector(n, s)),
                    _ => unsupported(format!(
                        "vector elements must be `u32`, `i32` or `f32`, not `{}`",
                        arg.name.name
                    )),
                }
            }
            _ if b.len() == 5
                && name.starts_with("vec")
                && (b'2'..=b'4').contains(&b[3])
                && b"iufh".contains(&b[4]) =>
            {
                let s = match b[4] {
                    b'u' => U32,
                    b'i' => I32,
                    b'f' => F32,
                    _ => {
                        return unsupported(
                            "`f16` vectors need a device feature dyngc does not require; use `f32`".into(),
                        )
                    }
                };
                if te.args.is_empty() {
                    Ok(Ty::Vector(b[3] - b'0', s))
                } else {
                    unsupported(format!("`{name}` takes no type arguments"))
                }
            }
            "atomic" => match te.args.as_slice() {
                [arg] if arg.args.is_empty() && matches!(scalar(&arg.name.name), Some(U32 | I32)) => {
                    Ok(Ty::Atomic(scalar(&arg.name.name).unwrap_or(U32)))
                }
                _ => unsupported("only `atomic<u32>` and `atomic<i32>` exist".into()),
            },
            "bool" => unsupported("`bool` has no fixed memory layout; use `u32` (0 or 1)".into()),
            "f16" => unsupported("`f16` needs a device feature dyngc does not require; use `f32`".into()),
            "array" => Err(TyError::Array),
            _ if crate::check::names::is_builtin_type(name) => unsupported(format!("`{name}` is not supported here")),
            _ => match self.lookup(name, |k| matches!(k, GlobalKind::Struct(_))) {
                Some(GlobalKind::Struct(i)) => {
                    if te.args.is_empty() {
                        Ok(Ty::Struct(i))
                    } else {
                        unsupported(format!("struct `{name}` takes no type arguments"))
                    }
                }
                Some(GlobalKind::Helper(ast::WgslItemKind::Alias)) => unsupported(format!(
                    "`{name}` is a type alias; aliases cannot be used here, write the type out"
                )),
                Some(other) => {
                    let d = Diagnostic::error(
                        DYN0100,
                        format!("`{name}` is not a type"),
                        te.name.span.clone(),
                        format!("`{name}` is {}, not a type", other.describe()),
                    );
                    self.error(d);
                    Err(TyError::Reported)
                }
                None => {
                    const TYPES: &[&str] = &["u32", "i32", "f32", "vec2", "vec3", "vec4", "atomic"];
                    let hint = self.suggest(name, TYPES, |k| matches!(k, GlobalKind::Struct(_)));
                    let mut d = Diagnostic::error(
                        DYN0100,
                        format!("unknown type `{name}`"),
                        te.name.span.clone(),
                        "no struct or type has this name",
                    );
                    if let Some(c) = hint {
                        d = d.with_hint(format!("did you mean `{c}`?"));
                    }
                    self.error(d);
                    Err(TyError::Reported)
                }
            },
        }
    }

    pub(in crate::check) fn check_structs(&mut self) -> Structs {
        let decls = self.structs.raw().to_vec();
        let mut defs = Vec::new();
        for s in &decls {
            let mut fields = Vec::new();
            let mut seen: std::collections::HashMap<&str, &ast::Ident> = Default::default();
            if s.fields.is_empty() {
                let d = Diagnostic::error(
                    DYN0105,
                    format!("struct `{}` has no fields", s.name.name),
                    s.name.span.clone(),
                    "WGSL structs need at least one field",
                );
                self.error(d);
            }
            for f in &s.fields {
                self.check_reserved(&f.name);
                if let Some(first) = seen.get(f.name.name.as_str()) {
                    let d = Diagnostic::error(
                        DYN0101,
                        format!("field `{}` is defined more than once in `{}`", f.name.name, s.name.name),
                        f.name.span.clone(),
                        "redefined here",
                    )
                    .with_label(first.span.clone(), "first defined here");
                    self.error(d);
                }
                seen.entry(&f.name.name).or_insert(&f.name);
                let ty = match self.resolve_ty(&f.ty) {
                    Ok(t) => t,
                    Err(e @ (TyError::Unsupported(_) | TyError::Array)) => {
                        let why = match e {
                            TyError::Unsupported(why) => why,
                            _ => "a struct field cannot be an array".into(),
                        };
                        let d = Diagnostic::error(
                            DYN0105,
                            format!("unsupported type in field `{}` of struct `{}`", f.name.name, s.name.name),
                            f.ty.span.clone(),
                            why,
                        )
                        .with_note("struct fields may be u32, i32, f32, vectors of those, atomic<u32>/atomic<i32> and other structs, so that every struct can be a resource element or a payload");
                        self.error(d);
                        Ty::Scalar(Scalar::U32)
                    }
                    Err(TyError::Reported) => Ty::Scalar(Scalar::U32),
                };
                fields.push((f.name.name.clone(), ty));
            }
            defs.push(StructDef {
                name: s.name.name.clone(),
                fields,
                span: s.span.clone(),
            });
        }
        // A struct must not contain itself. Structs are processed dependencies first (Kahn's
        // algorithm, no recursion: a file may hold a very long chain of structs); what is left
        // over lies on or behind a cycle.
        let n = defs.len();
        let mut pending = vec![0usize; n];
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, d) in defs.iter().enumerate() {
            for (_, ty) in &d.fields {
                if let Ty::Struct(j) = ty {
                    pending[i] += 1;
                    users[j.index()].push(i);
                }
            }
        }
        let mut atomic = vec![false; n];
        let mut words = vec![0u64; n];
        let mut depth = vec![1usize; n];
        let mut ready: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
        let mut done = 0;
        while let Some(i) = ready.pop() {
            done += 1;
            for (_, ty) in &defs[i].fields {
                let (a, w) = match ty {
                    Ty::Scalar(_) => (false, 1),
                    Ty::Atomic(_) => (true, 1),
                    Ty::Vector(k, _) => (false, u64::from(*k)),
                    Ty::Struct(j) => {
                        depth[i] = depth[i].max(depth[j.index()] + 1);
                        (atomic[j.index()], words[j.index()])
                    }
                };
                atomic[i] |= a;
                words[i] = words[i].saturating_add(w);
            }
            for &u in &users[i] {
                pending[u] -= 1;
                if pending[u] == 0 {
                    ready.push(u);
                }
            }
        }
        let acyclic = done == n;
        // Deeply nested structs are useless as payloads and resources, and naga (here and in
        // the code generator) recurses over them.
        if let Some(i) = (0..n).find(|&i| depth[i] > MAX_STRUCT_NESTING) {
            let d = Diagnostic::error(
                DYN0105,
                format!("struct `{}` nests {} structs deep", defs[i].name, depth[i]),
                decls[i].name.span.clone(),
                format!("structs may nest at most {MAX_STRUCT_NESTING} deep"),
            )
            .with_hint("flatten the struct");
            self.error(d);
        }
        if !acyclic {
            let (comp, comps) = crate::check::graph::components(
                n,
                defs.iter().enumerate().flat_map(|(i, d)| {
                    d.fields.iter().filter_map(move |(_, t)| match t {
                        Ty::Struct(j) => Some((i, j.index())),
                        _ => None,
                    })
                }),
            );
            for members in &comps {
                // The first field (in source order) that closes a cycle in this component.
                let mut first: Option<(usize, usize, usize)> = None;
                for &i in members {
                    for (fi, (_, ty)) in defs[i].fields.iter().enumerate() {
                        if let Ty::Struct(j) = ty {
                            let start = decls[i].fields[fi].ty.span.start;
                            if comp[j.index()] == comp[i] && first.is_none_or(|(_, _, s)| start < s) {
                                first = Some((i, fi, start));
                            }
                        }
                    }
                }
                if let Some((i, fi, _)) = first {
                    let field = &decls[i].fields[fi];
                    let d = Diagnostic::error(
                        DYN0105,
                        format!("struct `{}` contains itself", defs[i].name),
                        field.ty.span.clone(),
                        format!(
                            "`{}` leads back to `{}`, so `{}` would be infinitely large",
                            field.name.name, defs[i].name, defs[i].name
                        ),
                    );
                    self.error(d);
                }
            }
        }
        Structs {
            defs: IdVec::from_vec(defs),
            acyclic,
            atomic,
            words,
        }
    }

    /// True if `ty` is or contains an atomic.
    pub(in crate::check) fn contains_atomic(ty: &Ty, structs: &Structs) -> bool {
        match ty {
            Ty::Atomic(_) => true,
            Ty::Struct(i) => structs.atomic.get(i.index()).copied().unwrap_or(false),
            _ => false,
        }
    }
}
