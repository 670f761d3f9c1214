//! The `--emit scop` text form of the IR.
//!
//! Every set and relation is printed in isl notation on one line after a
//! `key: ` prefix, so that it can be pasted into islpy or iscc; everything
//! else is a `#` comment or a plain `key: value` line. The output is
//! deterministic: it depends only on the IR.

use std::fmt::Write;

use super::scop::{Access, ParamOrigin, Program, SchedEntry, Scop, ScopKind, Stmt, Storage};

/// The dump of every SCoP of a program, preceded by a `# file:` line.
pub fn emit_program(p: &Program) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# file: {} ({} SCoP{})",
        p.path,
        p.scops.len(),
        if p.scops.len() == 1 { "" } else { "s" }
    );
    for s in &p.scops {
        out.push_str(&emit_scop(s, &p.source));
    }
    out
}

fn line_of(source: &str, offset: usize) -> usize {
    source.as_bytes()[..offset.min(source.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

fn params_prefix(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!("[{}] -> ", names.join(", "))
    }
}

fn origin_text(o: ParamOrigin) -> &'static str {
    match o {
        ParamOrigin::Define => "#define",
        ParamOrigin::CommandLine => "-D",
        ParamOrigin::FunctionParam => "function parameter",
        ParamOrigin::ConstGlobal => "const global",
        ParamOrigin::Variable => "variable not written in the SCoP",
    }
}

/// The dump of one SCoP.
pub fn emit_scop(scop: &Scop, source: &str) -> String {
    let mut out = String::new();
    let names = scop.param_names();
    let pre = params_prefix(&names);
    let _ = writeln!(
        out,
        "scop {} in function {}, lines {}-{} ({})",
        scop.id.0,
        scop.function,
        line_of(source, scop.span.start),
        line_of(source, scop.span.end.saturating_sub(1)),
        match scop.kind {
            ScopKind::Pragma => "#pragma scop",
            ScopKind::Inferred => "inferred",
        }
    );
    let _ = writeln!(out, "  params: [{}]", names.join(", "));
    if !scop.params.is_empty() {
        let parts: Vec<String> = scop
            .params
            .iter()
            .map(|p| match p.value {
                Some(v) if p.value_used => format!(
                    "{} = {v} ({}; value used by the model)",
                    p.name,
                    origin_text(p.origin)
                ),
                Some(v) => format!("{} = {v} ({})", p.name, origin_text(p.origin)),
                None => format!("{} ({})", p.name, origin_text(p.origin)),
            })
            .collect();
        let _ = writeln!(out, "  # {}", parts.join(", "));
    }
    let context = scop.context.constraints_to_isl();
    if context.is_empty() {
        let _ = writeln!(out, "  context: {pre}{{ : }}");
    } else {
        let _ = writeln!(out, "  context: {pre}{{ : {context} }}");
    }
    for a in &scop.arrays {
        let dims: String = a
            .extents
            .iter()
            .map(|e| match &e.aff {
                Some(aff) => format!("[{}]", aff.to_isl(&names)),
                None => format!("[{}]", e.text),
            })
            .collect();
        let f = &a.facts;
        let storage = match f.storage {
            Storage::Local => "local",
            Storage::Static => "static",
            Storage::Global => "global",
            Storage::FunctionParam => "function parameter",
        };
        let mut facts = vec![storage.to_string()];
        if f.address_taken {
            facts.push("address taken".into());
        }
        if f.read_through_its_write {
            facts.push("read through its write".into());
        }
        if f.value_in_subscripts {
            facts.push("value in subscripts".into());
        }
        if f.used_outside_scop {
            facts.push("used outside the SCoP".into());
        }
        if !f.declared_in_function {
            facts.push("declared outside the function".into());
        }
        let _ = writeln!(
            out,
            "  array {}: {}{dims} ({})",
            a.name,
            a.elem_type,
            facts.join(", ")
        );
    }
    for s in &scop.stmts {
        emit_stmt(&mut out, scop, s, &names, source);
    }
    out
}

fn emit_stmt(out: &mut String, scop: &Scop, s: &Stmt, params: &[String], source: &str) {
    let pre = params_prefix(params);
    let body: Vec<&str> = s.body_text.split_whitespace().collect();
    let _ = writeln!(out, "  {}: {}", s.name, body.join(" "));
    let tuple = format!("{}[{}]", s.name, s.iterators.join(", "));
    if s.domain.pieces.is_empty() {
        // isl cannot read `{  }` as a set; spell the empty set out.
        let _ = writeln!(out, "    domain: {pre}{{ {tuple} : false }}");
    } else {
        let _ = writeln!(out, "    domain: {}", s.domain);
    }
    let sched: Vec<String> = s
        .schedule
        .iter()
        .map(|e| match e {
            SchedEntry::Const(c) => c.to_string(),
            SchedEntry::Iter { index, sign } => {
                let it = &s.iterators[*index];
                if *sign < 0 {
                    format!("-{it}")
                } else {
                    it.clone()
                }
            }
        })
        .collect();
    let _ = writeln!(out, "    schedule: {{ {tuple} -> [{}] }}", sched.join(", "));
    // Loops marked parallel, as a comment line (isl has no such notion).
    let marks: Vec<String> = s
        .parallel
        .iter()
        .enumerate()
        .filter_map(|(k, m)| {
            let m = m.as_ref()?;
            Some(format!(
                "{} (#pragma {}, line {})",
                s.iterators.get(k)?,
                m.directive,
                line_of(source, m.span.start)
            ))
        })
        .collect();
    if !marks.is_empty() {
        let _ = writeln!(out, "    # parallel: {}", marks.join(", "));
    }
    // Quotient dimensions, as a comment line (the domain defines them).
    if !s.quotients.is_empty() {
        let nl = s.loop_depth();
        let defs: Vec<String> = s
            .quotients
            .iter()
            .enumerate()
            .map(|(k, text)| format!("{} = {text}", s.iterators[nl + k]))
            .collect();
        let _ = writeln!(out, "    # quotients: {}", defs.join(", "));
    }
    let mut vars: Vec<String> = params.to_vec();
    vars.extend(s.iterators.iter().cloned());
    let access = |a: &Access| -> String {
        let subs: Vec<String> = a.subscripts.iter().map(|x| x.to_isl(&vars)).collect();
        format!(
            "{pre}{{ {tuple} -> {}[{}] }}",
            scop.arrays[a.array.0 as usize].name,
            subs.join(", ")
        )
    };
    let _ = writeln!(out, "    write: {}", access(&s.write));
    for r in &s.reads {
        let _ = writeln!(out, "    read: {}", access(r));
    }
}

#[cfg(test)]
mod tests {
    use crate::poly::isl_print::format_affine;

    #[test]
    fn formats_a_schedule_sign() {
        assert_eq!(
            format_affine(&[1, -2], 3, &["N".into(), "i".into()]),
            "N - 2i + 3"
        );
    }
}
