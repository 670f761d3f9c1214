//! C text of affine expressions, shared by the mapping printers and code
//! generation: `2 * N - M - 3`, with an explicit `*` (isl writes `2N`),
//! positive terms as given, constants folded at the end.

/// `Σ coeff·term + constant` as C text. `term` strings are inserted as they
/// are (callers parenthesise compound terms).
pub fn affine_text(terms: &[(i64, String)], constant: i64) -> String {
    let mut out = String::new();
    for (c, term) in terms {
        if *c == 0 {
            continue;
        }
        let mag = c.unsigned_abs();
        let body = if mag == 1 {
            term.clone()
        } else {
            format!("{mag} * {term}")
        };
        if out.is_empty() {
            out = if *c < 0 { format!("-{body}") } else { body };
        } else {
            out.push_str(if *c < 0 { " - " } else { " + " });
            out.push_str(&body);
        }
    }
    if out.is_empty() {
        return constant.to_string();
    }
    if constant > 0 {
        out.push_str(&format!(" + {constant}"));
    } else if constant < 0 {
        out.push_str(&format!(" - {}", constant.unsigned_abs()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::affine_text;

    #[test]
    fn prints_c() {
        let t = |c: i64, s: &str| (c, s.to_string());
        assert_eq!(affine_text(&[t(2, "N0"), t(-1, "M")], -3), "2 * N0 - M - 3");
        assert_eq!(affine_text(&[t(0, "N")], 7), "7");
        assert_eq!(affine_text(&[t(-1, "(k - 1)")], 4), "-(k - 1) + 4");
    }
}
