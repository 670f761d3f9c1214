//! Liveness classes (DESIGN.md): which arrays are temporaries that may be
//! remapped, and which are external and keep their layout.
//!
//! An array is external when it is referenced outside the SCoP, is a
//! global, a function parameter or `static`, or has its address taken.
//! Everything else is a temporary. `--temp NAME`, `#pragma polyfold
//! temp(NAME)` and `--live-out NAME` override the inference.

use crate::ir::{Array, Liveness, Storage};

/// User overrides of the inferred classes.
#[derive(Clone, Debug, Default)]
pub struct LivenessOverrides {
    /// Names forced to be temporaries (`--temp`, `#pragma polyfold temp`):
    /// `NAME`, or `FUNCTION:NAME` for the array of that function's SCoPs
    /// only (see [`LivenessOverrides::in_function`]).
    pub temp: Vec<String>,
    /// Names forced to be external (`--live-out`), written the same way.
    pub live_out: Vec<String>,
}

/// `FUNCTION:NAME` split into its parts; `NAME` alone has no function.
pub(crate) fn scoped_name(entry: &str) -> (Option<&str>, &str) {
    match entry.split_once(':') {
        Some((f, name)) => (Some(f.trim()), name.trim()),
        None => (None, entry.trim()),
    }
}

impl LivenessOverrides {
    /// The overrides that apply to the SCoPs of `function`: plain names,
    /// and the `FUNCTION:NAME` entries of this function without their
    /// prefix.
    pub(crate) fn in_function(&self, function: &str) -> LivenessOverrides {
        let keep = |list: &[String]| -> Vec<String> {
            list.iter()
                .filter_map(|e| match scoped_name(e) {
                    (Some(f), name) if f == function => Some(name.to_string()),
                    (Some(_), _) => None,
                    (None, name) => Some(name.to_string()),
                })
                .collect()
        };
        LivenessOverrides {
            temp: keep(&self.temp),
            live_out: keep(&self.live_out),
        }
    }
}

/// The class of an array and a sentence saying why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classification {
    pub liveness: Liveness,
    pub reason: String,
}

/// The names listed in `#pragma polyfold temp(a, b)` lines of `source`.
pub(crate) fn pragma_temps(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in source.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix("pragma") else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix("polyfold") else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix("temp") else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(rest) = rest.strip_prefix('(') else {
            continue;
        };
        let Some(end) = rest.find(')') else { continue };
        names.extend(
            rest[..end]
                .split(',')
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty()),
        );
    }
    names
}

/// Classifies one array.
pub(crate) fn classify(array: &Array, overrides: &LivenessOverrides) -> Classification {
    let named = |list: &[String]| list.contains(&array.name);
    if named(&overrides.live_out) {
        return Classification {
            liveness: Liveness::External,
            reason: "marked live-out by --live-out".into(),
        };
    }
    let f = &array.facts;
    if f.read_through_its_write {
        // Not a question of liveness, so `--temp` does not change it.
        return Classification {
            liveness: Liveness::External,
            reason: "a chained assignment (`a = b = k`) reads it through the reference that writes it: one text for two accesses".into(),
        };
    }
    if f.value_in_subscripts {
        return Classification {
            liveness: Liveness::External,
            reason: "subscripts or bounds use the value assigned to it in the SCoP, and their text names it".into(),
        };
    }
    if named(&overrides.temp) {
        // The user vouches for the values' death after the code they
        // marked, not for code outside this SCoP that reads them (another
        // SCoP of the same region, when polyfold splits it).
        if f.used_outside_scop {
            return Classification {
                liveness: Liveness::External,
                reason: "referenced outside the SCoP (--temp does not reach code outside the SCoP, such as another SCoP of the same region)".into(),
            };
        }
        return Classification {
            liveness: Liveness::Temporary,
            reason: "marked temporary by the user".into(),
        };
    }
    let external = |why: &str| Classification {
        liveness: Liveness::External,
        reason: why.to_string(),
    };
    match f.storage {
        Storage::Global => return external("global: other code may read or write it"),
        Storage::Static => return external("static: its values outlive the function"),
        Storage::FunctionParam => match &f.caller_owned {
            Some(Ok(sites)) if !f.address_taken && !f.used_outside_scop => {
                let callers: Vec<&str> = sites[1..].iter().map(|s| s.function.as_str()).collect();
                return Classification {
                    liveness: Liveness::Temporary,
                    reason: format!(
                        "every call passes a buffer that {} allocates and frees and reads nowhere else",
                        callers.join(", ")
                    ),
                };
            }
            Some(Err(why)) => {
                return external(&format!("function parameter: the caller owns it ({why})"));
            }
            _ => return external("function parameter: the caller owns it"),
        },
        Storage::Local => {}
    }
    if f.address_taken {
        return external("its address is taken");
    }
    if f.used_outside_scop {
        return external("referenced outside the SCoP");
    }
    if !f.declared_in_function {
        return external("not declared in the function of the SCoP");
    }
    Classification {
        liveness: Liveness::Temporary,
        reason: "local to the function and used only inside the SCoP".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pragma_names_are_collected() {
        let src =
            "int x;\n  #pragma polyfold temp(a, b2)\n#pragma scop\n# pragma polyfold temp( c )\n";
        assert_eq!(pragma_temps(src), vec!["a", "b2", "c"]);
    }
}
