//! Diagnostics as a SARIF 2.1.0 log (`--message-format sarif`), the
//! format code-scanning services (GitHub code scanning, GitLab, Azure
//! DevOps) read to show diagnostics inline.
//!
//! One log per run, with one run whose tool driver is polyfold: its rules
//! are every diagnostic code ([`Code::ALL`]), each result a diagnostic
//! with its rule, level, message and location (the file as given on the
//! command line, a relative URI; the region's line and column are 1-based,
//! columns counted in Unicode code points, as `columnKind` says).
//! polyfold's own messages (a file that cannot be read, a file that would
//! change) are tool execution notifications of the run's invocation.

use serde_json::{Value, json};

use super::{Code, Diagnostic, Severity, line_col, shortened};

/// The SARIF level of a severity.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// The rule of every code, in the order of [`Code::ALL`] (a result's
/// `ruleIndex` indexes this list).
fn rules() -> Vec<Value> {
    Code::ALL
        .iter()
        .map(|&code| {
            let e = code.explanation();
            json!({
                "id": code.as_str(),
                "name": code.title(),
                "shortDescription": { "text": code.title() },
                "fullDescription": { "text": format!("{}.", e.trigger) },
                "help": {
                    "text": format!("Why: {}. What to do: {}. (`polyfold explain {}`)", e.why, e.fix, code.as_str()),
                },
                "defaultConfiguration": { "level": level(code.severity()) },
            })
        })
        .collect()
}

/// `path` as a URI: a relative reference for a relative path, a `file:`
/// URI for an absolute one; `/` separators, and the characters a URI
/// cannot hold percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    } else if path.as_bytes().get(1) == Some(&b':') {
        out.push_str("file:///");
    }
    for c in path.chars() {
        match c {
            '\\' => out.push('/'),
            c if c.is_ascii_alphanumeric() || "/-._~:@!$&'()*+,;=".contains(c) => out.push(c),
            c => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
    }
    out
}

/// The result of diagnostic `d` about `source`, read as `path`.
pub(crate) fn result(path: &str, source: &str, d: &Diagnostic) -> Value {
    let d = shortened(d);
    let mut location = json!({ "artifactLocation": { "uri": uri(path) } });
    // A whole-file note has no region.
    if !(d.span.is_empty() && d.label.is_empty()) {
        let (start_line, start_column) = line_col(source, d.span.start);
        let (end_line, end_column) = line_col(source, d.span.end.max(d.span.start));
        location["region"] = json!({
            "startLine": start_line,
            "startColumn": start_column,
            "endLine": end_line,
            "endColumn": end_column,
        });
    }
    let mut text = d.message.clone();
    if !d.label.is_empty() {
        text.push_str(&format!(": {}", d.label));
    }
    for n in &d.notes {
        text.push_str(&format!(" ({n})"));
    }
    json!({
        "ruleId": d.code.as_str(),
        "ruleIndex": Code::ALL.iter().position(|c| *c == d.code),
        "level": level(d.severity()),
        "message": { "text": text },
        "locations": [{ "physicalLocation": location }],
    })
}

/// A tool execution notification: one of polyfold's own messages, with
/// its SARIF level (`error`, `warning`, `note`, or `none` for a message
/// without a severity).
pub fn notification(level: &str, text: &str) -> Value {
    json!({ "level": level, "message": { "text": text } })
}

/// The SARIF log of a run: its `results` and `notifications`, and
/// whether it succeeded (exit code below 2).
pub fn log(results: Vec<Value>, notifications: Vec<Value>, successful: bool) -> Value {
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "polyfold",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": rules(),
                },
            },
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": successful,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_points_at_its_line_and_column() {
        // `b[i]` starts at byte 9: line 2, column 3 (by hand).
        let source = "int x;\na[b[i]] = 0;\n";
        let d = Diagnostic::new(Code::QuasiAffine, "quasi", 9..13, "here");
        let r = result("dir name/k.c", source, &d);
        assert_eq!(r["ruleId"], "PF016");
        assert_eq!(r["level"], "warning");
        assert_eq!(r["message"]["text"], "quasi: here");
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "dir%20name/k.c");
        assert_eq!(loc["region"]["startLine"], 2);
        assert_eq!(loc["region"]["startColumn"], 3);
        assert_eq!(loc["region"]["endColumn"], 7);
        let absolute = result("/tmp/k.c", source, &d);
        assert_eq!(
            absolute["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file:///tmp/k.c"
        );
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules()[index]["id"], "PF016");
    }

    #[test]
    fn every_code_is_a_rule_once() {
        let rules = rules();
        assert_eq!(rules.len(), Code::ALL.len());
        for (rule, code) in rules.iter().zip(Code::ALL) {
            assert_eq!(rule["id"], code.as_str());
        }
    }
}
